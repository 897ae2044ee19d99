"""Every lossy-mapping category the mapper can lose is declared when (and only when) the trace lost it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from otel_mapper.mapping.declarations import SIBLING_WALK_BUDGET, count_unordered_sibling_pairs
from otel_mapper.mapping.graph import CausalIndex
from otel_mapper.model import Edge
from semconv.trajectory import EdgeType
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


def _brute_force_unordered(edges: list[tuple[int, int]], parents: dict[str, str], index: CausalIndex) -> int:
    """Sibling pairs with no ordering path between them that stays deeper than their parent, pair by pair."""
    groups: dict[str, list[str]] = {}
    for child, parent in parents.items():
        groups.setdefault(parent, []).append(child)
    unordered = 0
    for parent, group in groups.items():
        floor = index.depth.get(parent, 0)
        for position, first in enumerate(group):
            for second in group[position + 1 :]:
                if not (_path(index, first, second, floor) or _path(index, second, first, floor)):
                    unordered += 1
    return unordered


def _path(index: CausalIndex, start: str, target: str, floor: int) -> bool:
    """``target`` is earlier than ``start`` on a path whose earlier nodes are all deeper than ``floor``."""
    seen, stack = {start}, [start]
    while stack:
        for previous in index.earlier.get(stack.pop(), ()):
            if index.depth.get(previous, 0) <= floor:
                continue
            if previous == target:
                return True
            if previous not in seen:
                seen.add(previous)
                stack.append(previous)
    return False


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 14).flatmap(lambda size: st.tuples(
    st.just(size),
    st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=30),
    st.lists(st.integers(0, size - 1), min_size=size, max_size=size),
)))
def test_unordered_sibling_pairs_match_a_pair_by_pair_count(case: tuple[int, list[tuple[int, int]], list[int]]) -> None:
    """Random ordering DAGs (edges from a later node to an earlier one) and containment (each node's parent an
    earlier node): the count equals checking every pair, and nothing is capped at this size."""
    size, raw_edges, raw_parents = case
    names = [f"n{number}" for number in range(size)]
    dag = sorted({(a, b) if a > b else (b, a) for a, b in raw_edges if a != b})
    edges = tuple(Edge(from_node=names[a], type=EdgeType.CAUSED_BY, to_node=names[b], evidence="test") for a, b in dag)
    parents = {names[child]: names[parent % child] for child, parent in zip(range(1, size), raw_parents[1:], strict=True)}
    index = CausalIndex.build(names, edges)
    count, capped = count_unordered_sibling_pairs((), edges, parents, lambda: index)
    assert (count, capped) == (_brute_force_unordered(dag, parents, index), False)


def test_a_walk_past_its_budget_says_the_count_is_an_upper_bound() -> None:
    """Two siblings joined only through a longer chain than the walk may follow: counted unordered, and capped."""
    def counted(length: int) -> tuple[int, bool]:
        chain = [f"c{number}" for number in range(length)]
        pairs = [("a", "p"), (chain[0], "a"), *zip(chain[1:], chain[:-1], strict=True), ("b", chain[-1])]
        edges = tuple(Edge(from_node=later, type=EdgeType.CAUSED_BY, to_node=earlier, evidence="t") for later, earlier in pairs)
        index = CausalIndex.build(["p", "a", "b", *chain], edges)
        return count_unordered_sibling_pairs((), edges, {"a": "p", "b": "p"}, lambda: index)

    assert counted(10) == (0, False)
    assert counted(2 * SIBLING_WALK_BUDGET + 10) == (1, True)


def test_a_cycle_left_in_the_index_orders_nothing_and_ends() -> None:
    """The mapping removes ordering cycles; an index that still has one (two siblings each before the other)
    neither loops nor counts the pair as ordered."""
    pairs = [("c1", "s"), ("c2", "s"), ("c1", "c2"), ("c2", "c1")]
    edges = tuple(Edge(from_node=later, type=EdgeType.CAUSED_BY, to_node=earlier, evidence="t") for later, earlier in pairs)
    index = CausalIndex.build(["s", "c1", "c2"], edges)
    assert count_unordered_sibling_pairs((), edges, {"c1": "s", "c2": "s"}, lambda: index) == (1, False)
