"""The Azure AI Inference SDK's ``AIInferenceInstrumentor`` (corpus/NOTES-frameworks-ce.md): a ``chat <model>`` span
whose messages are span events named as the per-message GenAI events (``gen_ai.<role>.message``, ``gen_ai.choice``),
each with its whole body as one JSON text in ``gen_ai.event.content``: an input event's body a Chat Completions
message (an assistant message's ``tool_calls`` with ids, a tool message's ``tool_call_id``), a choice's
``{"message": {"content", "tool_calls"}, "finish_reason", "index"}``."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
SYSTEM = {"role": "system", "content": "You are a support agent."}
USER = {"role": "user", "content": "Weather in Oslo?"}


def _event(name: str, body: dict) -> tuple[str, dict]:
    return name, {"gen_ai.system": "az.ai.inference", "gen_ai.event.content": json.dumps(body)}


def _chat(number: int, events: list) -> object:
    return span(number, "chat gpt-4o-mini", parent=1, kind=3, events=events, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.system": "az.ai.inference", "gen_ai.request.model": "gpt-4o-mini"})


def _trace() -> list:
    return [
        span(1, "invoke_agent support_agent", attrs={"gen_ai.operation.name": "invoke_agent",
                                                     "gen_ai.agent.name": "support_agent"}),
        _chat(2, [_event("gen_ai.system.message", SYSTEM), _event("gen_ai.user.message", USER),
                  _event("gen_ai.choice", {"message": {"content": None, "tool_calls": [CALL]},
                                           "finish_reason": "tool_calls", "index": 0})]),
        span(3, "execute_tool get_weather", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1"}),
        _chat(4, [_event("gen_ai.system.message", SYSTEM), _event("gen_ai.user.message", USER),
                  _event("gen_ai.assistant.message", {"role": "assistant", "content": None, "tool_calls": [CALL]}),
                  _event("gen_ai.tool.message", {"role": "tool", "tool_call_id": "call_1", "content": "Oslo: rain"}),
                  _event("gen_ai.choice", {"message": {"content": "Rain in Oslo."}, "finish_reason": "stop",
                                           "index": 0})]),
    ]


def test_a_choice_event_body_in_event_content_proposes_its_calls() -> None:
    trajectory = map_spans(_trace())
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [f"{node_id(2)}#call:call_1"], proposals


def test_a_tool_message_event_body_in_event_content_is_the_result_its_call_id_names() -> None:
    trajectory = map_spans(_trace())
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))
