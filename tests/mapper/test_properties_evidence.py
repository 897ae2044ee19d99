"""Invariant 1 for the evidence read from events, tool outputs, conversation prefixes, per-turn parents, typed
links and runtime rejections: arrival order, batching and timestamps never change nodes, edges or declarations,
and every such edge names its evidence."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from otel_mapper.mapping.build import map_trace
from otel_mapper.model import Trajectory
from tests.support.spans import envelopes, map_spans, span

OP = "gen_ai.operation.name"
OI = "openinference.span.kind"


def _trace() -> list:
    user = {"role": "user", "parts": [{"type": "text", "content": "go"}]}
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "p1", "name": "lookup", "arguments": {"k": 1}}]}
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "p1", "response": "v"}]}
    strands_call = [{"toolUse": {"toolUseId": "s1", "name": "get", "input": {"x": 1}}}]

    def event(name: str, **values: object) -> tuple[str, dict[str, object]]:
        return name, {key: json.dumps(value) for key, value in values.items()}

    def oi_llm(number: int, parent: int, name: str, args: str) -> object:
        prefix = "llm.output_messages.0.message.tool_calls.0.tool_call."
        return span(number, "generation", parent=parent, attrs={OI: "LLM", "llm.output_messages.0.message.role": "assistant",
                                                                 prefix + "function.name": name, prefix + "function.arguments": args})

    return [
        span(1, "invoke_agent a", attrs={OP: "invoke_agent", "gen_ai.agent.name": "a"}),
        # conversation prefix: chat 2 records no output, chat 4's input replays its call
        span(2, "openai.response", parent=1, attrs={OP: "chat", "gen_ai.input.messages": json.dumps([user])}),
        span(3, "lookup.tool", parent=1, attrs={OP: "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.arguments": '{"k": 1}'}),
        span(4, "openai.response", parent=1, attrs={OP: "chat", "gen_ai.input.messages": json.dumps([user, call, result])}),
        # span events (Strands)
        span(5, "chat", parent=1, attrs={OP: "chat"}, events=[event("gen_ai.choice", message=strands_call)]),
        span(6, "execute_tool get", parent=1, attrs={OP: "execute_tool", "gen_ai.tool.name": "get"},
             events=[("gen_ai.tool.message", {"content": '{"x": 1}', "id": "s1"})]),
        # per-turn parents: identical calls told apart by their turn span
        span(7, "turn", parent=1, attrs={OI: "CHAIN"}),
        oi_llm(8, 7, "w", '{"c": "Oslo"}'),
        span(9, "w", parent=7, attrs={OI: "TOOL", "tool.name": "w", "input.value": '{"c": "Oslo"}', "input.mime_type": "application/json"}),
        span(10, "turn", parent=1, attrs={OI: "CHAIN"}),
        oi_llm(11, 10, "w", '{"c": "Oslo"}'),
        span(12, "w", parent=10, attrs={OI: "TOOL", "tool.name": "w", "input.value": '{"c": "Oslo"}', "input.mime_type": "application/json",
                                        "output.value": json.dumps({"type": "tool", "tool_call_id": "nope", "content": "x"})}),
        # typed link and a runtime rejection
        span(13, "execute_tool z", parent=1, attrs={OP: "execute_tool", "gen_ai.tool.name": "z"},
             links=[(5, {"gen_ai.attribution.link_type": "CAUSED_BY_GENERATION"})]),
        span(14, "turn", parent=1, attrs={OI: "CHAIN"}, error="Tool not found: {'tool_name': 'ghost'}"),
    ]


def _signature(trajectory: Trajectory) -> tuple:
    nodes = tuple(dataclasses.replace(n, start_unix_nano=0, end_unix_nano=0) for n in trajectory.nodes)
    return nodes, trajectory.edges, trajectory.declarations, trajectory.external_parents, trajectory.root_node_ids


BASELINE = _signature(map_spans(_trace()))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIZE = len(_trace())


def test_the_fixture_exercises_every_new_kind_of_evidence() -> None:
    evidence = " | ".join(edge.evidence for edge in map_spans(_trace()).edges)
    for kind in ("conversation prefix", "span events", "shares this span's parent", "CAUSED_BY_GENERATION",
                 "tool result p1 in model input"):
        assert kind in evidence, kind
    nodes = {node.id: node for node in map_spans(_trace()).nodes}
    assert any(node.unknown_tools == ("ghost",) for node in nodes.values())


@SETTINGS
@given(st.permutations(range(SIZE)))
def test_arrival_order_does_not_matter(order: list[int]) -> None:
    spans = _trace()
    assert _signature(map_spans([spans[i] for i in order])) == BASELINE


@SETTINGS
@given(st.permutations(range(SIZE)), st.lists(st.integers(0, 4), min_size=SIZE, max_size=SIZE))
def test_splitting_across_batches_then_mapping_the_union(order: list[int], batch_of: list[int]) -> None:
    spans = _trace()
    union = []
    for batch in range(5):
        members = [spans[i] for i in order if batch_of[i] == batch]
        if members:
            union.extend(envelopes(members, service=f"svc{batch % 2}"))
    assert _signature(map_trace(union).trajectory) == BASELINE


@SETTINGS
@given(st.lists(st.tuples(st.integers(1, 2**62), st.integers(1, 2**62)), min_size=SIZE, max_size=SIZE))
def test_timestamps_never_change_the_graph(times: list[tuple[int, int]]) -> None:
    spans = _trace()
    for item, (start, end) in zip(spans, times, strict=True):
        item.start_time_unix_nano = start
        item.end_time_unix_nano = end
        for event in item.events:
            event.time_unix_nano = start
    assert _signature(map_spans(spans)) == BASELINE
