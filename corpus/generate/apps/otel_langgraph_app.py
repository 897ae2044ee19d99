"""LangGraph's prebuilt ReAct agent (`langgraph-supervisor` for the handoff) with LangChain's `ChatOpenAI` against the
fake server, traced by the official OpenTelemetry LangChain instrumentation (`opentelemetry-instrumentation-genai-langchain`,
GenAI semantic conventions written through `opentelemetry-util-genai`'s `TelemetryHandler`).

    .venvs/otel-langgraph/bin/python -m apps.otel_langgraph_app --lib otel-langgraph --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/langgraph_app.py` (`run_langgraph`); only the
instrumentation differs. The instrumentor adds its callback handler to every LangChain callback manager (one
invocation per classified run: workflow, agent, chat model, tool, retriever; unclassified chain runs get no span) and
wraps `Pregel.stream` / `Pregel.astream` (to recognise agent graphs). Its spans are never made current
(`_attach_to_context=False`).

Ground truth: the run records of `run_langgraph`'s callback handler, each run's span read from the instrumentor's
invocation manager (`_invocation_manager.get_invocation(run_id).span`, held from its start callback until the run and
its children have ended). Runs the instrumentation opens no span for are noted and not labelled.

Content capture: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY` (util-genai reads a
`ContentCapturingMode` name; `true` is not one and falls back to NO_CONTENT). The instrumentor's dependency check
asks for the `langchain` package (`langchain >= 0.3.22, < 2`), which this app does not use: it imports only
`langchain_core` and `langgraph`, so it is instrumented with `skip_dep_check=True`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402

from apps.langgraph_app import run_langgraph  # noqa: E402

LIBRARY = "otel-langgraph"


class OtelLangGraphAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint):
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
        from opentelemetry.instrumentation.genai.langchain import LangChainInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.instrumentor = LangChainInstrumentor()
        self.instrumentor.instrument(tracer_provider=self.provider, skip_dep_check=True)
        handler = self.instrumentor._callback_handler
        if handler is None:
            raise RuntimeError("LangChainInstrumentor did not instrument")
        self.invocations = handler._invocation_manager

    def span_of(self, run_id):
        invocation = self.invocations.get_invocation(run_id)
        return getattr(invocation, "span", None) if invocation is not None else None

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = OtelLangGraphAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
    }
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
