"""OpenInference's flattened messages (``llm.{input,output}_messages.N.message.*``) regrouped per message: tool calls,
multimodal text items, and digests in the GenAI parts shape (the same message digests the same in every
convention)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.messages import (
    arguments_text,
    message_digest,
    parts_message,
    text_part,
    tool_call_part,
    tool_result_part,
)
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openinference as oi

__all__ = ["FlatMessage", "calls_of", "group_messages", "message_digest_of"]

MAX_INDEX: Final = 10_000
_TOOL_CALL_KEY = re.compile(r"^message\.tool_calls\.(\d+)\.(tool_call\.(?:id|function\.name|function\.arguments))$")


@dataclass(slots=True)
class FlatMessage:
    """One ``llm.{input,output}_messages.N`` message regrouped from its flattened keys."""

    fields: dict[str, str | None] = field(default_factory=dict)
    """Role, content, tool call id and name, by their key suffix."""
    calls: dict[int, dict[str, str | None]] = field(default_factory=dict)
    """Tool calls by index: id, name and arguments by their key suffix."""
    texts: dict[int, str] = field(default_factory=dict)
    """Text items of a multimodal content list (``message.contents.K.message_content.text``) by index."""


def group_messages(
    view: SpanView,
) -> tuple[dict[int, FlatMessage] | None, dict[int, FlatMessage] | None, list[str]]:
    """Flattened ``llm.{input,output}_messages.N.message.*`` regrouped per message (one pass over the keys)."""
    inputs: dict[int, FlatMessage] | None = None
    outputs: dict[int, FlatMessage] | None = None
    tools: list[str] = []
    for key in view.attrs:
        if not key.startswith(oi.LLM_PREFIX):
            continue
        if key.startswith(oi.LLM_INPUT_MESSAGES):
            inputs = {} if inputs is None else inputs
            _add_message_field(view, key, key[len(oi.LLM_INPUT_MESSAGES):], inputs)
        elif key.startswith(oi.LLM_OUTPUT_MESSAGES):
            outputs = {} if outputs is None else outputs
            _add_message_field(view, key, key[len(oi.LLM_OUTPUT_MESSAGES):], outputs)
        elif key.startswith(oi.LLM_TOOLS) and key.endswith(oi.TOOL_JSON_SCHEMA_SUFFIX) and len(tools) < 1024:
            text = view.text_attr(key)
            if text:
                tools.append(text)
    return inputs, outputs, tools


def _add_message_field(view: SpanView, key: str, rest: str, messages: dict[int, FlatMessage]) -> None:
    index_text, _, name = rest.partition(".")
    if not index_text.isdigit() or int(index_text) >= MAX_INDEX:
        return
    message = messages.get(int(index_text))
    if message is None:
        message = messages[int(index_text)] = FlatMessage()
    if name in (oi.MESSAGE_ROLE, oi.MESSAGE_TOOL_CALL_ID, oi.MESSAGE_NAME):
        message.fields[name] = view.str_attr(key)
    elif name == oi.MESSAGE_CONTENT:
        message.fields[name] = view.text_attr(key)
    elif name.startswith(oi.MESSAGE_CONTENTS_PREFIX) and name.endswith(oi.MESSAGE_CONTENT_TEXT_SUFFIX):
        index_text = name[len(oi.MESSAGE_CONTENTS_PREFIX):].partition(".")[0]
        text = view.text_attr(key)
        if index_text.isdigit() and int(index_text) < MAX_INDEX and text is not None:
            message.texts[int(index_text)] = text
    else:
        match = _TOOL_CALL_KEY.match(name)
        if match and int(match.group(1)) < MAX_INDEX:
            call = message.calls.setdefault(int(match.group(1)), {})
            call[match.group(2)] = view.text_attr(key)


def calls_of(message: FlatMessage) -> list[ToolCallFact]:
    return [
        ToolCallFact(
            call_id=clean_name(call.get(oi.TOOL_CALL_ID_SUFFIX)),
            name=clean_name(call.get(oi.TOOL_CALL_NAME_SUFFIX)) or "",
            arguments=arguments_text(call.get(oi.TOOL_CALL_ARGUMENTS_SUFFIX)),
        )
        for call in message.calls.values()
    ]


def message_digest_of(message: FlatMessage) -> str:
    """Digest of the message in GenAI parts shape: the same message digests the same in every convention."""
    parts: list[dict[str, Decoded]] = []
    role = message.fields.get(oi.MESSAGE_ROLE)
    content = message.fields.get(oi.MESSAGE_CONTENT)
    call_id = message.fields.get(oi.MESSAGE_TOOL_CALL_ID)
    if call_id:
        parts.append(tool_result_part(call_id, content))
    elif isinstance(content, str) and content:
        parts.append(text_part(content))
    parts.extend(text_part(message.texts[position]) for position in sorted(message.texts))
    calls = message.calls
    for position in sorted(calls):
        call = calls[position]
        parts.append(
            tool_call_part(
                call.get(oi.TOOL_CALL_ID_SUFFIX), call.get(oi.TOOL_CALL_NAME_SUFFIX), call.get(oi.TOOL_CALL_ARGUMENTS_SUFFIX)
            )
        )
    return message_digest(parts_message(role, parts))
