"""Tool calls of a model answer that an OpenInference LLM span records only in its ``output.value``, as a chat
completion's body, while its flattened ``llm.output_messages`` keep the message without them.

``openinference-instrumentation-portkey`` 0.1.22 (``_ResponseAttributesExtractor``) flattens each choice's message by
its role, content and legacy ``function_call`` alone: an answer's ``tool_calls`` are not flattened, so the output
message of an answer that calls tools holds its role only. The response, calls and ids included, is the span's
``output.value`` (``application/json``): ``{"choices": [{"index": N, "message": {"role", "content", "tool_calls":
[{"id", "function": {"name", "arguments"}}]}}]}``. The flattened output message ``N`` is choice ``N``'s message (the
extractor writes it under the choice's ``index``), so its calls are taken from that choice, when the two agree on the
role (and on the text, when both have one). Flattened messages that already carry calls are left as they are
(:mod:`otel_mapper.mapping.readers.langchain_io` fills their missing ids).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.readers.common import clean_name, json_content
from otel_mapper.mapping.readers.openinference_messages import MAX_INDEX, FlatMessage
from otel_mapper.mapping.spans import MAX_TEXT, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openinference as oi

__all__ = ["fill_completion_calls"]

MAX_BODY: Final = 1024 * 1024
"""Longest ``output.value`` parsed for calls (characters); a longer one is not read."""
MAX_CHOICES: Final = 64
"""Most choices of one body read."""

_CHOICES: Final = "choices"
_CHOICE_INDEX: Final = "index"
_MESSAGE: Final = "message"
_ROLE: Final = "role"
_CONTENT: Final = "content"
_TOOL_CALLS: Final = "tool_calls"
_CALL_ID: Final = "id"
_FUNCTION: Final = "function"
_FUNCTION_NAME: Final = "name"
_FUNCTION_ARGUMENTS: Final = "arguments"


def fill_completion_calls(view: SpanView, outputs: dict[int, FlatMessage] | None) -> None:
    """Give the flattened output messages the tool calls of their choice in the span's chat completion body, when none
    of them carries a call."""
    if not outputs or any(message.calls for message in outputs.values()):
        return
    if view.str_attr(oi.OUTPUT_MIME_TYPE) != oi.MIME_JSON:
        return
    text = view.str_attr(oi.OUTPUT_VALUE, limit=MAX_BODY + 1)
    if text is None or len(text) > MAX_BODY or _TOOL_CALLS not in text:
        return  # cheap: an answer without calls is not parsed
    body = json_content(view, oi.OUTPUT_VALUE, limit=MAX_BODY)
    choices = body.get(_CHOICES) if isinstance(body, dict) else None
    if not isinstance(choices, list):
        return
    for choice in choices[:MAX_CHOICES]:
        if not isinstance(choice, dict):
            continue
        index, message = choice.get(_CHOICE_INDEX), choice.get(_MESSAGE)
        if not isinstance(index, int) or isinstance(index, bool) or not isinstance(message, dict):
            continue
        flat = outputs.get(index)
        if flat is None or not _same_message(flat, message):
            continue
        calls = message.get(_TOOL_CALLS)
        if not isinstance(calls, list):
            continue
        for position, call in enumerate(calls[:MAX_INDEX]):
            read = _call(call)
            if read is not None:
                flat.calls[position] = read


def _same_message(flat: FlatMessage, message: dict[str, Decoded]) -> bool:
    """Whether the flattened message is this choice's: the same role, and the same text when both record one."""
    role = message.get(_ROLE)
    if not isinstance(role, str) or flat.fields.get(oi.MESSAGE_ROLE) != role:
        return False
    flat_text, content = flat.fields.get(oi.MESSAGE_CONTENT), message.get(_CONTENT)
    return not (flat_text and isinstance(content, str) and content and flat_text != content)


def _call(call: Decoded) -> dict[str, str | None] | None:
    if not isinstance(call, dict):
        return None
    function = call.get(_FUNCTION)
    if not isinstance(function, dict):
        return None
    name, arguments, call_id = function.get(_FUNCTION_NAME), function.get(_FUNCTION_ARGUMENTS), call.get(_CALL_ID)
    name = clean_name(name) if isinstance(name, str) else None
    if name is None:
        return None
    return {
        oi.TOOL_CALL_ID_SUFFIX: clean_name(call_id) if isinstance(call_id, str) else None,
        oi.TOOL_CALL_NAME_SUFFIX: name,
        oi.TOOL_CALL_ARGUMENTS_SUFFIX: arguments[:MAX_TEXT] if isinstance(arguments, str) and arguments else None,
    }
