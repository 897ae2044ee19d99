"""LlamaIndex agents (`FunctionAgent`; `AgentWorkflow` for the handoff) with the OpenAI LLM against the fake server,
traced by OpenLIT (`openlit.init` at its default: every instrumentor it finds installed).

    .venvs/openlit-llama-index/bin/python -m apps.openlit_llama_index_app --lib openlit-llama-index \
        --scenario handoff --out DIR

The agents, tools, scripts and LlamaIndex settings are those of `apps/llamaindex_app.py` (`run_agents`); only the
instrumentation differs. `openlit.init` (`corpusgen.harness.init_openlit_local`, no instrumentor left out) turns on,
among the libraries installed here, its LlamaIndex and OpenAI client instrumentors and its httpx one. The LlamaIndex one
(1.45.0) wraps methods with `wrapt` (readers, indexes, query engines, retrievers, `LLM.chat` / `achat` / `astream_chat`
on the base class, embeddings, schema helpers); it adds no span handler to LlamaIndex's dispatcher and wraps nothing of
an agent, a workflow or a tool. The OpenAI one opens a `chat <model>` span for each request.

Without a span around it, each request is a trace of its own (nothing of LlamaIndex's has a span to hold them), so the
app runs the agents inside one block of OpenLIT's manual tracer, as its docs group an application's work into one
trace and as `apps/openlit_raw_app.py` names it: `openlit.start_trace("invoke_workflow support_workflow")` with
`gen_ai.operation.name` `invoke_workflow` and `gen_ai.workflow.name`.

Ground truth (never read back from the trace): model calls from the request header (the span current at send time:
OpenLIT's OpenAI `chat` span; LlamaIndex's own retry re-sends a request, each attempt its own `chat` span), the
workflow block recorded inside it (a workflow step), tool executions from the tool bodies (the span current inside
them: the workflow block, checked, so no tool has a span), the terminal status from how the run ended. No dispatcher
span maps to a span of OpenLIT's (`run_agents(handler_module=None)`): agent runs and workflow steps of LlamaIndex have
no span, and the handoff (LlamaIndex's `handoff` tool, a plain tool with no span) is labelled no handoff.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.llamaindex_app import record_nodes, run_agents  # noqa: E402

LIBRARY = "openlit-llama-index"
WORKFLOW = "support_workflow"


class OpenlitLlamaIndexAdapter:
    """openlit at its default: its LlamaIndex, OpenAI client (model calls) and httpx instrumentors."""

    library = LIBRARY
    convention = "otel-genai"
    content = True

    def __init__(self) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server

    def setup(self, endpoint: str) -> None:
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_openlit_llama_index(adapter: OpenlitLlamaIndexAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import openlit

    run = None
    try:
        try:
            with openlit.start_trace(f"invoke_workflow {WORKFLOW}") as block:
                block.set_metadata({"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": WORKFLOW})
                workflow_span = truth.record_workflow(WORKFLOW)
                run = run_agents(scenario, base_url, truth, handler_module=None, span_attr=None)
                if run.exc is not None:
                    raise run.exc  # through the block, as in an application whose run raised (the block ends ERROR)
        except Exception as exc:  # noqa: BLE001 - recorded by run_agents (terminal status) already
            if run is None or exc is not run.exc:
                raise
        record_nodes(truth, run, model_calls_from_dispatcher=False)
        truth.kind_counts["workflow_step"] = len(truth.workflows)  # the block; LlamaIndex's steps have no span
        for t in truth.tools:
            if t["span_id"] != workflow_span:
                raise RuntimeError(f"tool {t['name']} ran under span {t['span_id']}, not the workflow block's")
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under the workflow block {t['span_id']}: "
                               "no span")
            t["span_id"] = None
        if truth.handoffs:
            truth.notes.append("the triage agent handed off to the billing agent (LlamaIndex's handoff tool): no agent "
                               "or tool has a span, no handoff is labelled")
            truth.handoffs.clear()
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    return app_main(
        OpenlitLlamaIndexAdapter(),
        run_openlit_llama_index,
        family="raw+retry_once",
        handoff_family="agent_workflow+retry_once",
        # OpenLIT writes a chat span's input messages when a response arrives: a failed request records none. No tool
        # has a span, and LlamaIndex hands the model a raised tool's exception message alone: nothing in the trace says
        # the tool failed.
        extra_meta={"failed_request_input_recorded": False, "model_calls_by_span": True,
                    "spanless_tool_failure_recorded": False},
    )


if __name__ == "__main__":
    sys.exit(main())
