"""GenAI content carried in span **events** instead of attributes, rebuilt in the GenAI parts schema.

Strands Agents (native GenAI) never puts messages in attributes (names in :mod:`semconv.strands`):

- by default (GenAI <= v1.36 events) a model span has one event per input message, in input order:
  ``gen_ai.system.message`` / ``gen_ai.user.message`` / ``gen_ai.assistant.message`` / ``gen_ai.tool.message``
  with ``content`` = JSON of the message's Bedrock content blocks (``{"text"}``, ``{"toolUse": {"toolUseId",
  "name", "input"}}``, ``{"toolResult": {"toolUseId", "content"}}``), and a ``gen_ai.choice`` event with ``message``
  = JSON of the output blocks; a tool span has ``gen_ai.tool.message`` (``content`` = the tool input, ``id`` = the
  call id) and ``gen_ai.choice`` (``message`` = the result, ``id``);
- with ``gen_ai_latest_experimental``, ``gen_ai.client.inference.operation.details`` events hold
  ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (parts schema; on a tool span a ``tool_call`` part with
  the arguments and a ``tool_call_response`` part); a model span's finish reasons are its output messages'
  ``finish_reason`` fields.

OpenAI-style per-message events (``content`` a string, ``tool_calls`` on assistant messages, ``id`` on tool
messages) are read the same way. So are per-message events whose whole body is one JSON text in
``gen_ai.event.content`` (the Azure AI Inference SDK's instrumentation): an input event's body is a Chat Completions
message (``tool_calls`` with ids, a tool message's ``tool_call_id``), a choice's ``{"message", "finish_reason"}``, as
the bodies of the same events sent as log records (:mod:`otel_mapper.mapping.log_events`). Events are content order
of one message list; their timestamps are not read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from opentelemetry.proto.common.v1.common_pb2 import KeyValue

from otel_mapper.mapping.parts_messages import (
    chat_completions_message,
    choice_message,
    output_finish_reasons,
    parts_message,
    text_part,
    tool_call_part,
    tool_result_part,
)
from otel_mapper.mapping.spans import MAX_NAME, SpanView, is_redaction_marker, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded, to_text
from semconv import genai, strands

__all__ = ["EventContent", "read_event_content"]

MAX_EVENTS: Final = 10_000
MAX_FINISH_REASONS: Final = 16
MAX_EVENT_TEXT: Final = 1 << 20
"""Longer event values are not parsed (content beyond it is a blob, not a message)."""

_INPUT_ROLES: Final = {
    genai.SYSTEM_MESSAGE_EVENT: "system",
    genai.USER_MESSAGE_EVENT: "user",
    genai.ASSISTANT_MESSAGE_EVENT: "assistant",
    genai.TOOL_MESSAGE_EVENT: "tool",
}
_MESSAGE_EVENTS: Final = frozenset({*_INPUT_ROLES, genai.CHOICE_EVENT, genai.INFERENCE_DETAILS_EVENT})


@dataclass(slots=True)
class EventContent:
    """What a span's events say: messages in and out (GenAI parts schema), and for a tool span its call."""

    inputs: list[dict[str, Decoded]] | None = None
    outputs: list[dict[str, Decoded]] | None = None
    evidence: str = ""
    """Which events it was read from (named on the edges it proves)."""
    call_id: str | None = None
    arguments: Decoded = None
    arguments_seen: bool = False
    result_seen: bool = False
    finish_reasons: list[str] = field(default_factory=list)


def has_message_events(view: SpanView) -> bool:
    return any(event.name in _MESSAGE_EVENTS for event in view.span.events)


def _attributes(attributes: Iterable[KeyValue]) -> dict[str, str]:
    """An event's attributes as text; a value redacted in place (a redaction marker) is left out, as not recorded."""
    values: dict[str, str] = {}
    for kv in attributes:
        text = to_text(kv.value)
        if text is not None and len(text) <= MAX_EVENT_TEXT and not is_redaction_marker(text):
            values[kv.key] = text
    return values


def _blocks_to_parts(content: Decoded) -> list[dict[str, Decoded]]:
    """Bedrock content blocks, GenAI parts or OpenAI content parts -> GenAI parts; a string is one text part."""
    if isinstance(content, str):
        parsed = parse_json_text(content)
        if isinstance(parsed, str):
            return [text_part(parsed)] if parsed else []
        content = parsed
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return []
    parts: list[dict[str, Decoded]] = []
    for block in content[:1000]:
        if not isinstance(block, dict):
            continue
        use = block.get(strands.BLOCK_TOOL_USE)
        result = block.get(strands.BLOCK_TOOL_RESULT)
        if isinstance(use, dict):
            call_id = use.get(strands.TOOL_USE_ID)
            parts.append(tool_call_part(call_id if isinstance(call_id, str) else None, use.get(strands.TOOL_USE_NAME), use.get(strands.TOOL_USE_INPUT)))
        elif isinstance(result, dict):
            call_id = result.get(strands.TOOL_USE_ID)
            parts.append(tool_result_part(call_id if isinstance(call_id, str) else None, result.get(strands.TOOL_RESULT_CONTENT)))
        elif genai.PART_TYPE in block:
            part_type = block.get(genai.PART_TYPE)
            if part_type == strands.BLOCK_TEXT and not isinstance(block.get("content"), str):
                text = block.get(strands.BLOCK_TEXT)
                parts.append(text_part(text if isinstance(text, str) else ""))
            else:
                parts.append(block)
        elif isinstance(block.get(strands.BLOCK_TEXT), str):
            parts.append(text_part(str(block[strands.BLOCK_TEXT])))
        else:
            for key, value in block.items():
                parts.append({genai.PART_TYPE: key, "content": value})
    return parts


