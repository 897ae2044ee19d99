"""The Claude Agent SDK's in-process MCP server (corpus/NOTES-frameworks-ay.md): the ``mcp`` SDK's SERVER span
``tools/call <tool>`` hangs under the run beside the TOOL span ``mcp__<server>__<tool>`` that records the same call
(with its id); each call is one tool execution, not two."""

from __future__ import annotations

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import NodeKind
from tests.support.spans import get_node, map_spans, node_id, span

KIND = "openinference.span.kind"


def _tool(number: int, call: str, parent: int = 1, error: str | None = None) -> Span:
    return span(number, "mcp__support__get_weather", parent=parent, error=error, attrs={
        KIND: "TOOL", "tool.id": call, "tool.name": "mcp__support__get_weather", "input.value": '{"city": "Oslo"}',
        "input.mime_type": "application/json"})


def _server(number: int, request: int, error: str | None = None) -> Span:
    attrs: dict[str, object] = {"mcp.method.name": "tools/call", "jsonrpc.request.id": str(request),
                                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"}
    if error is not None:
        attrs["error.type"] = "tool_error"
    return span(number, "tools/call get_weather", parent=1, error=error, kind=Span.SPAN_KIND_SERVER, attrs=attrs)


def _executions(spans: list[Span]) -> list[str]:
    trajectory = map_spans(spans)
    return sorted(n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION)


def test_server_spans_of_calls_their_tool_spans_record_are_not_executions() -> None:
    run = span(1, "ClaudeAgentSDK.query", attrs={KIND: "AGENT"})
    spans = [run, _tool(2, "toolu_1"), _tool(3, "toolu_2", error="order not found"), _server(4, 2),
             _server(5, 3, error="order not found")]
    assert _executions(spans) == [node_id(2), node_id(3)]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(4)).kind is NodeKind.OTHER
    assert any(d.qualifier == "mcp_server_twin" and d.count == 2 for d in trajectory.declarations)


def test_a_subagents_tool_span_deeper_under_the_run_counts() -> None:
    run = span(1, "ClaudeAgentSDK.query", attrs={KIND: "AGENT"})
    task = span(2, "Agent", parent=1, attrs={KIND: "TOOL", "tool.id": "toolu_1", "tool.name": "Agent"})
    subagent = span(3, "ClaudeAgentSDK.Agent", parent=2, attrs={KIND: "AGENT", "agent.name": "Agent"})
    assert _executions([run, task, subagent, _tool(4, "toolu_2", parent=3), _server(5, 2)]) == [node_id(2), node_id(4)]


def test_server_spans_are_kept_when_the_tool_spans_do_not_account_for_them() -> None:
    run = span(1, "ClaudeAgentSDK.query", attrs={KIND: "AGENT"})
    # more server spans than tool spans: a run the tool spans do not record
    assert _executions([run, _tool(2, "toolu_1"), _server(3, 2), _server(4, 3)]) == [node_id(2), node_id(3), node_id(4)]
    # a failed server span with no failed tool span: its failure would be lost
    assert _executions([run, _tool(2, "toolu_1"), _server(3, 2, error="boom")]) == [node_id(2), node_id(3)]
