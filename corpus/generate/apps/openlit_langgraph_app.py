"""LangGraph's prebuilt ReAct agent (`langgraph-supervisor` for the handoff) with LangChain's `ChatOpenAI` against the
fake server, traced by OpenLIT (`openlit.init`: its LangChain and LangGraph instrumentors, plus every other instrumentor
it finds installed: the OpenAI client, and the OTel HTTP client instrumentations it depends on).

    .venvs/openlit-langgraph/bin/python -m apps.openlit_langgraph_app --lib openlit-langgraph --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/langgraph_app.py` (`run_langgraph`); only the
instrumentation differs. OpenLIT's LangChain instrumentor adds its callback handler (`OpenLITCallbackHandler`) to every
LangChain callback manager (wrapping `BaseCallbackManager.__init__`): a span per chat-model run (`chat <model>`), per
tool run (`execute_tool <tool>`), per retriever run, and per chain run only when the chain looks like an agent (its
name or class path contains "agent": `invoke_agent <name>`) or is a top-level chain with no LangGraph wrapper active
(`invoke_workflow <name>`); every other chain run is skipped (its children re-parented to the nearest spanned run).
OpenLIT's LangGraph instrumentor wraps `Pregel.invoke` / `stream` / `get_state` (and async forms: an
`invoke_workflow <graph>` span, made current), `StateGraph.compile` (a `create_agent <graph>` span at build time) and
`StateGraph.add_node` (each non-tool node function wrapped in an `invoke_agent <node>` span, made current).

Ground truth: the run records of `run_langgraph`'s callback handler, each run's span read from OpenLIT's handler
(`OpenLITCallbackHandler.spans[run_id].span`, held from its start callback to its end callback; the handler is the one
kept by the wrapper on `BaseCallbackManager.__init__`). Spans that are no LangChain run (Pregel / add_node / compile
wrappers, OpenAI client spans) are not labelled; runs OpenLIT skips are noted and not labelled.

openlit.init as for `openlit-openai-agents` (apps/agents.py): a local pricing file with no prices (no download at
init), metrics and events off, content capture at its default (on), reusing the corpus SDK TracerProvider set before
it (no exporter of its own).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import init_openlit_local, otlp_sdk_pipeline, run_one  # noqa: E402

from apps.langgraph_app import run_langgraph  # noqa: E402

LIBRARY = "openlit-langgraph"


class OpenlitLangGraphAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint):
        import langchain_core.callbacks.manager

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")
        init = langchain_core.callbacks.manager.BaseCallbackManager.__init__
        wrapper = getattr(init, "_self_wrapper", None)
        if wrapper is None or not hasattr(wrapper, "get_handler"):
            raise RuntimeError("openlit did not instrument LangChain (BaseCallbackManager.__init__ not wrapped)")
        self.callback_handler = wrapper.get_handler()

    def span_of(self, run_id):
        holder = self.callback_handler.spans.get(run_id)
        return holder.span if holder is not None else None

    @staticmethod
    def label_wrapper_spans(runs, counts, truth):
        """Label OpenLIT's LangGraph wrapper spans, found as the span current when a run started.

        The graph span (`Pregel.invoke`, current while the graph runs) is current when the graph's top-level run
        starts: it records that graph run, which is one workflow step when OpenLIT gave the run no span of its own
        (a graph whose name holds no "agent"), and the run's own node otherwise. A node wrapper (current while the
        node function runs, inside the node's run) is current when a child run of the node's run starts and was
        not when the node's run started: it records that node run, a workflow step of its own only when the node's
        run has no span."""
        for rec in runs.values():
            extra = None
            if rec["parent"] is None and rec["type"] == "chain" and rec["current"]:
                extra = rec["current"] if rec["otel"] is None else None
            elif rec["type"] == "chain" and rec["metadata"].get("langgraph_node") == rec["name"] and rec["otel"] is None:
                inside = {child["current"] for child in runs.values() if child["parent"] == rec["run_id"]}
                wrappers = inside - {rec["current"], None}
                extra = wrappers.pop() if len(wrappers) == 1 else None
            if extra is not None:
                counts["workflow_step"] += 1
                truth.workflows.append({"name": rec["name"], "span_id": extra})
                truth.notes.append(f"run {rec['name']}: OpenLIT's LangGraph wrapper span is its only record (a step)")

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
    adapter = OpenlitLangGraphAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
        # OpenLIT's LangChain handler writes a chat span's input messages when the run ends well (on_llm_end); a
        # failed request's span records none (on_llm_error).
        "failed_request_input_recorded": False,
    }
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