def _openai_calls(text: str | None) -> list[dict[str, Decoded]]:
    calls = parse_json_text(text) if text else None
    parts: list[dict[str, Decoded]] = []
    if not isinstance(calls, list):
        return parts
    for call in calls[:1000]:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = call.get("id")
        parts.append(tool_call_part(call_id if isinstance(call_id, str) else None, function.get("name"), function.get("arguments")))
    return parts


def _message(role: str, values: dict[str, str]) -> dict[str, Decoded]:
    parts = _blocks_to_parts(values.get(strands.EVENT_CONTENT))
    if role == "tool" and strands.EVENT_ID in values and not any(
        part.get(genai.PART_TYPE) == genai.PART_TOOL_CALL_RESPONSE for part in parts
    ):
        # OpenAI-style tool message: the whole content is the result of call ``id``.
        parts = [tool_result_part(values[strands.EVENT_ID][:MAX_NAME], values.get(strands.EVENT_CONTENT))]
    parts.extend(_openai_calls(values.get(strands.EVENT_TOOL_CALLS)))
    return parts_message(values.get(strands.EVENT_ROLE) or role, parts)


def read_event_content(view: SpanView, *, tool_span: bool) -> EventContent | None:
    """The messages (or, on a tool span, the call) the span's events carry; ``None`` when they carry none."""
    content = EventContent()
    inputs: list[dict[str, Decoded]] = []
    outputs: list[dict[str, Decoded]] = []
    names: set[str] = set()
    for event in view.span.events[:MAX_EVENTS]:
        name = event.name
        if name not in _MESSAGE_EVENTS:
            continue
        values = _attributes(event.attributes)
        names.add(name)
        body = None if tool_span else _json_body(values)
        if body is not None and name == genai.CHOICE_EVENT:
            message = choice_message(body)
            outputs.append(message)
            reason = message.get(genai.MESSAGE_FINISH_REASON)
            if isinstance(reason, str) and reason and len(content.finish_reasons) < MAX_FINISH_REASONS:
                content.finish_reasons.append(reason[:MAX_NAME])
        elif body is not None and name in _INPUT_ROLES:
            inputs.append(chat_completions_message(_INPUT_ROLES[name], body))
        elif name == genai.INFERENCE_DETAILS_EVENT:
            _details(values, content, inputs, outputs, tool_span)
        elif tool_span and name == genai.TOOL_MESSAGE_EVENT:
            content.arguments = parse_json_text(values.get(strands.EVENT_CONTENT, ""))
            content.arguments_seen = strands.EVENT_CONTENT in values
            content.call_id = content.call_id or _bounded(values.get(strands.EVENT_ID))
        elif tool_span and name == genai.CHOICE_EVENT:
            content.result_seen = True
            content.call_id = content.call_id or _bounded(values.get(strands.EVENT_ID))
        elif name == genai.CHOICE_EVENT:
            message = parts_message("assistant", _blocks_to_parts(values.get(strands.EVENT_MESSAGE)))
            message["parts"] = [*_list(message.get("parts")), *_openai_calls(values.get(strands.EVENT_TOOL_CALLS))]
            outputs.append(message)
            reason = values.get(strands.EVENT_FINISH_REASON)
            if reason:
                content.finish_reasons.append(reason[:MAX_NAME])
        elif not tool_span:
            inputs.append(_message(_INPUT_ROLES[name], values))
    if not names:
        return None
    content.inputs = inputs or None
    content.outputs = outputs or None
    content.evidence = "span events " + ", ".join(sorted(names))
    return content


def _details(
    values: dict[str, str], content: EventContent, inputs: list[dict[str, Decoded]], outputs: list[dict[str, Decoded]],
    tool_span: bool,
) -> None:
    for key, into in ((genai.INPUT_MESSAGES, inputs), (genai.OUTPUT_MESSAGES, outputs)):
        messages = parse_json_text(values.get(key, ""))
        if not isinstance(messages, list):
            continue
        if not tool_span:
            into.extend(message for message in messages if isinstance(message, dict))
            if into is outputs:
                room = max(MAX_FINISH_REASONS - len(content.finish_reasons), 0)
                content.finish_reasons.extend(output_finish_reasons(messages)[:room])
            continue
        for message in messages:
            for part in _list(message.get("parts")) if isinstance(message, dict) else ():
                if not isinstance(part, dict):
                    continue
                if part.get(genai.PART_TYPE) == genai.PART_TOOL_CALL:
                    content.arguments = part.get("arguments")
                    content.arguments_seen = True
                    content.call_id = content.call_id or _bounded(part.get("id"))
                elif part.get(genai.PART_TYPE) == genai.PART_TOOL_CALL_RESPONSE:
                    content.result_seen = True
                    content.call_id = content.call_id or _bounded(part.get("id"))



def _json_body(values: dict[str, str]) -> dict[str, Decoded] | None:
    """The event's body when the event carries it whole as a JSON object text in ``gen_ai.event.content``."""
    text = values.get(genai.EVENT_CONTENT_ATTRIBUTE)
    body = parse_json_text(text) if text else None
    return body if isinstance(body, dict) else None


def _list(value: Decoded) -> list[Decoded]:
    return value if isinstance(value, list) else []


def _bounded(value: Decoded) -> str | None:
    return value[:MAX_NAME] if isinstance(value, str) and value else None
