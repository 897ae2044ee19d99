"""LangChain ``ToolMessage`` records as instrumentations dump them into a tool span's output: the call id they carry.

LangGraph's ``ToolNode`` returns a ``ToolMessage`` whose ``tool_call_id`` is the model's call id. Instrumentations
record it in one of LangChain's forms: the message's own fields, its serialised constructor form
(``{"lc": 1, "type": "constructor", "id": [..., "ToolMessage"], "kwargs": {...}}``) or its dict form
(``message_to_dict``: ``{"type": "tool", "data": {...}}``); OpenLLMetry wraps the run's output once more as
``{"output": <message>, "kwargs": {...}}`` (observed in ``opentelemetry-instrumentation-langchain`` 0.62.4).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openinference as oi

__all__ = ["MAX_TOOL_MESSAGE", "tool_message_call_id"]

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
