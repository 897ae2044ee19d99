"""AutoGen AgentChat (`autogen-agentchat`, `autogen-ext[openai]`) traced by OpenInference's AutoGen AgentChat
instrumentor (`AutogenAgentChatInstrumentor().instrument(tracer_provider=...)`), with autogen-core's own GenAI spans
left on (they use the global TracerProvider, which the pipeline sets, as Phoenix's `register()` does).

    .venvs/openinference-autogen-agentchat/bin/python -m apps.openinference_autogen_app \
        --lib openinference-autogen-agentchat --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/autogen_app.py` (`run_autogen`); only the
instrumentation differs: no OTel OpenAI instrumentation, the instrumentor records the model calls itself. What it
wraps (read in its 0.1.22 source, `_wrappers.py`):

- `AssistantAgent.on_messages_stream` / `BaseChatAgent.on_messages_stream`: an AGENT span `<agent>.on_messages_stream`
  opened when the generator is first iterated and attached as current (`graph.node.id` = the agent,
  `graph.node.parent_id` = the source of the last message, `start` for the user);
- `AssistantAgent._execute_tool_call`: a TOOL span `<agent>.<tool>` (`tool.name`, `tool.description`, `tool.parameters`
  and `input.value` = the call's arguments, `output.value` = the result text; ERROR "Tool execution failed" when AutoGen
  marks the result an error); no tool-call id;
- `BaseOpenAIChatCompletionClient.create` / `create_stream`: an LLM span `<client class>.create` (messages in its own
  flattening, `llm.tools.*`, output tool calls, token counts);
- `BaseGroupChat.run_stream`: a CHAIN span `<team class>.run_stream`.

Ground truth as for `autogen-agentchat` (never read back from the exported trace): model spans from the request header
(the instrumentor's LLM span is current at send time), tool executions and call ids from the tool bodies (autogen-core's
`execute_tool` span, the innermost span of the tool run, is current inside them; the instrumentor's TOOL span around it
is not a node of its own), agent runs from the AssistantAgent subclass (autogen-core's `invoke_agent`, the invocation
from `run()` to its return or raise; the instrumentor's AGENT span inside it is not a node of its own: it ends only when
the handler's generator is closed, after its parent). Hooks wrapped around AutoGen's methods *before* the instrumentor
wraps them (so that they run inside its spans) record where AutoGen's objects acted in the instrumentor's spans:

- the AGENT span current inside `AssistantAgent.on_messages_stream`, checked to be the only one in each agent run;
- a call AutoGen rejects because no tool of that name exists is the instrumentor's TOOL span in which
  `_execute_tool_call` rejected it (an execution with the outcome `unknown_tool`, as the span Strands opens for one);
- the team's run (`Swarm.run_stream`) is a workflow step.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.autogen_app import AutoGenAdapter, run_autogen  # noqa: E402

LIBRARY = "openinference-autogen-agentchat"


def _span_and_parent() -> tuple[str | None, str | None]:
    """Span id of the current span and of its parent (hex)."""
    from opentelemetry import trace

    span = trace.get_current_span()
    ctx, parent = span.get_span_context(), getattr(span, "parent", None)
    if not ctx.is_valid:
        return None, None
    return format(ctx.span_id, "016x"), format(parent.span_id, "016x") if parent else None


class OpenInferenceAutoGenAdapter(AutoGenAdapter):
    """AutoGen under OpenInference: the instrumentor's AGENT / LLM / TOOL / CHAIN spans, autogen-core's own spans."""
    library = LIBRARY
    convention = "openinference"
    content = True

    def __init__(self):  # noqa: D107 - no OTel OpenAI instrumentation, so none of its variables
        self.truth: Truth | None = None
        self.agent_runs: list[tuple[str | None, str | None]] = []  # (AGENT span, its parent), in start order
        self.tool_call_spans: dict[str, str | None] = {}  # call id -> TOOL span

    def setup(self, endpoint):
        from openinference.instrumentation.autogen_agentchat import AutogenAgentChatInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._hook_autogen()  # first, so that the instrumentor's wrappers enclose the hooks
        AutogenAgentChatInstrumentor().instrument(tracer_provider=self.provider)

    def _hook_autogen(self) -> None:
        from wrapt import wrap_function_wrapper

        module = "autogen_agentchat.agents._assistant_agent"
        wrap_function_wrapper(module, "AssistantAgent.on_messages_stream", self._on_messages_stream)
        wrap_function_wrapper(module, "AssistantAgent._execute_tool_call", self._execute_tool_call)
        wrap_function_wrapper("autogen_agentchat.teams._group_chat._base_group_chat", "BaseGroupChat.run_stream",
                              self._run_stream)

    def _on_messages_stream(self, wrapped, instance, args, kwargs):
        async def stream():
            self.agent_runs.append(_span_and_parent())  # the instrumentor's AGENT span is current by now
            async for item in wrapped(*args, **kwargs):
                yield item
        return stream()

    async def _execute_tool_call(self, wrapped, instance, args, kwargs):
        call = kwargs["tool_call"]
        span_id, _ = _span_and_parent()  # the instrumentor's TOOL span
        self.tool_call_spans[call.id] = span_id
        if call.name not in self.truth.offered_tools:
            # AutoGen answers it itself ("Error: tool ... not found in any workbench") inside this span.
            self.truth.record_tool(call.id, call.name, "unknown_tool", span_id=span_id)
        return await wrapped(*args, **kwargs)

    def _run_stream(self, wrapped, instance, args, kwargs):
        async def stream():
            self.truth.record_workflow(f"{type(instance).__name__}.run_stream")  # inside the instrumentor's CHAIN
            async for item in wrapped(*args, **kwargs):
                yield item
        return stream()

    def count_second_spans(self, truth: Truth) -> None:
        """The instrumentor's span recording a run that another span already names is of no node kind: the AGENT span
        inside each agent run's `invoke_agent` (checked: exactly one each), the TOOL span around each tool that ran."""
        parents = sorted(parent or "" for _, parent in self.agent_runs)
        if parents != sorted(agent["span_id"] or "" for agent in truth.agents):
            raise RuntimeError(f"instrumentor AGENT spans under {parents}, agent runs {truth.agents}")
        unknown = sum(1 for t in truth.tools if t["status"] == "unknown_tool")
        truth.kind_counts["other"] = truth.kind_counts.get("other", 0) + len(self.agent_runs) + \
            len(self.tool_call_spans) - unknown


def run_openinference_autogen(adapter: OpenInferenceAutoGenAdapter, scenario: str, base_url: str,
                              truth: Truth) -> None:
    adapter.truth = truth
    run_autogen(adapter, scenario, base_url, truth)
    adapter.count_second_spans(truth)


def main() -> int:
    return app_main(OpenInferenceAutoGenAdapter(), run_openinference_autogen, handoff_family="agents")


if __name__ == "__main__":
    sys.exit(main())
