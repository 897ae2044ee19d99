"""Invariant 1 as properties: arrival order, batching and timestamps never change nodes, edges or declarations;
every edge carries evidence; siblings without evidence stay unordered whatever their times say."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from otel_mapper.mapping.build import map_trace
from otel_mapper.model import Trajectory
from tests.support.spans import envelopes, map_spans, node_id, ordered, span

OI = "openinference.span.kind"


def _mixed_trace() -> list:
    """A trace touching every edge rule: parents, a span link, tool-call ids, name+argument joins, content
    digests, previous_response.id, a handoff, LangGraph steps, a duplicate span id and an orphan."""
    user = {"role": "user", "parts": [{"type": "text", "content": "go"}]}
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"k": 1}}]}
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "v"}]}

    def meta(step: int, node: str) -> str:
        return json.dumps({"langgraph_step": step, "langgraph_node": node, "langgraph_checkpoint_ns": f"{node}:x"})

    return [
        span(1, "invoke_workflow w", attrs={"gen_ai.operation.name": "invoke_workflow"}),
        span(2, "invoke_agent a", parent=1, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
        span(3, "chat m", parent=2, attrs={"gen_ai.operation.name": "chat", "gen_ai.response.id": "r1", "gen_ai.input.messages": json.dumps([user]), "gen_ai.output.messages": json.dumps([call])}),
        span(4, "execute_tool lookup", parent=2, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "c1"}),
        span(5, "chat m", parent=2, attrs={"gen_ai.operation.name": "chat", "gen_ai.response.id": "r2", "gen_ai.request.previous_response.id": "r1", "gen_ai.input.messages": json.dumps([user, call, result]), "gen_ai.output.messages": "[]"}),
        span(6, "execute_tool a", parent=2, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a"}),
        span(7, "execute_tool b", parent=2, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b"}),
        span(8, "handoff to b", parent=2, attrs={OI: "TOOL", "input.value": "a", "output.value": "bee"}),
        span(9, "bee", parent=1, attrs={OI: "AGENT"}, links=[(3, {})]),
        span(10, "agent", parent=9, attrs={OI: "CHAIN", "metadata": meta(1, "agent")}),
        span(11, "tools", parent=9, attrs={OI: "CHAIN", "metadata": meta(2, "tools")}),
        span(12, "tools", parent=9, attrs={OI: "CHAIN", "metadata": meta(2, "tools")}),
        span(13, "ChatCompletion", parent=9, attrs={OI: "LLM", "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "probe",
             "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"x": 1}'}),
        span(14, "probe", parent=9, attrs={OI: "TOOL", "tool.name": "probe", "input.value": '{"kwargs": {"x": 1}}'}),
        span(15, "dup a", parent=1),
        span(15, "dup b", parent=1),
        span(16, "orphan", parent=999),
    ]


def _signature(trajectory: Trajectory) -> tuple:
    nodes = tuple(dataclasses.replace(n, start_unix_nano=0, end_unix_nano=0) for n in trajectory.nodes)
    return nodes, trajectory.edges, trajectory.declarations, trajectory.external_parents, trajectory.root_node_ids


BASELINE = _signature(map_spans(_mixed_trace()))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.permutations(range(len(_mixed_trace()))))
def test_arrival_order_does_not_matter(order: list[int]) -> None:
    spans = _mixed_trace()
    assert _signature(map_spans([spans[i] for i in order])) == BASELINE


@SETTINGS
@given(st.permutations(range(len(_mixed_trace()))), st.lists(st.integers(0, 4), min_size=len(_mixed_trace()), max_size=len(_mixed_trace())))
def test_splitting_across_batches_then_mapping_the_union(order: list[int], batch_of: list[int]) -> None:
    spans = _mixed_trace()
    union = []
    for batch in range(5):
        members = [spans[i] for i in order if batch_of[i] == batch]
        if members:
            union.extend(envelopes(members, service=f"svc{batch % 2}"))  # every batch its own resource object
    services_differ = _signature(map_trace(union).trajectory)
    assert services_differ == BASELINE


@SETTINGS
@given(st.lists(st.tuples(st.integers(1, 2**62), st.integers(1, 2**62)), min_size=len(_mixed_trace()), max_size=len(_mixed_trace())))
def test_timestamps_never_change_the_graph(times: list[tuple[int, int]]) -> None:
    spans = _mixed_trace()
    for item, (start, end) in zip(spans, times, strict=True):
        item.start_time_unix_nano = start
        item.end_time_unix_nano = end
    assert _signature(map_spans(spans)) == BASELINE


def test_every_edge_has_evidence_and_known_endpoints() -> None:
    trajectory = map_spans(_mixed_trace())
    ids = {n.id for n in trajectory.nodes}
    for edge in trajectory.edges:
        assert edge.evidence, edge
        assert edge.from_node in ids and edge.to_node in ids, edge
        assert "timestamp" not in edge.evidence and "unix_nano" not in edge.evidence
    # The fixture really exercises every rule, so the properties above are not vacuous.
    assert {e.type.value for e in trajectory.edges} == {"caused_by", "depends_on", "handoff_from", "linked", "sequenced_after"}
    assert {d.category.value for d in trajectory.declarations} >= {"duplicate_span_id", "parent", "sibling_order"}


@SETTINGS
@given(st.integers(1, 2**40), st.integers(1, 2**40), st.integers(0, 10**9))
def test_sibling_tools_without_evidence_stay_unordered(start_a: int, start_b: int, gap: int) -> None:
    spans = [
        span(1, "invoke_agent x", attrs={"gen_ai.operation.name": "invoke_agent"}),
        span(2, "execute_tool a", parent=1, attrs={"gen_ai.operation.name": "execute_tool"}, start=start_a, end=start_a + gap),
        span(3, "execute_tool b", parent=1, attrs={"gen_ai.operation.name": "execute_tool"}, start=start_b, end=start_b + gap),
    ]
    trajectory = map_spans(spans)
    assert ordered(trajectory, node_id(2), node_id(3)) is False
    sibling = [d for d in trajectory.declarations if d.category.value == "sibling_order"]
    assert sibling and sibling[0].count == 1
