"""One tool call recorded by a framework's tool span and by two client layers and the server of a tool protocol: a
CLIENT tool span whose only child is a CLIENT tool span of the same tool is one request, and a span whose only child
was merged by id into the span directly inside that child pairs with that span (the chain is one node)."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
_SERVER = Span.SPAN_KIND_SERVER


def _agent_and_model() -> list[Span]:
    parts = [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Rome"}}]
    return [
        span(1, "invoke_agent support_agent",
             attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"}),
        span(2, "chat gpt-4o-mini", parent=1, kind=_CLIENT, attrs={
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
        }),
    ]


def _framework_tool(number: int, parent: int) -> Span:
    return span(number, "execute_tool get_weather", parent=parent, attrs={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.arguments": json.dumps({"city": "Rome"}),
    })


def _outer_client(number: int, parent: int) -> Span:
    return span(number, "tools/call get_weather", parent=parent, kind=_CLIENT, attrs={
        "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
    })


def _session_client(number: int, parent: int) -> Span:
    return span(number, "MCP send tools/call get_weather", parent=parent, kind=_CLIENT,
                attrs={"mcp.method.name": "tools/call", "jsonrpc.request.id": "3"})


def _server(number: int, parent: int, **extra: str) -> Span:
    return span(number, "tools/call get_weather", parent=parent, kind=_SERVER, attrs={
        "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
        **extra,
    })


def test_a_tool_call_through_two_client_layers_to_its_server_is_one_node_kept_on_the_server_span() -> None:
    trajectory = map_spans([
        *_agent_and_model(), _framework_tool(3, 1), _outer_client(4, 3), _session_client(5, 4),
        _server(6, 5, **{"jsonrpc.request.id": "3"}),
    ])
    assert kinds(trajectory)["tool_execution"] == 1
    assert all(trajectory.node(node_id(number)) is None for number in (3, 4, 5))
    kept = get_node(trajectory, node_id(6))
    assert kept.tool_call_id == "call_1"
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))


def test_client_layers_of_another_tool_or_a_server_span_inside_a_client_span_stay_apart() -> None:
    other_tool = span(5, "MCP send tools/call get_time", parent=4, kind=_CLIENT,
                      attrs={"mcp.method.name": "tools/call", "jsonrpc.request.id": "3"})
    other_server = span(6, "tools/call get_time", parent=5, kind=_SERVER, attrs={
        "mcp.method.name": "tools/call", "jsonrpc.request.id": "3", "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_time",
    })
    renamed = map_spans([*_agent_and_model(), _outer_client(4, 1), other_tool, other_server])
    assert kinds(renamed)["tool_execution"] == 2
    no_request_id = map_spans([*_agent_and_model(), _outer_client(4, 1), _server(5, 4)])
    assert kinds(no_request_id)["tool_execution"] == 2
