"""Tool calls recorded under another id than their results name (:mod:`otel_mapper.mapping.turn_pairs`,
:mod:`otel_mapper.mapping.turn_call_ids`), shaped as OpenLLMetry's OpenAI instrumentation 0.62.4 writes the Responses
API (``corpus/NOTES-frameworks-ca.md``): an ``openai.response`` span whose GenAI parts messages name each
``function_call`` item by its item id (``fc_...``), in the output and replayed one per assistant message in a later
input, and each ``function_call_output`` by its ``call_id`` (``call_...``); the tool runs are traceloop-sdk
``@tool`` spans with the arguments and no id."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

WF = {"traceloop.workflow.name": "support_workflow"}
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris and Rome?"}]}
CALLS = (("fc_a1", "call_x1", "Paris"), ("fc_b2", "call_y2", "Rome"))


def _call_part(item_id: str, city: str) -> dict[str, Any]:
    return {"type": "tool_call", "name": "get_weather", "id": item_id, "arguments": {"city": city}}


def _response(number: int, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> Any:
    return span(number, "openai.response", parent=1, attrs={
        **WF, "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.id": f"resp_{number}", "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5,
        "gen_ai.input.messages": json.dumps(inputs), "gen_ai.output.messages": json.dumps(outputs)})


def _tool(number: int, city: str) -> Any:
    return span(number, "get_weather.tool", parent=1, attrs={
        **WF, "traceloop.span.kind": "tool", "traceloop.entity.name": "get_weather", "gen_ai.tool.name": "get_weather",
        "traceloop.entity.input": json.dumps({"args": [], "kwargs": {"city": city}}),
        "traceloop.entity.output": json.dumps(f"{city}: sunny")})


def _spans(results: list[str], calls: tuple[tuple[str, str, str], ...] = CALLS) -> list[Any]:
    """An agent, the response proposing ``calls``, their runs, and the response whose input replays each call as an
    assistant message of its own, then the results naming ``results``."""
    output = {"role": "assistant", "parts": [_call_part(item, city) for item, _, city in calls],
              "finish_reason": "tool_call"}
    replayed = [{"role": "assistant", "parts": [_call_part(item, city)]} for item, _, city in calls]
    answers = [{"role": "tool", "parts": [{"type": "tool_call_response", "id": result, "response": f"{city}: sunny"}]}
               for result, (_, _, city) in zip(results, calls, strict=False)]
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny in both."}], "finish_reason": "stop"}
    return [
        span(1, "support_agent.agent", attrs={**WF, "traceloop.span.kind": "agent", "traceloop.entity.name":
                                              "support_agent", "gen_ai.agent.name": "support_agent"}),
        _response(2, [USER], [output]),
        *(_tool(3 + index, city) for index, (_, _, city) in enumerate(calls)),
        _response(9, [USER, *replayed, *answers], [answer]),
    ]


def _proposal_ids(trajectory: Any) -> list[str | None]:
    return sorted(n.tool_call_id or "" for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL)


def test_the_call_takes_the_id_its_result_names() -> None:
    trajectory = map_spans(_spans([result for _, result, _ in CALLS]))
    assert _proposal_ids(trajectory) == ["call_x1", "call_y2"]
    for offset, (_, result, _) in enumerate(CALLS):
        proposal = node_id(2, f"call:{result}")
        assert has_edge(trajectory, proposal, EdgeType.CAUSED_BY, node_id(2))
        assert has_edge(trajectory, node_id(3 + offset), EdgeType.CAUSED_BY, proposal)
        assert has_edge(trajectory, node_id(9), EdgeType.DEPENDS_ON, node_id(3 + offset))
    edge = next(e for e in trajectory.edges if e.from_node == node_id(2, "call:call_x1") and e.type is EdgeType.CAUSED_BY)
    assert "call id from the tool result" in edge.evidence


def test_ids_that_agree_are_left_as_read() -> None:
    same = tuple((result, result, city) for _, result, city in CALLS)
    trajectory = map_spans(_spans([result for _, result, _ in CALLS], same))
    assert _proposal_ids(trajectory) == ["call_x1", "call_y2"]
    edge = next(e for e in trajectory.edges if e.from_node == node_id(2, "call:call_x1") and e.type is EdgeType.CAUSED_BY)
    assert "call id from the tool result" not in edge.evidence


def test_fewer_results_than_calls_rename_nothing() -> None:
    trajectory = map_spans(_spans(["call_x1"]))
    assert _proposal_ids(trajectory) == ["fc_a1", "fc_b2"]


def test_a_result_answering_a_recorded_call_renames_nothing() -> None:
    trajectory = map_spans(_spans(["call_x1", "fc_a1"]))  # one result names a call as recorded: the turn is not paired
    assert _proposal_ids(trajectory) == ["fc_a1", "fc_b2"]


def test_inputs_that_disagree_rename_nothing() -> None:
    spans = _spans([result for _, result, _ in CALLS])
    other = _spans(["call_z9", "call_y2"])[-1]  # a second reader pairs fc_a1 with another result
    other.span_id = (10).to_bytes(8, "big")
    trajectory = map_spans([*spans, other])
    assert _proposal_ids(trajectory) == ["call_y2", "fc_a1"]
