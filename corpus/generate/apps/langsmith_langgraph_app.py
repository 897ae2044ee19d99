"""LangGraph's prebuilt ReAct agent (`langgraph-supervisor` for the handoff) with LangChain's `ChatOpenAI` against the
fake server, traced by LangSmith's OpenTelemetry export: the `langsmith` Python SDK in its OTel-only mode
(`LANGSMITH_TRACING=true`, `LANGSMITH_OTEL_ENABLED=true`, `LANGSMITH_OTEL_ONLY=true`), with LangChain's own
`LangChainTracer`, which langchain-core adds to every callback manager when LangSmith tracing is on.

    .venvs/langsmith-langgraph/bin/python -m apps.langsmith_langgraph_app --lib langsmith-langgraph --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/langgraph_app.py` (`run_langgraph`); only the
instrumentation differs.

How LangSmith turns runs into spans (read in langsmith 0.15.1: `client.py`, `_internal/_background_thread.py`,
`_internal/otel/_otel_client.py`, `_internal/otel/_otel_exporter.py`, `_internal/_otel_utils.py`; langchain-core
1.8.3 `tracers/langchain.py`): `LangChainTracer` posts each run to the LangSmith `Client` when it starts (chains with
deferred inputs when they end) and patches it when it ends; the client serializes each post / patch and puts it on its
tracing queue. The legacy env vars `LANGSMITH_OTEL_ONLY` (over `LANGSMITH_OTEL_ENABLED`) resolve to tracing mode
"otel": the client builds an `OTELExporter` and its background tracing thread hands each drained batch to
`OTELExporter.export_batch` instead of uploading it (no REST upload, no `/info` call in this mode). `export_batch`
opens one span per run (`_create_span_for_run`, tracer `langsmith`, named after the run, start / end times from the
run record, parent = the span of the parent run while it is still held in the exporter's in-flight map; a root run's
parent is the OTel span current when its post was queued) and sets its attributes from the run (`gen_ai.*`,
`langsmith.*`); a patch updates and ends it. Spans are therefore made after the fact, in the tracing thread: never
current while the run executes, with ids from the SDK's id generator (the run-id-derived "deterministic" ids of
`_otel_utils` are used only for a parent context that is not exported).

TracerProvider: the client uses the global OTel tracer provider when one is set (not a proxy to the no-op tracer);
only without one does it build its own (`get_otlp_tracer_provider`: OTLP/HTTP to `<LANGSMITH_ENDPOINT>/otel`). Here
the corpus SDK pipeline (`otlp_sdk_pipeline`: BatchSpanProcessor + OTLP/gRPC exporter to the capture server) is set as
the global provider first and the LangSmith client is created after it (`setup` checks that its exporter's tracer
belongs to that provider). `LANGSMITH_API_KEY` is a dummy and `LANGSMITH_ENDPOINT` an unused 127.0.0.1 port; an audit
hook on `socket.connect` refuses any connection to another address or to that port.

Ground truth: a LangChain run's id is the id of LangSmith's run op (`SerializedRunOperation.id`); the adapter records
the span `OTELExporter._create_span_for_run` returns for each op (a class-level wrapper: the exporter has __slots__
and keeps a span in its in-flight map only until the run's patch is processed). Since those spans do not exist while
the run executes, `run_langgraph`'s live look-ups (`span_of`: the request header of a chat-model run, the tool body's
span, the runs' spans) get a stand-in per run (a non-recording span with a fresh random id, used for nothing but the
ground truth; LangSmith reads the current OTel span only when it queues a run's post, and no run starts inside a tool
body); after the run, LangSmith's queue is drained and every stand-in in the ground truth is replaced by the span
LangSmith made for that run.
"""

from __future__ import annotations

import os
import random
import socket
import sys
import threading
from pathlib import Path

LIBRARY = "langsmith-langgraph"


def _unused_loopback_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound once to pick it, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# LangSmith reads its settings from the environment (cached on first read): set them before anything imports it.
for _k in [k for k in os.environ if k.startswith(("LANGSMITH_", "LANGCHAIN_"))]:
    del os.environ[_k]
