"""Every lossy-mapping category the mapper can lose is declared when (and only when) the trace lost it."""

from __future__ import annotations

from tests.support.spans import categories, map_spans, node_id, span

ALWAYS = {"state_view", "objective_outcome", "reward"}


def _content_off_trace() -> list:
    """GenAI, content capture off: chat spans carry usage only; two tool spans under one agent."""
    return [
        span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 3}),
        span(2, "chat m", parent=1, attrs={"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 10, "gen_ai.response.finish_reasons": ["tool_calls"]}),
        span(3, "execute_tool a", parent=1, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a", "gen_ai.tool.call.id": "c1"}),
        span(4, "execute_tool b", parent=1, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b", "gen_ai.tool.call.id": "c2"}),
        span(5, "remote", parent=77),
    ]


def test_content_off_trace_declares_what_it_lost() -> None:
    trajectory = map_spans(_content_off_trace())
    found = categories(trajectory)
    assert found >= ALWAYS | {"effect_receipt", "tool_proposal", "sibling_order", "parent", "content", "usage_aggregation"}
    receipt = next(d for d in trajectory.declarations if d.category.value == "effect_receipt")
    assert set(receipt.nodes) == {node_id(3), node_id(4)} and receipt.qualifier == "no_authoritative_receipt"
    proposal = next(d for d in trajectory.declarations if d.category.value == "tool_proposal")
    assert proposal.nodes == (node_id(2),)
    assert trajectory.completeness.status.value == "partial"


def test_clean_trace_declares_only_what_spans_never_carry() -> None:
    trajectory = map_spans([span(1, "invoke_workflow w", attrs={"gen_ai.operation.name": "invoke_workflow"})])
    assert categories(trajectory) == ALWAYS
    assert trajectory.completeness.status.value == "complete"


def test_declarations_are_bounded_and_sorted() -> None:
    spans = [span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent"})]
    spans += [span(n, "execute_tool t", parent=1, attrs={"gen_ai.operation.name": "execute_tool"}) for n in range(2, 202)]
    trajectory = map_spans(spans)
    for declaration in trajectory.declarations:
        assert len(declaration.nodes) <= 32
    keys = [(d.category.value, d.qualifier, d.reason) for d in trajectory.declarations]
    assert keys == sorted(keys)
    sibling = next(d for d in trajectory.declarations if d.category.value == "sibling_order")
    assert sibling.count == 200 * 199 // 2
