"""LangGraph's prebuilt ReAct agent (`langgraph-supervisor` for the handoff) with LangChain's `ChatOpenAI` against the
fake server, traced by OpenLLMetry's LangChain instrumentation.

    .venvs/traceloop-langgraph/bin/python -m apps.traceloop_langgraph_app --lib traceloop-langgraph \
        --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/langgraph_app.py` (`run_langgraph`); only the
instrumentation differs. OpenLLMetry's LangChain instrumentor adds its callback handler to every LangChain callback
manager (one span per run, chat-model runs included: no OpenAI client instrumentation is needed for the model calls)
and wraps `Pregel.stream` (an `invoke_agent <graph>` span around every graph run), `Command.__init__` (a `goto` span
for a routing command) and `create_react_agent` (a `create_agent` span when an agent is built).

Ground truth: the run records of `run_langgraph`'s callback handler, each run's span read from the instrumentor's
handler (`TraceloopCallbackHandler.spans[run_id].span`, held from its start callback to its end callback). The
`invoke_agent` / `goto` / `create_agent` spans are no LangChain runs: an agent invocation is, as for
`openinference-langgraph`, the run of a compiled agent graph.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402

from apps.langgraph_app import run_langgraph  # noqa: E402

LIBRARY = "traceloop-langgraph"


class TraceloopLangGraphAdapter:
    library = LIBRARY
    convention = "openllmetry"
    content = True

    def setup(self, endpoint):
        import langchain_core.callbacks
        from opentelemetry.instrumentation.langchain import LangchainInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        LangchainInstrumentor().instrument(tracer_provider=self.provider)
        # The instrumentor keeps its one callback handler in the wrapper it puts on BaseCallbackManager.__init__.
        init = langchain_core.callbacks.BaseCallbackManager.__init__
        self.callback_handler = init._self_wrapper._callback_handler

    def span_of(self, run_id):
        holder = self.callback_handler.spans.get(run_id)
        return holder.span if holder is not None else None

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
    adapter = TraceloopLangGraphAdapter()
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
