"""OpenInference's OpenLLMetry span processor (`openinference-instrumentation-openllmetry` 0.1.23,
corpus/NOTES-frameworks-db.md): an OpenLLMetry LLM span keeps its legacy indexed messages (`gen_ai.prompt.N.*`) and
gains OpenInference's flattened ones, rebuilt without a tool message's `tool_call_id`: the call id of such a message is
read from the legacy message at its index when that message records the same role and content."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType
from tests.support.spans import has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
CALLS = [("call_1", "get_weather", {"city": "Paris"}, "Paris: Sunny"),
         ("call_2", "lookup_order", {"order_id": "A-1"}, "A-1: shipped")]


def _proposer() -> Span:
    attrs: dict[str, str] = {KIND: "LLM", "llm.input_messages.0.message.role": "user",
                             "llm.input_messages.0.message.content": "Weather and my order?",
                             "llm.output_messages.0.message.role": "assistant"}
    for index, (call_id, name, args, _) in enumerate(CALLS):
        prefix = f"llm.output_messages.0.message.tool_calls.{index}.tool_call."
        attrs.update({f"{prefix}id": call_id, f"{prefix}function.name": name,
                      f"{prefix}function.arguments": json.dumps(args)})
    return span(2, "openai.chat", parent=1, attrs=attrs)


def _tool(number: int, name: str, args: dict[str, str], result: str) -> Span:
    return span(number, f"{name}.tool", parent=1, attrs={
        KIND: "TOOL", "tool.name": name, "input.mime_type": "application/json",
        "input.value": json.dumps({"args": [], "kwargs": args}), "output.value": json.dumps(result)})


def _consumer(legacy_content: dict[int, str], legacy_role: str = "tool") -> Span:
    """The next request: flattened messages without the results' call ids, beside OpenLLMetry's legacy record."""
    attrs: dict[str, str] = {KIND: "LLM"}
    messages: list[tuple[str, str]] = [("user", "Weather and my order?"), ("assistant", "")]
    messages += [("tool", result) for _, _, _, result in CALLS]
    for index, (role, content) in enumerate(messages):
        attrs[f"llm.input_messages.{index}.message.role"] = role
        attrs[f"gen_ai.prompt.{index}.role"] = legacy_role if role == "tool" else role
        if content:
            attrs[f"llm.input_messages.{index}.message.content"] = content
            attrs[f"gen_ai.prompt.{index}.content"] = legacy_content.get(index, content)
    for index, (call_id, name, args, _) in enumerate(CALLS):
        flat = f"llm.input_messages.1.message.tool_calls.{index}.tool_call."
        legacy = f"gen_ai.prompt.1.tool_calls.{index}."
        attrs.update({f"{flat}id": call_id, f"{flat}function.name": name, f"{flat}function.arguments": json.dumps(args),
                      f"{legacy}id": call_id, f"{legacy}name": name, f"{legacy}arguments": json.dumps(args)})
        attrs[f"gen_ai.prompt.{index + 2}.tool_call_id"] = call_id
    return span(5, "openai.chat", parent=1, attrs=attrs)


def _trace(consumer: Span) -> list[Span]:
    tools = [_tool(3 + index, name, args, result) for index, (_, name, args, result) in enumerate(CALLS)]
    return [span(1, "support_agent.agent", attrs={KIND: "AGENT"}), _proposer(), *tools, consumer]


def test_tool_messages_without_ids_take_the_ids_of_the_legacy_messages_at_their_index() -> None:
    trajectory = map_spans(_trace(_consumer({})))
    for number in (3, 4):
        assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(number)), number


def test_no_id_is_taken_from_a_legacy_message_of_another_content_or_role() -> None:
    for trajectory in (map_spans(_trace(_consumer({2: "Rome: Rain", 3: "A-2: lost"}))),
                       map_spans(_trace(_consumer({}, legacy_role="user")))):
        for number in (3, 4):
            assert not has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(number)), number
