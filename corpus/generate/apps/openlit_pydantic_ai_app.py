"""Pydantic AI (`pydantic-ai`, `OpenAIChatModel` on the real `openai` client) against the fake server, traced by OpenLIT
(`openlit.init` with its Pydantic AI instrumentor and its OpenAI client instrumentor only).

    .venvs/openlit-pydantic-ai/bin/python -m apps.openlit_pydantic_ai_app --lib openlit-pydantic-ai --scenario handoff --out DIR

The agents, tools, delegation, retry, scripts and ground truth are those of `apps/pydantic_ai_app.py`
(`run_pydantic_ai`); only the instrumentation differs. Pydantic AI's own instrumentation is off: OpenLIT's Pydantic AI
instrumentor (1.45.0) only wraps methods (`Agent.__init__`, `Agent.run`, `Agent.run_sync`, `Agent.iter`,
`UserPromptNode.run`, `ModelRequestNode.run`, `CallToolsNode.run`) and never calls `Agent.instrument_all` nor passes
`instrument=`, and an `Agent` built without `instrument` reads `Agent._instrument_default`, `False` until something
calls `Agent.instrument_all`; what `openlit.init` with `pydantic-ai` installed gives is OpenLIT's spans alone.

OpenLIT's instrumentor checks its dependency `pydantic-ai >= 0.2.17` (the distribution, not `pydantic-ai-slim`) before
it wraps anything, so the venv installs `pydantic-ai`. Every other OpenLIT instrumentor is disabled; its OpenAI
instrumentor traces the `OpenAIChatModel` requests (a `chat <model>` span per `chat.completions.create`).

Ground truth as for `pydantic-ai-native` (never read back from the trace): model calls from the request header (the span
current at send time: OpenLIT's `chat` span; the app's retry after HTTP 429 is a second request, its own `chat` span),
tool executions from the tool bodies (`ctx.tool_call_id`; the span current inside the body is the agent's
`execute_task` span, so a tool has no span of its own: `span_id` None, as for OpenLLMetry's CrewAI), agent runs
from a `Hooks` capability's `before_run` (the span current in it), the delegation as the handoff. `other`: the app's
count of the `Agent.iter` and node `run` calls, whose OpenLIT spans end before what they name runs.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.pydantic_ai_app import PydanticAIAdapter, _attempt_spans, run_pydantic_ai  # noqa: E402

LIBRARY = "openlit-pydantic-ai"
# OpenLIT's instrumentor names (its `INSTRUMENTOR_MAP` keys): Pydantic AI's agents and the OpenAI client's requests.
INSTRUMENTORS = ("pydantic_ai", "openai")
# The methods OpenLIT wraps in a span that ends when the call returns its async context manager or coroutine, before
# any of it runs: spans of no node kind (`other`). Counted by the app's own wrappers, installed before OpenLIT's.
NODE_METHODS = (("pydantic_ai.agent", "Agent.iter"), ("pydantic_ai._agent_graph", "UserPromptNode.run"),
                ("pydantic_ai._agent_graph", "ModelRequestNode.run"), ("pydantic_ai._agent_graph", "CallToolsNode.run"))


class NodeCalls:
    """How many times the agents called the methods of :data:`NODE_METHODS`."""

    def __init__(self) -> None:
        self.count = 0

    def install(self) -> None:
        from wrapt import wrap_function_wrapper

        def wrapper(wrapped, instance, args, kwargs):
            self.count += 1
            return wrapped(*args, **kwargs)

        for module, name in NODE_METHODS:
            wrap_function_wrapper(module, name, wrapper)


class OpenlitPydanticAIAdapter(PydanticAIAdapter):
    """openlit: its Pydantic AI instrumentor (agent spans) + its OpenAI client instrumentor (model calls); Pydantic AI's
    own instrumentation left off."""

    library = LIBRARY
    convention = "otel-genai"
    content = True
    pydantic_ai_instrumentation = False

    def setup(self, endpoint: str) -> None:
        self.node_calls = NodeCalls()
        self.node_calls.install()
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.attempts = _attempt_spans()
        self.provider.add_span_processor(self.attempts)
        self._seen: dict[str, int] = {}
        self._pricing = init_openlit_local(f"corpus-{self.library}", only=INSTRUMENTORS)
        from pydantic_ai import Agent

        if not hasattr(Agent.run, "__wrapped__"):
            raise RuntimeError("openlit did not instrument pydantic_ai (Agent.run not wrapped)")


def run_openlit_pydantic_ai(adapter: OpenlitPydanticAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run_pydantic_ai(adapter, scenario, base_url, truth)
    agent_spans = {a["span_id"] for a in truth.agents}
    for t in truth.tools:
        # No span of OpenLIT's holds a tool's run (its `execute_tool` node span closes before the node runs): the body
        # runs under the agent's `execute_task` span, a tool with no span of its own (truth.py anchors findings about
        # it on the model span that proposed it).
        if t["span_id"] in agent_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under agent span {t['span_id']}: no span")
            t["span_id"] = None
    truth.kind_counts["other"] = adapter.node_calls.count


def main() -> int:
    # OpenLIT's OpenAI wrapper writes a chat span's input messages when a response arrives; a failed request (HTTP 429 /
    # 500, timeout) records none (as under the other OpenLIT libraries).
    return app_main(OpenlitPydanticAIAdapter(), run_openlit_pydantic_ai,
                    extra_meta={"failed_request_input_recorded": False})


if __name__ == "__main__":
    sys.exit(main())
