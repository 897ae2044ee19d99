"""Amazon Bedrock Converse API requests and responses, as an instrumentation records a ``converse`` call whole (its
keyword arguments in, the response out), read as a model call's messages in the GenAI parts schema.

A request's ``messages`` are ``{"role", "content": [blocks]}``; its system prompt is the request's ``system`` (text
blocks), read as a system message ahead of them. Blocks: ``{"text"}`` a text part, ``{"toolUse"}`` a tool-call part
(``toolUseId``, ``name``, ``input``: the call's id and arguments), ``{"toolResult"}`` (in a user message) a tool-result
part of its ``toolUseId``, the result the text of its ``{"text"}`` items (or the one ``{"json"}`` value it holds). The
response's ``output.message`` is one assistant message of the same blocks. A block of another kind (images, reasoning)
is left out on both sides, so a response and the same message replayed in a later request digest alike.
"""

from __future__ import annotations

from typing import Final, cast

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.input_messages import fill_converted_inputs
from otel_mapper.mapping.messages import MAX_MESSAGES, read_output_messages
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.otlp.anyvalue import Decoded
from semconv import bedrock as br
from semconv import strands as blocks

__all__ = ["converse_message", "fill_converse_messages"]

MAX_BLOCKS: Final = 1_000
"""Content blocks read per message (and items per result or system prompt)."""


def fill_converse_messages(facts: SpanFacts, request: Decoded, response: Decoded) -> None:
    """A model call's proposals, consumed results and message digests from a ``converse`` call's keyword arguments and
    its response; a side of another shape (a failed call's missing response) is left as it is."""
    output = response.get(br.RESPONSE_OUTPUT) if isinstance(response, dict) else None
    message = output.get(br.OUTPUT_MESSAGE) if isinstance(output, dict) else None
    if isinstance(message, dict) and facts.proposals is None:
        facts.proposals, facts.messages.outputs = read_output_messages(cast(Decoded, [converse_message(message)]))
    messages = request.get(br.REQUEST_MESSAGES) if isinstance(request, dict) else None
    if not isinstance(messages, list) or facts.input_content_captured:
        return
    system = _texts(request.get(br.REQUEST_SYSTEM)) if isinstance(request, dict) else None
    fill_converted_inputs(facts, system, messages, converse_message, MAX_MESSAGES)


def converse_message(message: dict[str, Decoded]) -> dict[str, Decoded]:
    """A Converse message (a request's, or a response's output message) in the GenAI parts schema."""
    content = message.get(br.CONTENT)
    parts: list[dict[str, Decoded]] = []
    for block in content[:MAX_BLOCKS] if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        use = block.get(blocks.BLOCK_TOOL_USE)
        result = block.get(blocks.BLOCK_TOOL_RESULT)
        if isinstance(text := block.get(blocks.BLOCK_TEXT), str):
            parts.append(text_part(text))
        elif isinstance(use, dict):
            parts.append(tool_call_part(_call_id(use), use.get(blocks.TOOL_USE_NAME), use.get(blocks.TOOL_USE_INPUT)))
        elif isinstance(result, dict):
            items = result.get(blocks.TOOL_RESULT_CONTENT)
            result_text = _texts(items)
            parts.append(tool_result_part(_call_id(result), result_text if result_text is not None else _json(items)))
    return parts_message(message.get(br.ROLE), parts)


def _call_id(block: dict[str, Decoded]) -> str | None:
    call_id = block.get(blocks.TOOL_USE_ID)
    return call_id if isinstance(call_id, str) else None


def _texts(value: Decoded) -> str | None:
    """The joined text of a list of ``{"text"}`` items (a system prompt, a tool result); ``None`` when it holds none."""
    if not isinstance(value, list):
        return None
    texts = [item.get(blocks.BLOCK_TEXT) for item in value[:MAX_BLOCKS] if isinstance(item, dict)]
    found = [text for text in texts if isinstance(text, str)]
    return "".join(found) if found else None


def _json(value: Decoded) -> Decoded:
    """The value of a result's one ``{"json"}`` item, else ``None``."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict) and br.BLOCK_JSON in value[0]:
        return value[0][br.BLOCK_JSON]
    return None
