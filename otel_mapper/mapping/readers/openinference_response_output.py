"""A model call's output recorded as an OpenAI Responses API response object in ``output.value``, with no flattened
``llm.output_messages``: read as the one assistant message the flattened keys would have held.

The OpenAI Agents SDK (0.24.0) assembles a streamed Chat Completions answer into a ``Response`` and sets its generation
span's output to ``[response.model_dump()]`` (an unstreamed call's is the chat message); OpenInference's Agents SDK
instrumentation (2.6.0) writes that list as ``output.value`` and, finding no ``role`` in it, no output message. The
response's ``output`` items are the answer: its ``message`` items' ``output_text`` and its ``function_call`` items, one
Chat Completions assistant message split into items, which the SDK merges back into one assistant message when it
replays them in the next request. So the items of one response are read as one assistant message: its text and its
calls (with their ids), in item order, digesting as the replayed message does.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.messages import ASSISTANT_ROLE
from otel_mapper.mapping.readers.common import json_content
from otel_mapper.mapping.readers.openinference_messages import MAX_INDEX, FlatMessage
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openai_agents as sdk
from semconv import openinference as oi

__all__ = ["response_output_messages"]

MAX_RESPONSES: Final = 16
"""Response objects read from one ``output.value`` list (the SDK writes one per generation span)."""


def response_output_messages(view: SpanView) -> dict[int, FlatMessage] | None:
    """The output messages of an LLM span whose ``output.value`` is a response object, or a list of them, read as one
    assistant message each; ``None`` when the span records output messages or its output is not such an object."""
    if view.str_attr(oi.OUTPUT_MIME_TYPE) != oi.MIME_JSON:
        return None
    value = json_content(view, oi.OUTPUT_VALUE)
    responses = value if isinstance(value, list) else [value]
    messages: dict[int, FlatMessage] = {}
    for response in responses[:MAX_RESPONSES]:
        message = _response_message(response)
        if message is None:
            return None  # not a list of response objects: an app's own JSON
        messages[len(messages)] = message
    return messages or None


def _response_message(response: Decoded) -> FlatMessage | None:
    if not isinstance(response, dict) or response.get(sdk.RESPONSE_OBJECT) != sdk.RESPONSE_OBJECT_VALUE:
        return None
    items = response.get(sdk.RESPONSE_OUTPUT)
    if not isinstance(items, list):
        return None
    message = FlatMessage(fields={oi.MESSAGE_ROLE: ASSISTANT_ROLE})
    texts: list[str] = []
    for item in items[:MAX_INDEX]:
        if not isinstance(item, dict):
            continue
        item_type = item.get(sdk.RESPONSE_ITEM_TYPE)
        if item_type == sdk.RESPONSE_ITEM_MESSAGE:
            texts.extend(_output_texts(item.get(sdk.RESPONSE_ITEM_CONTENT)))
        elif item_type == sdk.RESPONSE_ITEM_FUNCTION_CALL:
            message.calls[len(message.calls)] = _call(item)
    if texts:
        message.fields[oi.MESSAGE_CONTENT] = "".join(texts)
    return message


def _output_texts(content: Decoded) -> list[str]:
    if not isinstance(content, list):
        return []
    return [
        text
        for block in content[:MAX_INDEX]
        if isinstance(block, dict)
        and block.get(sdk.RESPONSE_ITEM_TYPE) == sdk.RESPONSE_TEXT_TYPE
        and isinstance(text := block.get(sdk.RESPONSE_TEXT), str)
    ]


def _call(item: dict[str, Decoded]) -> dict[str, str | None]:
    def text(key: str) -> str | None:
        value = item.get(key)
        return value if isinstance(value, str) and value else None

    arguments = text(sdk.RESPONSE_CALL_ARGUMENTS)
    return {
        oi.TOOL_CALL_ID_SUFFIX: text(sdk.RESPONSE_CALL_ID),
        oi.TOOL_CALL_NAME_SUFFIX: text(sdk.RESPONSE_CALL_NAME),
        oi.TOOL_CALL_ARGUMENTS_SUFFIX: None if arguments == sdk.EMPTY_ARGUMENTS else arguments,
    }
