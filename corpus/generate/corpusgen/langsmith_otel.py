"""The LangSmith Python SDK in its OTel-only mode, exporting through the corpus TracerProvider, and the ground truth of
the spans it makes after the fact (read in langsmith 0.15.1: `client.py`, `run_helpers.py`,
`_internal/otel/_otel_exporter.py`, `_internal/_otel_utils.py`; the mode and provider set up as for Frameworks S,
`apps/langsmith_langgraph_app.py`).

`configure_env()` must run before anything imports `langsmith` (it caches its settings on first read): tracing on,
`LANGSMITH_OTEL_ENABLED` + `LANGSMITH_OTEL_ONLY` (tracing mode "otel": no upload, no `/info` call), a dummy API key and
`LANGSMITH_ENDPOINT` an unused 127.0.0.1 port that the connect guard refuses.

LangSmith opens a run's span only when its tracing thread drains the queued post of that run, so no span exists while
a run executes (inside a `@traceable` function the current OTel span is a non-recording one whose ids are derived
from the run's ids, never exported). The live look-ups of the ground truth (`truth.current_ids`: the request header of
a model call, the span inside a tool or agent body) therefore get a stand-in per LangSmith run, the run current in
LangSmith's own context (`get_current_run_tree()`); `RunSpans.real` turns a stand-in id into the id of the span
LangSmith made for that run, recorded by a class-level wrapper of `OTELExporter._create_span_for_run`.
"""
from __future__ import annotations

import os
import random
import socket
import threading

from .truth import Truth, use_current_span

STAND_IN_TRACE = 0x5354414E44494E5354414E44494E0002  # trace id of the stand-ins (never exported)


def configure_env() -> int:
    """Set LangSmith's environment for the OTel-only mode (clearing any LANGSMITH_* / LANGCHAIN_* set before);
    returns the unused loopback port given as `LANGSMITH_ENDPOINT`."""
    for key in [k for k in os.environ if k.startswith(("LANGSMITH_", "LANGCHAIN_"))]:
        del os.environ[key]
    with socket.socket() as s:  # a port nothing listens on: bound once to pick it, then released
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(LANGSMITH_TRACING="true", LANGSMITH_OTEL_ENABLED="true", LANGSMITH_OTEL_ONLY="true",
                      LANGSMITH_API_KEY="lsv2_pt_corpus-dummy-key", LANGSMITH_ENDPOINT=f"http://127.0.0.1:{port}")
    return port


class RunSpans:
    """Every span LangSmith's OTel exporter made, by run id, and a stand-in span per run for the live look-ups."""

    def __init__(self, provider) -> None:
        from langsmith import run_trees
        from langsmith._internal.otel import _otel_exporter

        self.created: dict = {}  # run id -> {"span", "parent", "name"}
        self.stand_ins: dict = {}  # run id -> stand-in span
        self.by_token: dict[str, object] = {}  # stand-in span id (hex) -> run id
        self.lock = threading.Lock()
        exporter_cls = _otel_exporter.OTELExporter
        original = exporter_cls._create_span_for_run
        if getattr(original, "_corpus_wrapped", False):
            raise RuntimeError("OTELExporter already wrapped")
        spans = self

        def _create_span_for_run(exporter, op, run_info, otel_context=None):
            span = original(exporter, op, run_info, otel_context)
            with spans.lock:
                spans.created[op.id] = {"span": span, "parent": run_info.get("parent_run_id"),
                                        "name": run_info.get("name")}
            return span

        _create_span_for_run._corpus_wrapped = True
        exporter_cls._create_span_for_run = _create_span_for_run
        self.client = run_trees.get_cached_client()  # the client `@traceable` and the wrappers post to
        if self.client.tracing_mode != "otel" or self.client.otel_exporter is None:
            raise RuntimeError(f"LangSmith client not in OTel-only mode: {self.client.tracing_mode}")
        tracer = self.client.otel_exporter._tracer
        if getattr(tracer, "span_processor", None) is not provider._active_span_processor:
            raise RuntimeError("LangSmith's OTel exporter does not use the corpus TracerProvider")

    def use_for_ground_truth(self) -> None:
        """`truth.current_ids` reads the stand-in of the LangSmith run current in LangSmith's context."""
        from langsmith.run_helpers import get_current_run_tree
        from opentelemetry.trace import INVALID_SPAN

        def current():
            run = get_current_run_tree()
            return INVALID_SPAN if run is None else self.stand_in(run.id)

        use_current_span(current)

    def stand_in(self, run_id):
        from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

        with self.lock:
            span = self.stand_ins.get(run_id)
            if span is None:
                token = random.getrandbits(64) or 1
                while format(token, "016x") in self.by_token:
                    token = random.getrandbits(64) or 1
                span = NonRecordingSpan(SpanContext(trace_id=STAND_IN_TRACE, span_id=token, is_remote=False,
                                                    trace_flags=TraceFlags(TraceFlags.SAMPLED)))
                self.stand_ins[run_id] = span
                self.by_token[format(token, "016x")] = run_id
            return span

    def real(self, token: str | None) -> str | None:
        """The span id LangSmith exported for the run a stand-in id stands for (None stays None)."""
        if token is None:
            return None
        run_id = self.by_token.get(token)
        if run_id is None:
            raise RuntimeError(f"span id {token} is no stand-in")
        made = self.created.get(run_id)
        if made is None or made["span"] is None:
            raise RuntimeError(f"LangSmith made no span for run {run_id}")
        return format(made["span"].get_span_context().span_id, "016x")

    def settle(self, truth: Truth, runs: str = "runs looked up live") -> None:
        """Drain LangSmith's tracing queue (every run's span made), then put the real span ids into the ground truth
        in place of the stand-ins; the trace is that of the root run's span. ``runs`` names the runs looked up in the
        notes."""
        self.client.flush()
        missing = [rid for rid in self.stand_ins if rid not in self.created]
        if missing:
            raise RuntimeError(f"{len(missing)} {runs} got no LangSmith span")
        for rows in (truth.tools, truth.agents, truth.workflows):
            for row in rows:
                row["span_id"] = self.real(row["span_id"])
        for h in truth.handoffs:
            h["from_span"], h["to_span"] = self.real(h["from_span"]), self.real(h["to_span"])
        for flow in truth.flow_overrides.values():
            for k in [k for k in flow if k.endswith("_span")]:
                flow[k] = self.real(flow[k])
        roots = [m for m in self.created.values() if m["parent"] is None]
        if roots:
            truth.trace_id = format(roots[0]["span"].get_span_context().trace_id, "032x")
        span_ids = {str(rid): m["span"].get_span_context().span_id for rid, m in self.created.items()}
        misparented = [m["name"] for m in self.created.values() if m["parent"] is not None
                       and getattr(getattr(m["span"], "parent", None), "span_id", None) != span_ids.get(str(m["parent"]))]
        if misparented:
            truth.notes.append("spans not parented on their parent run's span: " + ", ".join(misparented))
        truth.notes.append(f"LangSmith spans: {len(self.created)} for {len(self.stand_ins)} {runs}")
