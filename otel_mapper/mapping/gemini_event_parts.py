"""Vertex AI's per-message GenAI events: Gemini content parts, and made-up position ids.

The Vertex AI instrumentation's per-message events (``gen_ai.*.message``, ``gen_ai.choice``, as log records; names
in :mod:`semconv.vertexai`) write a message's ``content`` as its Gemini parts, ``[{"text"}, {"function_call":
{"name", "args"}}, {"function_response": {"name", "response"}}]``, not a string. Read into the GenAI parts schema,
a text part is text, a ``function_call`` a tool call and a ``function_response`` a tool result. (Read only on that
system's records: a list of ``{"text"}`` objects is also Bedrock's Converse content, whose events are read as the
Chat Completions shape they also carry.)

Its ``<function name>_<index>`` ids (``tool_calls``, a tool message's ``id``) are places in one message, made up by
the instrumentation and the same in every turn: read as call ids they would join a result to every earlier call of
that tool at that place. They are dropped, so the calls and results are joined as id-less ones are (by turn, by name
and arguments); an id of another form is kept.
"""

from __future__ import annotations

from typing import Final

from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from otel_mapper.mapping.parts_messages import (
    chat_completions_message,
    chat_completions_tool_calls,
    parts_message,
    text_part,
    tool_call_part,
    tool_result_part,
)
from otel_mapper.otlp.anyvalue import Decoded
from semconv import adk, genai, google_genai, vertexai

__all__ = ["function_response_texts", "gemini_parts", "is_vertex_ai", "vertex_choice_message", "vertex_input_message"]

MAX_PARTS: Final = 1000
"""Parts read per message."""


def is_vertex_ai(record: LogRecord) -> bool:
    """The record names the Vertex AI system (``gen_ai.system``)."""
    return any(kv.key == genai.SYSTEM and kv.value.string_value in vertexai.SYSTEMS for kv in record.attributes)


def gemini_parts(content: Decoded) -> list[dict[str, Decoded]]:
    """The GenAI parts of a list of Gemini parts (items of other kinds are left out; a string is one text part)."""
    if isinstance(content, str):
        return [text_part(content)]
    if not isinstance(content, list):
        return []
    parts: list[dict[str, Decoded]] = []
    for item in content[:MAX_PARTS]:
        if not isinstance(item, dict):
            continue
        call = _field(item, adk.FUNCTION_CALL)
        response = _field(item, adk.FUNCTION_RESPONSE)
        text = item.get(adk.TEXT)
        if isinstance(call, dict):
            parts.append(tool_call_part(None, call.get(adk.PART_NAME), call.get(adk.PART_ARGS)))
        elif isinstance(response, dict):
            parts.append(tool_result_part(None, response.get(adk.PART_RESPONSE)))
        elif isinstance(text, str):
            parts.append(text_part(text))
    return parts


def function_response_texts(response: Decoded) -> list[str]:
    """The text of a Gemini function response object: its ``output`` (or ``error``) string, the keys the API
    documents for a function's output and its error (a response without them has no text read here)."""
    if not isinstance(response, dict):
        return []
    for key in (google_genai.RESPONSE_OUTPUT, google_genai.RESPONSE_ERROR):
        value = response.get(key)
        if isinstance(value, str):
            return [value]
    return []


def vertex_input_message(role: str, body: dict[str, Decoded]) -> dict[str, Decoded]:
    """An input event's message; a tool message (its content the function's response) as the Chat Completions
    shape reads it."""
    if role == "tool":
        return _without_position_ids(chat_completions_message(role, body))
    parts = [*gemini_parts(body.get("content")), *chat_completions_tool_calls(body.get("tool_calls"))]
    return _without_position_ids(parts_message(role, parts))


def vertex_choice_message(body: dict[str, Decoded]) -> dict[str, Decoded]:
    """A ``gen_ai.choice`` body's message: its text, and its calls from ``tool_calls`` when listed (the content's
    ``function_call`` parts repeat them), else from the content's parts."""
    message = body.get("message")
    message = message if isinstance(message, dict) else {}
    calls = chat_completions_tool_calls(message.get("tool_calls") or body.get("tool_calls"))
    parts = [
        part for part in gemini_parts(message.get("content"))
        if not calls or part.get(genai.PART_TYPE) != genai.PART_TOOL_CALL
    ]
    result = parts_message("assistant", [*parts, *calls])
    finish_reason = body.get("finish_reason")
    if isinstance(finish_reason, str):
        result["finish_reason"] = finish_reason
    return _without_position_ids(result)


def _without_position_ids(message: dict[str, Decoded]) -> dict[str, Decoded]:
    parts = message.get("parts")
    if not isinstance(parts, list):
        return message
    cleaned: list[Decoded] = []
    for part in parts:
        if isinstance(part, dict) and _is_position_id(part.get("id"), part.get("name")):
            part = {**part, "id": None}
        cleaned.append(part)
    return {**message, "parts": cleaned}


def _is_position_id(call_id: Decoded, name: Decoded) -> bool:
    """``<name>_<index>`` (a result part names no function: any prefix)."""
    if not isinstance(call_id, str):
        return False
    prefix, separator, index = call_id.rpartition(vertexai.POSITION_ID_SEPARATOR)
    if not separator or not prefix or not index.isascii() or not index.isdigit():
        return False
    if len(index) > vertexai.MAX_POSITION_DIGITS:
        return False
    return not isinstance(name, str) or prefix == name


def _field(part: dict[str, Decoded], names: tuple[str, ...]) -> Decoded:
    for name in names:
        if name in part:
            return part[name]
    return None
