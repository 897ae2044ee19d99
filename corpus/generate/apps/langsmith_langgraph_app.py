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
LangSmith made for that run. The set-up, the stand-ins and their replacement are `corpusgen/langsmith_otel.py`'s (shared
with `apps/langsmith_openai_app.py`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.langsmith_otel import configure_env  # noqa: E402

LANGSMITH_PORT = configure_env()  # LangSmith reads its settings from the environment (cached on first read)

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.langsmith_otel import RunSpans  # noqa: E402

from apps.langgraph_app import run_langgraph  # noqa: E402

LIBRARY = "langsmith-langgraph"


class LangSmithLangGraphAdapter:
    library = LIBRARY
    convention = "langsmith"
    content = True

    def setup(self, endpoint):
        self.guard = ConnectGuard(refused_port=LANGSMITH_PORT)
        # The corpus pipeline as the global provider before the LangSmith client exists: the client reuses it.
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.runs = RunSpans(self.provider)  # the client LangChainTracer's get_client() returns
        self.client = self.runs.client

    # ---- live look-ups: a stand-in per run, replaced after the run ---------------------------------------------
    def span_of(self, run_id):
        return None if run_id is None else self.runs.stand_in(run_id)

    def settle(self, truth):
        """Drain LangChain's tracers and LangSmith's tracing queue (every run op exported as a span), then put the
        real span ids into the ground truth in place of the stand-ins."""
        from langchain_core.tracers.langchain import wait_for_all_tracers

        wait_for_all_tracers()
        self.runs.settle(truth, runs="LangChain runs")
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")
        note_connections(self.guard, truth)

    def model_span_for(self, request_log_entry):
        return self.runs.real(request_log_entry.get("otel_span"))

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
