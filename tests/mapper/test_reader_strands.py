"""Strands Agents' native GenAI output: content only in span events (strands/telemetry/tracer.py, sdk-python
@ 1232230d): the default GenAI <= v1.36 per-message events and the gen_ai_latest_experimental details events."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, has_edge, map_spans, node_id, ordered, span

SYSTEM = {"gen_ai.system": "strands-agents"}
USER = [{"text": "Weather in Paris?"}]
TOOL_USE = [{"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}}]
TOOL_RESULT = [{"toolResult": {"toolUseId": "tooluse_1", "status": "success", "content": [{"text": "Sunny"}]}}]


def _event(name: str, **attributes: object) -> tuple[str, dict[str, object]]:
    return name, {key: value if isinstance(value, str) else json.dumps(value) for key, value in attributes.items()}


def _legacy_trace(*, usage_on_agent: bool = True) -> list:
    """invoke_agent -> execute_event_loop_cycle x2 -> chat / execute_tool; content only in events."""
    agent_attrs: dict[str, object] = {**SYSTEM, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
                                      "gen_ai.agent.tools": json.dumps(["get_weather"])}
    if usage_on_agent:  # the run's accumulated usage, under the model calls' keys
        agent_attrs |= {"gen_ai.usage.input_tokens": 300, "gen_ai.usage.output_tokens": 40}
    chat = {**SYSTEM, "gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
    return [
        span(1, "invoke_agent weather", attrs=agent_attrs, events=[_event("gen_ai.user.message", content=USER)]),
        span(2, "execute_event_loop_cycle", parent=1, attrs={**SYSTEM, "gen_ai.operation.name": "execute_event_loop_cycle", "event_loop.cycle_id": "c1"}),
        span(3, "chat", parent=2, attrs=chat | {"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20},
             events=[_event("gen_ai.system.message", content=[{"text": "be brief"}]), _event("gen_ai.user.message", content=USER),
                     _event("gen_ai.choice", finish_reason="tool_use", message=TOOL_USE)]),
        span(4, "execute_tool get_weather", parent=2,
             attrs={**SYSTEM, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "tooluse_1",
                    "gen_ai.tool.status": "success"},
             events=[_event("gen_ai.tool.message", role="tool", content={"city": "Paris"}, id="tooluse_1"),
                     _event("gen_ai.choice", message=[{"text": "Sunny"}], id="tooluse_1")]),
        span(5, "execute_event_loop_cycle", parent=1, attrs={**SYSTEM, "gen_ai.operation.name": "execute_event_loop_cycle", "event_loop.cycle_id": "c2"}),
        span(6, "chat", parent=5, attrs=chat | {"gen_ai.usage.input_tokens": 200, "gen_ai.usage.output_tokens": 20},
             events=[_event("gen_ai.system.message", content=[{"text": "be brief"}]), _event("gen_ai.user.message", content=USER),
                     _event("gen_ai.assistant.message", content=TOOL_USE), _event("gen_ai.tool.message", content=TOOL_RESULT),
                     _event("gen_ai.choice", finish_reason="end_turn", message=[{"text": "It is sunny."}])]),
    ]


def test_proposals_consumption_and_content_edges_come_from_span_events() -> None:
    trajectory = map_spans(_legacy_trace())
    proposal = node_id(3, "call:tooluse_1")
    assert get_node(trajectory, proposal).kind is NodeKind.TOOL_PROPOSAL
    (proposed,) = [e for e in edges_from(trajectory, proposal) if e.type is EdgeType.CAUSED_BY]
    assert proposed.to_node == node_id(3) and "span events" in proposed.evidence and "gen_ai.choice" in proposed.evidence
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, proposal)
    consumed = [e for e in edges_from(trajectory, node_id(6)) if e.type is EdgeType.DEPENDS_ON and e.to_node == node_id(4)]
    assert consumed and "span events" in consumed[0].evidence
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(3))  # input message 2 is chat 3's output
    assert ordered(trajectory, node_id(3), node_id(6))


def test_tool_arguments_and_result_come_from_the_tool_spans_events() -> None:
    tool = get_node(map_spans(_legacy_trace()), node_id(4))
    assert tool.arguments == '{"city":"Paris"}' and tool.arguments_visible and tool.result_visible


def test_agent_usage_is_an_aggregate_and_agent_tools_are_its_declared_tools() -> None:
    trajectory = map_spans(_legacy_trace())
    agent = get_node(trajectory, node_id(1))
    assert agent.usage is None  # accumulated usage: never added to the model calls'
    assert agent.tool_definitions == ("get_weather",)
    assert get_node(trajectory, node_id(3)).usage is not None


def test_latest_experimental_details_events_are_read_too() -> None:
    def details(**messages: object) -> tuple[str, dict[str, object]]:
        return _event("gen_ai.client.inference.operation.details", **{f"gen_ai.{key}": value for key, value in messages.items()})

    user = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}
    call = {"role": "assistant", "parts": [{"type": "tool_call", "name": "get_weather", "id": "tooluse_1", "arguments": {"city": "Paris"}}]}
    result = {"role": "user", "parts": [{"type": "tool_call_response", "id": "tooluse_1", "response": [{"text": "Sunny"}]}]}
    chat = {"gen_ai.provider.name": "strands-agents", "gen_ai.operation.name": "chat"}
    trajectory = map_spans([
        span(1, "invoke_agent weather", attrs={"gen_ai.provider.name": "strands-agents", "gen_ai.operation.name": "invoke_agent"}),
        span(2, "chat", parent=1, attrs=chat, events=[details(**{"input.messages": [user]}), details(**{"output.messages": [call | {"finish_reason": "tool_use"}]})]),
        span(3, "execute_tool get_weather", parent=1, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"},
             events=[details(**{"input.messages": [{"role": "tool", "parts": [call["parts"][0]]}]}),
                     details(**{"output.messages": [{"role": "tool", "parts": [result["parts"][0]]}]})]),
        span(4, "chat", parent=1, attrs=chat, events=[details(**{"input.messages": [user, call, result]})]),
    ])
    tool = get_node(trajectory, node_id(3))
    assert tool.tool_call_id == "tooluse_1" and tool.arguments == '{"city":"Paris"}'
    (edge,) = [e for e in edges_from(trajectory, node_id(3)) if e.type is EdgeType.CAUSED_BY and "#" in e.to_node]
    assert edge.to_node == node_id(2, "call:tooluse_1") and "span events" in edge.evidence  # the id came from an event
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_unknown_tool_result_is_a_rejection_of_the_call() -> None:
    spans = _legacy_trace()
    spans[3] = span(4, "execute_tool fetch_invoice", parent=2, error="Unknown tool: fetch_invoice",
                    attrs={**SYSTEM, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch_invoice",
                           "gen_ai.tool.call.id": "tooluse_1", "gen_ai.tool.status": "error"},
                    events=[_event("gen_ai.choice", message=[{"text": "Unknown tool: fetch_invoice"}], id="tooluse_1")])
    assert get_node(map_spans(spans), node_id(4)).unknown_tools == ("fetch_invoice",)


def test_latest_experimental_finish_reasons_come_from_the_output_messages() -> None:
    """No gen_ai.response.finish_reasons and no gen_ai.choice event under the latest conventions: each output message's
    own finish_reason (parts schema) is the model call's finish reason, in message order."""
    latest = {"gen_ai.provider.name": "strands-agents"}
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}], "finish_reason": "end_turn"}
    details = _event("gen_ai.client.inference.operation.details", **{"gen_ai.output.messages": [answer]})
    trajectory = map_spans([
        span(1, "invoke_agent weather", attrs=latest | {"gen_ai.operation.name": "invoke_agent"}),
        span(2, "chat", parent=1, attrs=latest | {"gen_ai.operation.name": "chat"}, events=[details]),
    ])
    assert get_node(trajectory, node_id(2)).finish_reasons == ("end_turn",)
