"""OpenLIT names a response's tool calls on the model call's span (``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
joined with ``", "``) whether content is captured or not: with the messages absent, they are the proposals."""

from __future__ import annotations

from typing import Any

from semconv.trajectory import NodeKind
from tests.support.spans import map_spans, node_id, span

CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.finish_reasons": ["tool_calls"]}


def _proposals(**model: Any) -> list[tuple[str | None, str | None, str | None]]:
    trajectory = map_spans([span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
                            span(2, "chat gpt-4o-mini", parent=1, attrs={**CHAT, **model})])
    return [(n.tool_name, n.tool_call_id, n.arguments) for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]


def test_the_summary_names_each_call_when_the_messages_are_absent() -> None:
    found = _proposals(**{"gen_ai.tool.name": "lookup_order, get_weather", "gen_ai.tool.call.id": "call_1, call_2",
                          "gen_ai.tool.args": '{"order_id": "A-1"}, {"city": "Paris"}'})
    assert found == [("lookup_order", "call_1", None), ("get_weather", "call_2", None)]


def test_the_messages_win_and_a_summary_that_does_not_line_up_gives_nothing() -> None:
    output = '[{"role": "assistant", "parts": [{"type": "tool_call", "id": "call_9", "name": "search_docs", "arguments": {"q": "x"}}]}]'
    assert _proposals(**{"gen_ai.output.messages": output, "gen_ai.tool.name": "search_docs",
                         "gen_ai.tool.call.id": "call_9"}) == [("search_docs", "call_9", '{"q":"x"}')]
    assert _proposals(**{"gen_ai.tool.name": "a, b", "gen_ai.tool.call.id": "call_1"}) == []
    assert _proposals(**{"gen_ai.tool.name": "", "gen_ai.tool.call.id": ""}) == []


def test_the_calls_join_their_runs_by_id() -> None:
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
        span(2, "chat gpt-4o-mini", parent=1, attrs={**CHAT, "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "call_1"}),
        span(3, "execute_tool lookup_order", parent=1, attrs={"gen_ai.operation.name": "execute_tool",
                                                             "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "call_1"}),
    ])
    (proposal,) = [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert (node_id(3), proposal.id) in {(edge.from_node, edge.to_node) for edge in trajectory.edges}
