"""A model-call span that records several requests proposed the calls whose results its own input holds when their
runs hang under it (:mod:`otel_mapper.mapping.own_replays`; OpenInference's Google ADK instrumentation writes one
such span per agent run)."""

from __future__ import annotations

import json

from otel_mapper.mapping.own_replays import OWN_REPLAY_EVIDENCE
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, has_edge, map_spans, node_id, span

OP = "gen_ai.operation.name"
USER = {"role": "user", "parts": [{"type": "text", "content": "weather in Oslo?"}]}
CALL = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Oslo"}}]}
RESULT = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "rain"}]}
LAST_ANSWER = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c2", "name": "get_weather",
                                                "arguments": {"city": "Bergen"}}]}]


def _agent() -> object:
    return span(1, "agent_run [support_agent]", attrs={OP: "invoke_agent", "gen_ai.agent.name": "support_agent"})


def _chat(number: int, parent: int = 1, output: list[dict] | None = LAST_ANSWER) -> object:
    attrs = {OP: "chat", "gen_ai.input.messages": json.dumps([USER, CALL, RESULT])}
    if output is not None:
        attrs["gen_ai.output.messages"] = json.dumps(output)
    return span(number, "invoke_agent support_agent", parent=parent, attrs=attrs)


def _tool(number: int, call_id: str, parent: int) -> object:
    return span(number, f"execute_tool get_weather {call_id}", parent=parent,
                attrs={OP: "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": call_id,
                       "gen_ai.tool.call.arguments": '{"city": "Oslo"}'})


def test_a_call_whose_result_the_span_holds_and_whose_run_hangs_under_it_is_its_proposal() -> None:
    trajectory = map_spans([_agent(), _chat(2), _tool(3, "c1", parent=2), _tool(4, "c2", parent=2)])
    proposal = node_id(2, "call:c1")
    node = get_node(trajectory, proposal)
    assert node.kind is NodeKind.TOOL_PROPOSAL and node.tool_name == "get_weather"
    (edge,) = edges_from(trajectory, proposal, EdgeType.CAUSED_BY)
    assert edge.to_node == node_id(2) and edge.evidence == OWN_REPLAY_EVIDENCE
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(2, "call:c2"))  # the output's call, as before
    assert not has_edge(trajectory, node_id(2), EdgeType.DEPENDS_ON, node_id(3))  # the consumption stays inside


def test_a_run_that_does_not_hang_under_the_span_is_not_its_proposal() -> None:
    trajectory = map_spans([_agent(), _chat(2), _tool(3, "c1", parent=1)])
    assert trajectory.node(node_id(2, "call:c1")) is None


def test_a_run_under_another_model_call_inside_the_span_is_not_its_proposal() -> None:
    inner = span(5, "chat gpt-4o-mini", parent=2, attrs={OP: "chat"})
    trajectory = map_spans([_agent(), _chat(2), inner, _tool(3, "c1", parent=5)])
    assert trajectory.node(node_id(2, "call:c1")) is None


def test_a_call_another_model_call_proposed_stays_with_it() -> None:
    earlier = span(6, "chat gpt-4o-mini", parent=1, attrs={OP: "chat", "gen_ai.output.messages": json.dumps([CALL])})
    trajectory = map_spans([_agent(), earlier, _chat(2), _tool(3, "c1", parent=2)])
    assert trajectory.node(node_id(2, "call:c1")) is None
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(6, "call:c1"))


def test_two_runs_with_the_call_id_leave_it_unattributed() -> None:
    trajectory = map_spans([_agent(), _chat(2), _tool(3, "c1", parent=2), _tool(4, "c1", parent=2)])
    assert trajectory.node(node_id(2, "call:c1")) is None
