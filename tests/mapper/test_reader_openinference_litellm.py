"""openinference-instrumentation-litellm (corpus/NOTES-frameworks-av.md): an LLM span flattens a tool message without
its ``tool_call_id``; the request's messages, ids included, are in ``input.value`` as a chat request body."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}


def _llm(number: int, parent: int, messages: list[dict], recorded: bool = True,
         output: dict[str, object] | None = None) -> object:
    attrs: dict[str, object] = {KIND: "LLM", "llm.model_name": "openai/gpt-4o-mini",
                                "input.mime_type": "application/json", **(output or {})}
    if recorded:
        attrs["input.value"] = json.dumps({"messages": messages, "temperature": 0.2})
    for position, message in enumerate(messages):
        prefix = f"llm.input_messages.{position}.message."
        attrs[prefix + "role"] = message["role"]
        if message.get("content"):
            attrs[prefix + "content"] = message["content"]
        for index, call in enumerate(message.get("tool_calls") or []):
            attrs[f"{prefix}tool_calls.{index}.tool_call.id"] = call["id"]
            attrs[f"{prefix}tool_calls.{index}.tool_call.function.name"] = call["function"]["name"]
            attrs[f"{prefix}tool_calls.{index}.tool_call.function.arguments"] = call["function"]["arguments"]
    return span(number, "completion", parent=parent, attrs=attrs)


def _spans(recorded: bool) -> list:
    user = {"role": "user", "content": "Weather in Oslo?"}
    first = _llm(2, 1, [user], output={
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "get_weather",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"city": "Oslo"}'})
    second = _llm(4, 1, [user, {"role": "assistant", "content": None, "tool_calls": [CALL]},
                         {"role": "tool", "tool_call_id": "call_1", "content": "Oslo: rain"}], recorded=recorded)
    return [span(1, "support_agent", attrs={KIND: "AGENT"}), first,
            span(3, "get_weather", parent=1, attrs={KIND: "TOOL", "tool.name": "get_weather"}), second]


def test_tool_result_call_id_from_the_recorded_chat_request() -> None:
    trajectory = map_spans(_spans(recorded=True))
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [f"{node_id(2)}#call:call_1"], proposals
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3)) or has_edge(
        trajectory, node_id(4), EdgeType.DEPENDS_ON, f"{node_id(2)}#call:call_1")


def test_without_the_recorded_request_the_result_is_joined_by_conversation_prefix_only() -> None:
    # No id for the tool message: the one tool message after the turn of the call that made one tool call answers
    # it (otel_mapper.mapping.prefix), and the edge says so.
    trajectory = map_spans(_spans(recorded=False))
    (edge,) = [e for e in trajectory.edges
               if e.from_node == node_id(4) and e.type is EdgeType.DEPENDS_ON and e.to_node == node_id(3)]
    assert "conversation prefix" in edge.evidence
    assert not has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, f"{node_id(2)}#call:call_1")
