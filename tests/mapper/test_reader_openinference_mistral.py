"""openinference-instrumentation-mistralai (corpus/NOTES-frameworks-bd.md): an LLM span flattens the answer's tool calls
by function name and arguments only; the response, ids included, is in ``output.value`` as a chat completion body."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
        "index": 0}


def _spans(recorded: bool) -> list:
    attrs: dict[str, object] = {
        KIND: "LLM", "llm.model_name": "mistral-small-latest", "llm.provider": "mistralai",
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Weather in Oslo?",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "get_weather",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"city": "Oslo"}'}
    if recorded:
        attrs.update({"output.mime_type": "application/json", "output.value": json.dumps({
            "id": "cmpl-1", "object": "chat.completion", "model": "mistral-small-latest",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "", "tool_calls": [CALL]},
                         "finish_reason": "tool_calls"}]})})
    return [span(1, "support_agent", attrs={KIND: "AGENT"}), span(2, "MistralClient.chat", parent=1, attrs=attrs),
            span(3, "get_weather", parent=1, attrs={KIND: "TOOL", "tool.name": "get_weather", "tool.id": "call_1"})]


def test_tool_call_ids_from_the_recorded_chat_completion() -> None:
    trajectory = map_spans(_spans(recorded=True))
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [f"{node_id(2)}#call:call_1"], proposals
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, f"{node_id(2)}#call:call_1")


def test_without_the_recorded_response_the_calls_stay_id_less() -> None:
    trajectory = map_spans(_spans(recorded=False))
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [f"{node_id(2)}#call#0"], proposals
