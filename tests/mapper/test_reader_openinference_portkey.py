"""openinference-instrumentation-portkey (corpus/NOTES-frameworks-ch.md): an LLM span flattens the answer's message by
role and content alone, without its tool calls; the response, calls and ids included, is in ``output.value`` as a
chat completion body."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}


def _spans(body: dict | None, role: str = "assistant") -> list:
    attrs: dict[str, object] = {
        KIND: "LLM", "llm.model_name": "gpt-4o-mini",
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Weather in Oslo?",
        "llm.output_messages.0.message.role": role, "llm.finish_reason": "tool_calls"}
    if body is not None:
        attrs.update({"output.mime_type": "application/json", "output.value": json.dumps(body)})
    return [span(1, "support_agent", attrs={KIND: "AGENT"}), span(2, "Completions", parent=1, attrs=attrs),
            span(3, "get_weather", parent=1, attrs={KIND: "TOOL", "tool.name": "get_weather", "tool.id": "call_1"})]


def _body(role: str = "assistant") -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": role, "content": None, "tool_calls": [CALL]}}]}


def _proposals(spans: list) -> tuple[object, list[str]]:
    trajectory = map_spans(spans)
    return trajectory, [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]


def test_calls_read_from_the_recorded_chat_completion() -> None:
    trajectory, proposals = _proposals(_spans(_body()))
    assert proposals == [f"{node_id(2)}#call:call_1"], proposals
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, f"{node_id(2)}#call:call_1")


def test_without_the_recorded_response_no_call_is_proposed() -> None:
    _, proposals = _proposals(_spans(None))
    assert proposals == [], proposals


def test_a_body_whose_choice_is_another_message_is_not_read() -> None:
    _, proposals = _proposals(_spans(_body(role="tool")))
    assert proposals == [], proposals
