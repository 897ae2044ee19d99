"""Where the report puts nodes: rows by causal depth from edges only, concurrency side by side, loops folded."""

from __future__ import annotations

import random

from otel_mapper.report.layout import MAX_ROW_BOXES, RepeatBand, Row, layout
from tests.report.support import bundle_of, loop_trace
from tests.support.spans import span


def _node(node_id: str, kind: str = "tool_execution", name: str = "t") -> dict[str, object]:
    return {"node_id": node_id, "kind": kind, "name": name, "status": "committed", "tool": {"name": name, "call_id": None}}


def _edge(later: str, earlier: str, kind: str = "depends_on", orders: bool = True) -> dict[str, object]:
    return {"from": later, "type": kind, "to": earlier, "evidence": "test", "orders": orders}


def _placed(plan_rows: tuple[Row | RepeatBand, ...]) -> list[str]:
    placed: list[str] = []
    for row in plan_rows:
        if isinstance(row, RepeatBand):
            placed += row.node_ids
        else:
            placed += [node for group in row.groups for node in group.node_ids]
    return placed


def test_rows_come_from_edges_and_ignore_timestamps() -> None:
    spans = loop_trace(5)
    reference = bundle_of(spans)
    rng = random.Random(7)
    for item in spans:  # every timestamp moved, some siblings now "start" before their cause
        item.start_time_unix_nano = rng.randint(1, 10**18)
        item.end_time_unix_nano = item.start_time_unix_nano + rng.randint(0, 10**9)
    shuffled = bundle_of(list(reversed(spans)))

    first = layout(reference["nodes"], reference["edges"])  # type: ignore[arg-type]
    second = layout(shuffled["nodes"], shuffled["edges"])  # type: ignore[arg-type]

    assert first == second
    assert {edge["to"] for edge in reference["edges"]} and all(  # type: ignore[union-attr]
        first.depth[edge["from"]] > first.depth[edge["to"]]  # type: ignore[index]
        for edge in reference["edges"] if edge["orders"]  # type: ignore[union-attr, index]
    )


def test_siblings_without_evidence_share_a_row() -> None:
    spans = [span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})]
    spans += [span(n, f"execute_tool t{n}", parent=1, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"t{n}"})
              for n in range(2, 5)]
    bundle = bundle_of(spans)

    plan = layout(bundle["nodes"], bundle["edges"])  # type: ignore[arg-type]

    rows = [row for row in plan.rows if isinstance(row, Row)]
    assert [sorted(node for group in row.groups for node in group.node_ids) for row in rows] == [
        ["span:0000000000000001"], ["span:0000000000000002", "span:0000000000000003", "span:0000000000000004"]]


def test_a_repeated_loop_is_drawn_once_and_folded_with_every_node_kept() -> None:
    bundle = bundle_of(loop_trace(12))
    nodes = bundle["nodes"]

    plan = layout(nodes, bundle["edges"])  # type: ignore[arg-type]

    bands = [row for row in plan.rows if isinstance(row, RepeatBand)]
    assert len(bands) == 1 and bands[0].period == 3 and bands[0].times == 11  # 12 turns: one drawn, 11 folded
    placed = _placed(plan.rows)
    assert sorted(placed) == sorted(node["node_id"] for node in nodes)  # type: ignore[index, union-attr]
    assert len(plan.rows) < 10


def test_a_10000_deep_chain_is_laid_out_without_recursion() -> None:
    count = 10_000
    nodes = [_node(f"n{index:05d}", name=f"step{index % 3}x{index}") for index in range(count)]
    edges = [_edge(f"n{index:05d}", f"n{index - 1:05d}", "caused_by") for index in range(1, count)]

    plan = layout(nodes, edges)

    assert max(plan.depth.values()) == count - 1
    assert plan.critical_path == tuple(f"n{index:05d}" for index in range(count))
    assert sorted(_placed(plan.rows)) == sorted(node["node_id"] for node in nodes)  # type: ignore[misc]


def test_an_ordering_cycle_is_placed_and_named() -> None:
    nodes = [_node("a"), _node("b"), _node("c")]
    edges = [_edge("b", "a"), _edge("a", "b"), _edge("c", "a", "linked", orders=False)]

    plan = layout(nodes, edges)

    assert plan.in_cycle == {"a", "b"}
    assert set(plan.depth) == {"a", "b", "c"} and plan.depth["c"] == 0


def test_a_wide_row_groups_same_kind_and_label() -> None:
    nodes = [_node("root", "agent_invocation", "boss")]
    nodes += [_node(f"w{index:03d}", name="fetch") for index in range(100)] + [_node("x", name="other")]
    edges = [_edge(node["node_id"], "root", "caused_by") for node in nodes[1:]]  # type: ignore[misc]

    plan = layout(nodes, edges)

    wide = plan.rows[1]
    assert isinstance(wide, Row) and len(wide.groups) <= MAX_ROW_BOXES
    assert sorted((group.label, len(group.node_ids)) for group in wide.groups) == [("fetch", 100), ("other", 1)]
