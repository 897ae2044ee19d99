"""Messages of other shapes in the GenAI parts schema (``{"role", "parts": [...]}``), so every convention's messages
digest and read alike: Chat Completions messages (a request's ``messages``, a response's assistant message, GenAI
log-event bodies of that shape) and parts built from single fields (span events, SDK span data).
"""

from __future__ import annotations

from typing import Final, cast

from otel_mapper.mapping.spans import MAX_NAME, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai

__all__ = [
    "chat_completions_calls",
    "chat_completions_message",
    "chat_completions_messages",
    "chat_completions_tool_calls",
    "choice_message",
    "output_finish_reasons",
    "parts_message",
    "text_part",
    "tool_call_part",
    "tool_result_part",
]


MAX_FINISH_REASONS: Final = 16
"""Output messages whose ``finish_reason`` is read."""


def output_finish_reasons(value: Decoded) -> tuple[str, ...]:
    """The ``finish_reason`` of each output message of the parts schema, in message order (a single message may come
    as an object): where a span records no ``gen_ai.response.finish_reasons`` (a streamed call; Strands' latest
    conventions), each message names its own."""
    messages = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
    reasons: list[str] = []
    for message in messages[:MAX_FINISH_REASONS]:
        reason = message.get(genai.MESSAGE_FINISH_REASON) if isinstance(message, dict) else None
        if isinstance(reason, str) and reason:
            reasons.append(reason[:MAX_NAME])
    return tuple(reasons)


def text_part(content: str) -> dict[str, Decoded]:
    return {"type": "text", "content": content}


def tool_call_part(call_id: str | None, name: Decoded, arguments: Decoded) -> dict[str, Decoded]:
    """A tool-call part; ``name`` is kept as the span recorded it (normally a string)."""
    if isinstance(arguments, str):
        arguments = parse_json_text(arguments)
    return {genai.PART_TYPE: genai.PART_TOOL_CALL, "id": call_id, "name": name, "arguments": arguments}


def tool_result_part(call_id: str | None, response: Decoded) -> dict[str, Decoded]:
    return {genai.PART_TYPE: genai.PART_TOOL_CALL_RESPONSE, "id": call_id, "response": response}


def parts_message(role: Decoded, parts: list[dict[str, Decoded]]) -> dict[str, Decoded]:
    """A message in the GenAI parts schema, so conventions with other message shapes digest the same way."""
    # Read-only from here on, so the list of part dicts may stand as a list of decoded values (lists are invariant).
    return {"role": role, "parts": cast(list[Decoded], parts)}


def chat_completions_calls(*listed: Decoded) -> list[Decoded]:
    """LangChain's tool calls (``{"name", "args", "id"}``; pass ``tool_calls`` then ``invalid_tool_calls``, the calls
    whose arguments did not parse) as Chat Completions calls ``{"id", "function": {"name", "arguments"}}``, the shape
    :func:`~otel_mapper.mapping.readers.common.fill_chat_completions` reads; a call already in that shape is kept."""
    calls: list[Decoded] = []
    for items in listed:
        if not isinstance(items, list):
            continue
        for call in items:
            if not isinstance(call, dict):
                continue
            if isinstance(call.get("function"), dict):
                calls.append(call)
            else:
                calls.append({"id": call.get("id"), "function": {"name": call.get("name"), "arguments": call.get("args")}})
    return calls


def chat_completions_tool_calls(calls: Decoded) -> list[dict[str, Decoded]]:
    """The tool-call parts of a Chat Completions ``tool_calls`` list (``{"id", "function": {"name", "arguments"}}``)."""
    parts: list[dict[str, Decoded]] = []
    if not isinstance(calls, list):
        return parts
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = call.get("id")
        name = function.get("name")
        parts.append(
            tool_call_part(
                call_id if isinstance(call_id, str) else None,
                name if isinstance(name, str) else None,
                function.get("arguments"),
            )
        )
    return parts


def chat_completions_message(role: str, body: dict[str, Decoded]) -> dict[str, Decoded]:
    """A Chat Completions message (or a GenAI event body of that shape) in the GenAI parts schema: its text, the
    tool calls of an assistant message, the result a ``tool`` message carries for its call id."""
    parts: list[dict[str, Decoded]] = []
    content = body.get("content")
    if role == "tool":
        call_id = body.get("id") or body.get("tool_call_id")  # an event's field, or the Chat Completions message's
        parts.append(tool_result_part(call_id if isinstance(call_id, str) else None, content))
    elif isinstance(content, str):
        parts.append(text_part(content))
    parts.extend(chat_completions_tool_calls(body.get("tool_calls")))
    return parts_message(role, parts)


def choice_message(body: dict[str, Decoded]) -> dict[str, Decoded]:
    """A ``gen_ai.choice`` event body (``{"message": {"content", "tool_calls"}, "finish_reason", "index"}``) as the
    assistant's output message in the GenAI parts schema, with its finish reason."""
    message = body.get("message")
    message = message if isinstance(message, dict) else {}
    parts: list[dict[str, Decoded]] = []
    content = message.get("content")
    if isinstance(content, str):
        parts.append(text_part(content))
    parts.extend(chat_completions_tool_calls(message.get("tool_calls") or body.get("tool_calls")))
    result = parts_message("assistant", parts)
    finish_reason = body.get("finish_reason")
    if isinstance(finish_reason, str):
        result["finish_reason"] = finish_reason
    return result


def chat_completions_messages(value: Decoded) -> list[dict[str, Decoded]]:
    """A list of Chat Completions messages in the GenAI parts schema (items that are no message are left out)."""
    if not isinstance(value, list):
        return []
    return [
        chat_completions_message(role, item)
        for item in value
        if isinstance(item, dict) and isinstance(role := item.get("role"), str)
    ]


CHAT_TOOL_CALLS: Final = "tool_calls"
CHAT_TOOL_CALL_ID: Final = "tool_call_id"
MAX_CHAT_CALLS: Final = 1000
"""Most entries of a message's ``tool_calls`` read as parts."""


def with_chat_completions_fields(
    message: dict[str, Decoded], parts: list[dict[str, Decoded]]
) -> list[dict[str, Decoded]]:
    """The parts of a parts-schema message that also keeps the Chat Completions message's own fields (LiteLLM's
    OpenTelemetry integration: an assistant message's ``tool_calls`` beside its parts, a tool message's
    ``tool_call_id`` beside its text part), with those fields as the parts the schema gives them when no part already
    says the same: the calls as tool-call parts; the tool message's text as the response of its call id."""
    types = {part.get(genai.PART_TYPE) for part in parts}
    if genai.PART_TOOL_CALL not in types:
        calls = message.get(CHAT_TOOL_CALLS)
        parts = parts + chat_completions_tool_calls(calls[:MAX_CHAT_CALLS] if isinstance(calls, list) else calls)
    call_id = message.get(CHAT_TOOL_CALL_ID)
    if (message.get("role") == "tool" and isinstance(call_id, str) and call_id
            and genai.PART_TOOL_CALL_RESPONSE not in types):
        texts = [part.get("content") for part in parts if part.get(genai.PART_TYPE) == genai.PART_TEXT]
        rest = [part for part in parts if part.get(genai.PART_TYPE) != genai.PART_TEXT]
        response = "".join(text for text in texts if isinstance(text, str))
        parts = [tool_result_part(call_id, response), *rest]
    return parts