LANGSMITH_PORT = _unused_loopback_port()
os.environ.update(
    LANGSMITH_TRACING="true",
    LANGSMITH_OTEL_ENABLED="true",
    LANGSMITH_OTEL_ONLY="true",
    LANGSMITH_API_KEY="lsv2_pt_corpus-dummy-key",
    LANGSMITH_ENDPOINT=f"http://127.0.0.1:{LANGSMITH_PORT}",
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402

from apps.langgraph_app import run_langgraph  # noqa: E402

STAND_IN_TRACE = 0x5354414E44494E5354414E44494E0001  # trace id of the stand-ins (never exported)


class LangSmithLangGraphAdapter:
    library = LIBRARY
    convention = "langsmith"
    content = True

    def setup(self, endpoint):
        from langsmith import run_trees
        from langsmith._internal.otel import _otel_exporter

        self.guard = ConnectGuard(refused_port=LANGSMITH_PORT)
        # The corpus pipeline as the global provider before the LangSmith client exists: the client reuses it.
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.created: dict = {}  # run id -> the span LangSmith created for it
        self.lock = threading.Lock()
        adapter = self
        exporter_cls = _otel_exporter.OTELExporter
        original = exporter_cls._create_span_for_run
        if getattr(original, "_corpus_wrapped", False):
            raise RuntimeError("OTELExporter already wrapped")

        def _create_span_for_run(exporter, op, run_info, otel_context=None):
            span = original(exporter, op, run_info, otel_context)
            with adapter.lock:
                adapter.created[op.id] = {"span": span, "parent": run_info.get("parent_run_id"),
                                          "name": run_info.get("name")}
            return span

        _create_span_for_run._corpus_wrapped = True
        exporter_cls._create_span_for_run = _create_span_for_run

        self.client = run_trees.get_cached_client()  # what LangChainTracer's get_client() returns
        if self.client.tracing_mode != "otel" or self.client.otel_exporter is None:
            raise RuntimeError(f"LangSmith client not in OTel-only mode: {self.client.tracing_mode}")
        tracer = self.client.otel_exporter._tracer
        if getattr(tracer, "span_processor", None) is not self.provider._active_span_processor:
            raise RuntimeError("LangSmith's OTel exporter does not use the corpus TracerProvider")
        self.stand_ins: dict = {}  # run id -> stand-in span
        self.by_token: dict = {}  # stand-in span id (hex) -> run id

    # ---- live look-ups: a stand-in per run, replaced after the run ---------------------------------------------
    def span_of(self, run_id):
        from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

        if run_id is None:
            return None
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

    def real(self, token):
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

    def settle(self, truth):
        """Drain LangSmith's tracing queue (every run op exported as a span), then put the real span ids into the
        ground truth in place of the stand-ins."""
        from langchain_core.tracers.langchain import wait_for_all_tracers

        wait_for_all_tracers()
        self.client.flush()
        runs_without_span = [rid for rid in self.stand_ins if rid not in self.created]
        if runs_without_span:
            raise RuntimeError(f"{len(runs_without_span)} LangChain run(s) got no LangSmith span")
        for t in truth.tools:
            t["span_id"] = self.real(t["span_id"])
        for a in truth.agents:
            a["span_id"] = self.real(a["span_id"])
        for w in truth.workflows:
            w["span_id"] = self.real(w["span_id"])
        for h in truth.handoffs:
            h["from_span"], h["to_span"] = self.real(h["from_span"]), self.real(h["to_span"])
        for flow in truth.flow_overrides.values():
            for k in [k for k in flow if k.endswith("_span")]:
                flow[k] = self.real(flow[k])
        # The trace: that of the span of the run at the root of the run tree.
        roots = [m for m in self.created.values() if m["parent"] is None]
        if roots:
            truth.trace_id = format(roots[0]["span"].get_span_context().trace_id, "032x")
        # Spans whose parent is not the span of their parent run (LangSmith parents a span on its parent run's span
        # only while that one is still in its in-flight map).
        span_ids = {str(rid): m["span"].get_span_context().span_id for rid, m in self.created.items()}
        misparented = []
        for m in self.created.values():
            parent_span = getattr(m["span"], "parent", None)
            want = span_ids.get(str(m["parent"])) if m["parent"] is not None else None
            got = parent_span.span_id if parent_span is not None else None
            if m["parent"] is not None and got != want:
                misparented.append(m["name"])
        if misparented:
            truth.notes.append("spans not parented on their parent run's span: " + ", ".join(misparented))
        truth.notes.append(f"LangSmith spans: {len(self.created)} for {len(self.stand_ins)} LangChain runs")
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")
        hosts = sorted({h for h, _ in self.guard.seen})
        truth.notes.append(f"python socket connections: {len(self.guard.seen)}, hosts {hosts}")

    def model_span_for(self, request_log_entry):
        return self.real(request_log_entry.get("otel_span"))

    def shutdown(self):
        self.client.flush()
        self.provider.force_flush()
        self.provider.shutdown()


def run_langsmith_langgraph(adapter, scenario, base_url, truth):
    try:
        run_langgraph(adapter, scenario, base_url, truth)
    finally:
        adapter.settle(truth)


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = LangSmithLangGraphAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
    }
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_langsmith_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
