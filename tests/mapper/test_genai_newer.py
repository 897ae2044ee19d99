"""Newer GenAI conventions: invoke_workflow, plan, memory operations and create_agent as kinds; span links typed by
the proposed ``gen_ai.attribution.link_type`` (semantic-conventions-genai PR #370) read as evidence."""

from __future__ import annotations

import json

import pytest

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, has_edge, map_spans, node_id, span

OP = "gen_ai.operation.name"
LINK = "gen_ai.attribution.link_type"


@pytest.mark.parametrize(
    ("operation", "kind"),
    [
        ("invoke_workflow", NodeKind.WORKFLOW_STEP),
        ("plan", NodeKind.WORKFLOW_STEP),
        ("create_agent", NodeKind.OTHER),
        ("search_memory", NodeKind.RETRIEVAL),
        ("create_memory", NodeKind.WORKFLOW_STEP),
        ("update_memory", NodeKind.WORKFLOW_STEP),
        ("upsert_memory", NodeKind.WORKFLOW_STEP),
        ("delete_memory", NodeKind.WORKFLOW_STEP),
        ("create_memory_store", NodeKind.WORKFLOW_STEP),
        ("delete_memory_store", NodeKind.WORKFLOW_STEP),
    ],
)
def test_operation_kinds(operation: str, kind: NodeKind) -> None:
    trajectory = map_spans([span(1, operation, attrs={OP: operation, "gen_ai.provider.name": "x"})])
    assert get_node(trajectory, node_id(1)).kind is kind


def _chat(number: int, calls: list[tuple[str, str]]) -> object:
    output = [{"role": "assistant", "parts": [{"type": "tool_call", "name": name, "arguments": args} for name, args in calls]}]
    return span(number, "chat m", parent=1, attrs={OP: "chat", "gen_ai.output.messages": json.dumps(output)})


def test_caused_by_generation_link_picks_the_proposing_call_among_identical_ones() -> None:
    """Two turns propose the same call with no ids: only the typed link says which turn ran which execution."""
    args = '{"q": 1}'
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent", "gen_ai.agent.name": "a"}),
        _chat(2, [("search", args)]),
        _chat(3, [("search", args)]),
        span(4, "execute_tool search", parent=1, attrs={OP: "execute_tool", "gen_ai.tool.name": "search", "gen_ai.tool.call.arguments": args},
             links=[(3, {LINK: "CAUSED_BY_GENERATION"})]),
        span(5, "execute_tool search", parent=1, attrs={OP: "execute_tool", "gen_ai.tool.name": "search", "gen_ai.tool.call.arguments": args},
             links=[(2, {LINK: "CAUSED_BY_GENERATION"})]),
    ])
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call#0"))
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(2, "call#0"))
    link = [e for e in edges_from(trajectory, node_id(4)) if e.to_node == node_id(3)]
    assert link and link[0].type is EdgeType.CAUSED_BY and "CAUSED_BY_GENERATION" in link[0].evidence


def test_retry_of_and_informed_by_links_become_typed_edges() -> None:
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent"}),
        span(2, "chat m", parent=1, attrs={OP: "chat"}, error="429"),
        span(3, "chat m", parent=1, attrs={OP: "chat"}, links=[(2, {LINK: "RETRY_OF"})]),
        span(4, "execute_tool t", parent=1, attrs={OP: "execute_tool", "gen_ai.tool.name": "t"}),
        span(5, "chat m", parent=1, attrs={OP: "chat"}, links=[(4, {LINK: "INFORMED_BY"})]),
    ])
    assert has_edge(trajectory, node_id(3), EdgeType.RETRIES, node_id(2))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))


def test_unknown_attribution_value_stays_an_untyped_link() -> None:
    trajectory = map_spans([
        span(1, "chat m", attrs={OP: "chat"}),
        span(2, "chat m", attrs={OP: "chat"}, links=[(1, {LINK: "SOMETHING_ELSE"})]),
    ])
    assert has_edge(trajectory, node_id(2), EdgeType.LINKED, node_id(1))


def test_mcp_client_and_server_spans_of_one_tool_call_are_one_execution() -> None:
    mcp = {OP: "execute_tool", "gen_ai.tool.name": "get_weather", "mcp.method.name": "tools/call", "jsonrpc.request.id": "7",
           "mcp.session.id": "s1"}
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent"}),
        span(2, "tools/call get_weather", parent=1, attrs=mcp, kind=3),  # CLIENT
        span(3, "tools/call get_weather", parent=2, attrs=mcp, kind=2),  # SERVER, across the process boundary
        span(4, "tools/call get_weather", parent=1, attrs=mcp | {"jsonrpc.request.id": "8"}, kind=3),
    ])
    executions = [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION]
    assert [n.id for n in executions] == [node_id(3), node_id(4)]
    assert get_node(trajectory, node_id(3)).references[0].span_id.endswith("02")


def test_mcp_sdk_client_span_without_genai_attributes_merges_with_its_server_span() -> None:
    """mcp 2.x: CLIENT ``MCP send tools/call <tool>`` carries only the method and the request id."""
    server = {OP: "execute_tool", "gen_ai.tool.name": "delete_file", "mcp.method.name": "tools/call", "jsonrpc.request.id": "4"}
    call = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "delete_file", "arguments": {"path": "/tmp/a"}}]}]
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent", "gen_ai.agent.name": "a"}),
        span(2, "chat m", parent=1, attrs={OP: "chat", "gen_ai.output.messages": json.dumps(call)}),
        span(3, "MCP send tools/call delete_file", parent=1, attrs={"mcp.method.name": "tools/call", "jsonrpc.request.id": "4"}, kind=3),
        span(4, "tools/call delete_file", parent=3, attrs=server, kind=2),
        span(5, "MCP send tools/list", attrs={"mcp.method.name": "tools/list", "jsonrpc.request.id": "2"}, kind=3),
    ])
    assert [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION] == [node_id(4)]
    assert get_node(trajectory, node_id(5)).kind is NodeKind.OTHER
    # hung where the client span was, the execution is the one delete_file proposal's beside it
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(1))
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(2, "call:c1"))


def test_rejection_in_a_tool_result_the_model_received_names_the_tool() -> None:
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "fetch_invoice", "arguments": {}}]}
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "ERROR: Unknown tool: fetch_invoice"}]}
    trajectory = map_spans([
        span(1, "chat m", attrs={OP: "chat", "gen_ai.input.messages": json.dumps([call, result])}),
    ])
    assert get_node(trajectory, node_id(1)).unknown_tools == ("fetch_invoice",)
