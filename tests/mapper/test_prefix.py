"""Conversation-prefix evidence: a model call that recorded no output is given the tool calls a later call's input
replays right after exactly its input (OpenLLMetry's OpenAI Agents SDK spans with Chat Completions)."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, has_edge, map_spans, node_id, span

OP = "gen_ai.operation.name"
SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "triage"}]}
USER = {"role": "user", "parts": [{"type": "text", "content": "weather?"}]}
CALL = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Oslo"}}]}
RESULT = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "rain"}]}


def _chat(number: int, messages: list[dict], *, error: str | None = None) -> object:
    return span(number, "openai.response", parent=1, error=error, attrs={OP: "chat", "gen_ai.input.messages": json.dumps(messages)})


def _tool(number: int) -> object:
    return span(number, "get_weather.tool", parent=1, attrs={OP: "execute_tool", "gen_ai.tool.name": "get_weather",
                                                            "gen_ai.tool.call.arguments": '{"city": "Oslo"}'})


def _agent() -> object:
    return span(1, "support_agent.agent", attrs={OP: "invoke_agent", "gen_ai.agent.name": "support_agent"})


def test_the_earlier_call_whose_input_is_the_prefix_proposed_the_replayed_call() -> None:
    trajectory = map_spans([_agent(), _chat(2, [SYSTEM, USER]), _tool(3), _chat(4, [SYSTEM, USER, CALL, RESULT])])
    proposal = node_id(2, "call:c1")
    assert get_node(trajectory, proposal).kind is NodeKind.TOOL_PROPOSAL
    (edge,) = [e for e in edges_from(trajectory, proposal) if e.type is EdgeType.CAUSED_BY]
    assert edge.to_node == node_id(2) and edge.evidence.startswith("conversation prefix")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_failed_attempt_with_the_same_input_is_not_the_proposer() -> None:
    trajectory = map_spans([_agent(), _chat(2, [SYSTEM, USER], error="429 Too Many Requests"), _chat(5, [SYSTEM, USER]),
                            _tool(3), _chat(4, [SYSTEM, USER, CALL, RESULT])])
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [node_id(5, "call:c1")]


def test_two_calls_with_that_input_are_ambiguous_and_declared() -> None:
    trajectory = map_spans([_agent(), _chat(2, [SYSTEM, USER]), _chat(5, [SYSTEM, USER]), _tool(3), _chat(4, [SYSTEM, USER, CALL, RESULT])])
    assert not [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    (declared,) = [d for d in trajectory.declarations if d.qualifier == "ambiguous_prefix"]
    assert node_id(4) in declared.nodes


def test_swapped_instructions_on_a_handoff_are_left_out() -> None:
    billing = {"role": "system", "parts": [{"type": "text", "content": "billing"}]}
    trajectory = map_spans([_agent(), _chat(2, [SYSTEM, USER]), _tool(3), _chat(4, [billing, USER, CALL, RESULT])])
    assert get_node(trajectory, node_id(2, "call:c1")) is not None


def test_a_call_that_recorded_its_output_keeps_it() -> None:
    chat = span(2, "chat", parent=1, attrs={OP: "chat", "gen_ai.input.messages": json.dumps([SYSTEM, USER]),
                                            "gen_ai.output.messages": json.dumps([CALL])})
    trajectory = map_spans([_agent(), chat, _tool(3), _chat(4, [SYSTEM, USER, CALL, RESULT])])
    (edge,) = [e for e in edges_from(trajectory, node_id(2, "call:c1")) if e.type is EdgeType.CAUSED_BY]
    assert edge.evidence == "tool_call part in model output"
