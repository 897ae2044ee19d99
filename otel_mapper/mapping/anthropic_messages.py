"""Anthropic Messages API requests and responses, as an instrumentation records a ``messages.create`` call whole (its
keyword arguments in, the response ``Message`` out), read as a model call's messages in the GenAI parts schema.

A request's ``messages`` are ``{"role", "content"}`` with content a string or a list of blocks; its system prompt is the
request's ``system`` (a string or text blocks), read as a system message ahead of them. Blocks: ``text`` a text part,
``tool_use`` a tool-call part (``id``, ``name``, ``input``: the call's id and arguments), ``tool_result`` (in a user
message) a tool-result part of its ``tool_use_id``, the result a string or the text of its text blocks. The response is
one assistant message of the same blocks. A block of another type (``thinking``, images) is left out on both sides, so
a response and the same message replayed in a later request digest alike.
"""

from __future__ import annotations

from typing import Final, cast

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.input_messages import fill_converted_inputs
from otel_mapper.mapping.messages import MAX_MESSAGES, read_output_messages
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.spans import MAX_NAME
from otel_mapper.otlp.anyvalue import Decoded
from semconv import anthropic as an

__all__ = ["anthropic_message", "fill_anthropic_messages"]

MAX_BLOCKS: Final = 1_000
"""Content blocks read per message (and text blocks per result or system prompt)."""


def fill_anthropic_messages(facts: SpanFacts, request: Decoded, response: Decoded) -> None:
    """A model call's proposals, consumed results and message digests from a ``messages.create`` call's keyword
    arguments and its response ``Message``; a side of another shape (a failed call's ``null`` response) is left as it
    is."""
    if isinstance(response, dict) and response.get(an.MESSAGE_TYPE) == an.MESSAGE_TYPE_VALUE and facts.proposals is None:
        facts.proposals, facts.messages.outputs = read_output_messages(cast(Decoded, [anthropic_message(response)]))
        response_id = response.get(an.RESPONSE_ID)
        if isinstance(response_id, str) and facts.response_id is None:
            facts.response_id = response_id[:MAX_NAME]
    messages = request.get(an.REQUEST_MESSAGES) if isinstance(request, dict) else None
    if not isinstance(messages, list) or facts.input_content_captured:
        return
    system = _texts(request.get(an.REQUEST_SYSTEM)) if isinstance(request, dict) else None
    fill_converted_inputs(facts, system, messages, anthropic_message, MAX_MESSAGES)


def anthropic_message(message: dict[str, Decoded]) -> dict[str, Decoded]:
    """A Messages API message (or response) in the GenAI parts schema."""
    content = message.get(an.CONTENT)
    parts: list[dict[str, Decoded]] = []
    if isinstance(content, str):
        parts.append(text_part(content))
    for block in content[:MAX_BLOCKS] if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        block_type = block.get(an.MESSAGE_TYPE)
        if block_type == an.BLOCK_TEXT and isinstance(text := block.get(an.BLOCK_TEXT), str):
            parts.append(text_part(text))
        elif block_type == an.BLOCK_TOOL_USE:
            call_id = block.get(an.BLOCK_ID)
            parts.append(tool_call_part(call_id if isinstance(call_id, str) else None, block.get(an.BLOCK_NAME),
                                        block.get(an.BLOCK_INPUT)))
        elif block_type == an.BLOCK_TOOL_RESULT:
            call_id = block.get(an.BLOCK_TOOL_USE_ID)
            result = block.get(an.BLOCK_CONTENT)
            parts.append(tool_result_part(call_id if isinstance(call_id, str) else None,
                                          result if isinstance(result, str) else _texts(result)))
    return parts_message(message.get(an.ROLE), parts)


def _texts(value: Decoded) -> str | None:
    """A string, or the joined text of a list of text blocks (a system prompt, a tool result); else ``None``."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    texts = [block.get(an.BLOCK_TEXT) for block in value[:MAX_BLOCKS]
             if isinstance(block, dict) and block.get(an.MESSAGE_TYPE) == an.BLOCK_TEXT]
    return "".join(text for text in texts if isinstance(text, str)) if texts else None
