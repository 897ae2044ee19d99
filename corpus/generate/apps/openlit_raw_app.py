"""The raw agent loops on the real `openai` client (Chat Completions) and on the real `anthropic` client (Messages API)
against the fake server, traced by OpenLIT (`openlit.init` with only its OpenAI or only its Anthropic client
instrumentor):

    .venvs/openlit-raw/bin/python -m apps.openlit_raw_app --lib openlit-openai --scenario plain_tool_use --out DIR
    .venvs/openlit-raw/bin/python -m apps.openlit_raw_app --lib openlit-anthropic --scenario handoff --out DIR

The loops are `corpusgen/raw_loop.py` (`run_raw`) and `corpusgen/raw_loop_anthropic.py` (`run_raw_anthropic`), the same
scenarios and tools as every raw loop. OpenLIT's client instrumentor opens a `chat <model>` CLIENT span around each
`chat.completions.create` / `messages.create`, current while the request is sent. OpenLIT has no decorators of agent or
tool spans; its manual tracer is `openlit.start_trace(name)` (a CLIENT span on the global provider, current inside the
block, `set_metadata` for attributes, `set_result` for the block's result as `gen_ai.output.messages`), as its docs
show. The app's workflow, agent and tool spans are such blocks, named and described the way OpenLIT's own framework
instrumentations name and describe theirs (`invoke_workflow <name>`, `invoke_agent <name>`, `execute_tool <name>` with
`gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.call.arguments`,
`gen_ai.tool.call.result`, as under `openlit-agno`). A block that raises ends ERROR with an `exception` event (the
SDK's `start_as_current_span` default).

Ground truth as for every raw loop: model calls from the request header (the span current at send time: OpenLIT's
chat span), tool executions and agents from inside their bodies (the manual spans), never read back from the trace.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import adapters_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loops import run_raw_loop  # noqa: E402
from corpusgen.tools import DESCRIPTIONS  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402


class OpenlitRawAdapter:
    """openlit: one client instrumentor (model calls) + `openlit.start_trace` blocks for the app's own spans."""

    convention = "otel-genai"
    content = True
    library = ""
    instrumentor = ""  # OpenLIT's instrumentor name (an `INSTRUMENTOR_MAP` key)
    # OpenLIT writes a chat span's input messages when a response arrives: a failed request (HTTP 429 / 500, timeout)
    # records none (as under the other OpenLIT libraries).
    label_rules = {"failed_request_input_recorded": False}

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}", only=(self.instrumentor,))
        self.check_instrumented()

    def check_instrumented(self) -> None:
        raise NotImplementedError

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")

    def workflow(self, name, fn):
        import openlit

        with openlit.start_trace(f"invoke_workflow {name}") as span:
            span.set_metadata({"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": name})
            result = fn()
            span.set_result(result or "")
            return result

    def agent(self, name, fn):
        import openlit

        with openlit.start_trace(f"invoke_agent {name}") as span:
            span.set_metadata({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name})
            result = fn()
            span.set_result(result or "")
            return result

    def tool(self, name, call_id, args, fn):
        import openlit

        with openlit.start_trace(f"execute_tool {name}") as span:
            metadata = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function",
                        "gen_ai.tool.call.arguments": json.dumps(args)}
            if call_id:
                metadata["gen_ai.tool.call.id"] = call_id
            if name in DESCRIPTIONS:
                metadata["gen_ai.tool.description"] = DESCRIPTIONS[name]
            span.set_metadata(metadata)
            result = fn(**args)
            span.set_metadata({"gen_ai.tool.call.result": result})
            span.set_result(result)
            return result


class OpenlitOpenAIAdapter(OpenlitRawAdapter):
    library = "openlit-openai"
    instrumentor = "openai"

    def check_instrumented(self) -> None:
        from openai.resources.chat.completions import Completions

        if not hasattr(Completions.create, "__wrapped__"):
            raise RuntimeError("openlit did not instrument openai (Completions.create not wrapped)")


class OpenlitAnthropicAdapter(OpenlitRawAdapter):
    library = "openlit-anthropic"
    instrumentor = "anthropic"

    def check_instrumented(self) -> None:
        from anthropic.resources.messages import Messages

        if not hasattr(Messages.create, "__wrapped__"):
            raise RuntimeError("openlit did not instrument anthropic (Messages.create not wrapped)")


ADAPTERS = {"openlit-openai": OpenlitOpenAIAdapter, "openlit-anthropic": OpenlitAnthropicAdapter}


def run_openlit_raw(adapter: OpenlitRawAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run_raw_loop(adapter, adapter.instrumentor == "anthropic", scenario, base_url, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_openlit_raw)


if __name__ == "__main__":
    sys.exit(main())
