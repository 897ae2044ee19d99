"""Haystack's own tracing, shaped as ``haystack-ai`` 3.4.1 writes it through the OpenTelemetry tracer of
``opentelemetry-haystack`` 2.0.0 (``corpus/NOTES-frameworks-ad.md``): spans named after Haystack's operations, tags as
attributes, content as JSON text of ``ChatMessage`` trace dicts, or the Python repr of a value that does not serialize
(a model call's input when a tool wraps a local function); one span per tool call, with no call id."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

SCOPE = "haystack"
LLM = "haystack.agent.step.llm"
TOOL = "haystack.agent.step.tool"


def _reply(*content: dict[str, object], usage: tuple[int, int] = (100, 20)) -> str:
    meta = {"model": "gpt-4o-mini-2024-07-18", "finish_reason": "tool_calls",
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                      "prompt_tokens_details": {"cached_tokens": 0}}}
    return json.dumps({"replies": [{"role": "assistant", "meta": meta, "name": None, "content": list(content)}]})


def _call(call_id: str, tool: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"tool_call": {"tool_name": tool, "arguments": arguments, "id": call_id, "extra": None}}


def _tool(number: int, parent: int, tool: str, arguments: dict[str, object], output: object,
          error: bool = False) -> Span:
    attrs: dict[str, object] = {"haystack.tool.name": tool, "haystack.tool.description": "a tool",
                                "haystack.agent.step.tool.input": json.dumps(arguments),
                                "haystack.agent.step.tool.output": output if isinstance(output, str)
                                else json.dumps(output)}
    if error:
        attrs["haystack.tool.error"] = True
    return span(number, TOOL, parent=parent, attrs=attrs)


def _repr_input(*messages: str, tools: tuple[str, ...] = ("get_weather",)) -> str:
    offered = ", ".join(f"Tool(name='{name}', description='d', parameters={{}}, function=<function {name} at 0x1>)"
                        for name in tools)
    return "{'messages': [" + ", ".join(messages) + "], 'tools': [" + offered + "]}"


USER = "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text='Weather in Paris?')], _name=None, _meta={})"
ASKED = ("ChatMessage(_role=<ChatRole.ASSISTANT: 'assistant'>, _content=[ToolCall(tool_name='{tool}', "
         "arguments={{'city': 'Paris'}}, id='c1', extra=None)], _name=None, _meta={{}})")
RESULT = ("ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result={text!r}, origin=ToolCall("
          "tool_name='{tool}', arguments={{'city': 'Paris'}}, id='c1', extra=None), error={error})], _name=None, "
          "_meta={{}})")


def test_haystack_operations_are_read_as_their_kinds() -> None:
    trajectory = map_spans([
        span(1, "haystack.pipeline.run", attrs={"haystack.pipeline.execution_mode": "sync"}),
        span(2, "haystack.component.run", parent=1, attrs={"haystack.component.name": "agent",
                                                           "haystack.component.type": "Agent"}),
        span(3, "haystack.agent.run", parent=2, attrs={"haystack.agent.max_steps": 100}),
        span(4, "haystack.agent.hook", parent=3, attrs={"haystack.agent.hook.point": "before_run"}),
        span(5, "haystack.agent.step", parent=3, attrs={"haystack.agent.step": 0}),
        span(6, LLM, parent=5),
        span(7, TOOL, parent=5, attrs={"haystack.tool.name": "get_weather"}),
    ], scope=SCOPE)

    assert kinds(trajectory) == {"workflow_step": 3, "agent_invocation": 1, "other": 1, "model_call": 1,
                                 "tool_execution": 1}
    assert get_node(trajectory, node_id(7)).tool_name == "get_weather"


def test_a_reply_proposes_its_tool_calls_and_the_tool_span_joins_by_arguments() -> None:
    trajectory = map_spans([
        span(1, "haystack.agent.run"),
        span(2, LLM, parent=1, attrs={"haystack.agent.step.llm.output":
                                      _reply(_call("c1", "get_weather", {"city": "Paris"}), usage=(111, 29))}),
        _tool(3, 1, "get_weather", {"city": "Paris"}, "Paris: sunny"),
    ], scope=SCOPE)

    model = get_node(trajectory, node_id(2))
    assert model.model == "gpt-4o-mini-2024-07-18"
    assert model.usage is not None and (model.usage.input_tokens, model.usage.output_tokens) == (111, 29)
    assert get_node(trajectory, node_id(2, "call:c1")).kind is NodeKind.TOOL_PROPOSAL
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:c1"))


def test_a_tool_call_haystack_flags_as_failed_is_a_failed_execution() -> None:
    trajectory = map_spans([
        span(1, "haystack.agent.run"),
        _tool(2, 1, "lookup_order", {"order_id": "A-10O1"},
              {"error": "Failed to invoke Tool `lookup_order` with parameters {'order_id': 'A-10O1'}. Error: not found"},
              error=True),
    ], scope=SCOPE)

    node = get_node(trajectory, node_id(2))
    assert node.status is NodeStatus.FAILED
    assert node.error_message is not None and "not found" in node.error_message


def test_a_repr_input_gives_the_results_it_consumed_and_the_offered_tools() -> None:
    trajectory = map_spans([
        span(1, "haystack.agent.run"),
        span(2, LLM, parent=1, attrs={"haystack.agent.step.llm.input": _repr_input(USER),
                                      "haystack.agent.step.llm.output":
                                      _reply(_call("c1", "get_weather", {"city": "Paris"}))}),
        _tool(3, 1, "get_weather", {"city": "Paris"}, "Paris: sunny"),
        span(4, LLM, parent=1, attrs={"haystack.agent.step.llm.input": _repr_input(
            USER, ASKED.format(tool="get_weather"), RESULT.format(text="Paris: sunny", tool="get_weather",
                                                                  error=False))}),
    ], scope=SCOPE)

    assert get_node(trajectory, node_id(2)).tool_definitions == ("get_weather",)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_repr_result_rejecting_an_unknown_tool_names_it() -> None:
    trajectory = map_spans([
        span(1, "haystack.agent.run"),
        span(2, LLM, parent=1, attrs={"haystack.agent.step.llm.input": _repr_input(USER, tools=("lookup_order",)),
                                      "haystack.agent.step.llm.output":
                                      _reply(_call("c1", "fetch_invoice", {"city": "Paris"}))}),
        span(3, LLM, parent=1, attrs={"haystack.agent.step.llm.input": _repr_input(
            USER, ASKED.format(tool="fetch_invoice"),
            RESULT.format(text="Tool 'fetch_invoice' not found. Available tools: lookup_order", tool="fetch_invoice",
                          error=True), tools=("lookup_order",))}),
    ], scope=SCOPE)

    assert get_node(trajectory, node_id(3)).unknown_tools == ("fetch_invoice",)


def test_a_json_input_gives_consumed_results_and_flagged_failures() -> None:
    messages = [
        {"role": "user", "meta": {}, "name": None, "content": [{"text": "Order A-10O1?"}]},
        {"role": "assistant", "meta": {}, "name": None, "content": [_call("c1", "lookup_order", {"order_id": "A-10O1"})]},
        {"role": "tool", "meta": {}, "name": None, "content": [{"tool_call_result": {
            "result": "Failed to invoke Tool `lookup_order` with parameters {'order_id': 'A-10O1'}. Error: not found",
            "origin": _call("c1", "lookup_order", {"order_id": "A-10O1"})["tool_call"], "error": True}}]},
    ]
    tools = [{"type": "haystack.tools.tool.Tool", "data": {"name": "lookup_order", "description": "d"}}]
    trajectory = map_spans([
        span(1, "haystack.agent.run"),
        span(2, LLM, parent=1, attrs={"haystack.agent.step.llm.output":
                                      _reply(_call("c1", "lookup_order", {"order_id": "A-10O1"}))}),
        span(3, LLM, parent=1, attrs={"haystack.agent.step.llm.input": json.dumps({"messages": messages,
                                                                                   "tools": tools})}),
    ], scope=SCOPE)

    assert get_node(trajectory, node_id(3)).tool_definitions == ("lookup_order",)
    proposal = get_node(trajectory, node_id(2, "call:c1"))
    assert proposal.result_status is NodeStatus.FAILED
