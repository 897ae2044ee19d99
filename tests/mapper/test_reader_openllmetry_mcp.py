"""OpenLLMetry's MCP instrumentation: the ``<tool>.tool`` span of a ``tools/call`` records its request as
``{"tool_name", "arguments"}``; the arguments inside join the execution to the model's proposal."""

from __future__ import annotations

import json

from otel_mapper.mapping.readers.openllmetry_mcp import mcp_call_arguments
from semconv.trajectory import EdgeType
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

WF = {"traceloop.workflow.name": "support_workflow"}
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather?"}]}
CALL = {
    "role": "assistant",
    "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
}
RESULT = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "Sunny"}]}
ANSWER = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}]}


def _chat(number: int, inputs: list, outputs: list) -> object:
    attrs = {
        **WF,
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(outputs),
    }
    return span(number, "openai.chat", parent=2, attrs=attrs)


def _loop(record: dict) -> list:
    """An agent whose one tool call went through an MCP client under the instrumentation (no call id on its span)."""
    return [
        span(
            1,
            "support_workflow.workflow",
            attrs={**WF, "traceloop.span.kind": "workflow", "traceloop.entity.name": "support_workflow"},
        ),
        span(
            2,
            "support_agent.agent",
            parent=1,
            attrs={**WF, "traceloop.span.kind": "agent", "traceloop.entity.name": "support_agent"},
        ),
        _chat(3, [USER], [CALL]),
        span(
            4,
            "get_weather.tool",
            parent=2,
            attrs={
                **WF,
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "get_weather",
                "traceloop.entity.input": json.dumps(record),
                "traceloop.entity.output": json.dumps({"result": "Paris: Sunny"}),
            },
        ),
        _chat(5, [USER, CALL, RESULT], [ANSWER]),
    ]


def test_mcp_call_record_arguments_join_the_proposal() -> None:
    trajectory = map_spans(_loop({"tool_name": "get_weather", "arguments": {"city": "Paris"}}))
    tool = get_node(trajectory, node_id(4))
    assert tool.arguments == '{"city":"Paris"}'
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))


def test_a_record_naming_another_tool_is_left_as_recorded() -> None:
    trajectory = map_spans(_loop({"tool_name": "get_forecast", "arguments": {"city": "Paris"}}))
    assert not has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_record_shapes() -> None:
    assert mcp_call_arguments({"tool_name": "t", "arguments": None}, "t") == {}
    assert mcp_call_arguments({"tool_name": "t", "arguments": {"a": 1}}, "t") == {"a": 1}
    other = {"tool_name": "t", "arguments": {"a": 1}, "extra": 2}
    assert mcp_call_arguments(other, "t") is other
    assert mcp_call_arguments({"tool_name": "t", "arguments": "text"}, "t") == {"tool_name": "t", "arguments": "text"}
    assert mcp_call_arguments({"tool_name": "t", "arguments": {}}, None) == {"tool_name": "t", "arguments": {}}
