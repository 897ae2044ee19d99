"""LangChain ``ToolMessage`` records as instrumentations dump them into a tool span's output: the call id they carry.

LangGraph's ``ToolNode`` returns a ``ToolMessage`` whose ``tool_call_id`` is the model's call id. Instrumentations
record it in one of LangChain's forms: the message's own fields, its serialised constructor form
(``{"lc": 1, "type": "constructor", "id": [..., "ToolMessage"], "kwargs": {...}}``) or its dict form
(``message_to_dict``: ``{"type": "tool", "data": {...}}``); OpenLLMetry wraps the run's output once more as
``{"output": <message>, "kwargs": {...}}`` (observed in ``opentelemetry-instrumentation-langchain`` 0.62.4).

A tool run's input reaches callbacks as LangChain's ``input_str``: ``str(tool_input)``, so a dict input is its Python
text (``{'city': 'Paris'}``) and a single-input tool's input the bare string. Instrumentations that record it as
it came (OpenLIT's ``gen_ai.tool.call.arguments``) are read with :func:`tool_input_arguments`.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.messages import arguments_text, python_literal
from otel_mapper.mapping.parts_messages import chat_completions_calls
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import MAX_TEXT, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openinference as oi

__all__ = ["MAX_TOOL_MESSAGE", "chat_completions_calls", "tool_input_arguments", "tool_message_call_id"]

MAX_TOOL_MESSAGE: Final = 64 * 1024
"""Longest tool output read for a call id (characters); a longer one is not parsed."""

_ENVELOPES: Final = (oi.LANGCHAIN_SERIALIZED_KWARGS, oi.LANGCHAIN_MESSAGE_DATA)


def tool_message_call_id(message: Decoded) -> str | None:
    """The ``tool_call_id`` of a decoded ``ToolMessage`` in any of LangChain's forms, else ``None``."""
    if not isinstance(message, dict):
        return None
    for envelope in _ENVELOPES:
        inner = message.get(envelope)
        if isinstance(inner, dict):
            message = inner
            break
    call_id = message.get(oi.LANGCHAIN_TOOL_CALL_ID)
    return clean_name(call_id) if isinstance(call_id, str) else None


def tool_input_arguments(raw: str) -> tuple[str | None, bool]:
    """(argument text, recorded as JSON) of a LangChain tool input as recorded: JSON text, or a dict's Python text
    (``input_str``) read as a literal (never executed), becomes canonical JSON; any other text (a JSON string
    decoded) is a single-input tool's plain input, which claims no JSON (``invalid_tool_arguments`` does not judge
    it)."""
    parsed = parse_json_text(raw)
    if isinstance(parsed, (dict, list)):
        return arguments_text(parsed), True
    if raw.lstrip()[:1] in ("{", "["):
        literal = python_literal(raw)
        if isinstance(literal, (dict, list)):
            return arguments_text(literal), True
    text = parsed if isinstance(parsed, str) else raw
    return text[:MAX_TEXT], False
