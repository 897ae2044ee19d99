"""Missing call ids of an OpenInference LLM span's flattened output tool calls, from the Anthropic Messages API
response that the span records in ``output.value``.

``openinference-instrumentation-anthropic`` 0.1.x (0.1.20, the newest release that instruments the ``anthropic`` 0.73
that CrewAI's ``anthropic`` extra pins) flattens each ``tool_use`` block of a response, in block order, as output
message 0's tool calls ``0..n-1`` with their name and arguments but not their ``id`` (the flattened input messages
keep the ids of the calls a request replays); it records the whole response as ``output.value`` (``{"type":
"message", "content": [...]}``), ids included. So a flattened call without an id takes the id of the ``tool_use``
block at the same position among the response's ``tool_use`` blocks, when the two name the same tool; an id already
flattened is kept, and a value of another shape gives nothing.
"""

from __future__ import annotations

from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.langchain_io import MAX_RUN_IO
from otel_mapper.mapping.readers.openinference_messages import MAX_INDEX, FlatMessage
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import anthropic as an
from semconv import openinference as oi

__all__ = ["fill_anthropic_call_ids"]


def fill_anthropic_call_ids(view: SpanView, outputs: dict[int, FlatMessage] | None) -> None:
    """Fill the missing call ids of output message 0 from the Messages API response in the span's ``output.value``."""
    message = outputs.get(0) if outputs is not None and len(outputs) == 1 else None
    if message is None or not message.missing_call_ids() or view.str_attr(oi.OUTPUT_MIME_TYPE) != oi.MIME_JSON:
        return
    text = view.str_attr(oi.OUTPUT_VALUE, limit=MAX_RUN_IO + 1)
    if text is None or len(text) > MAX_RUN_IO or an.BLOCK_TOOL_USE not in text:
        return
    response = parse_json_text(text)
    if not isinstance(response, dict) or response.get(an.MESSAGE_TYPE) != an.MESSAGE_TYPE_VALUE:
        return
    message.fill_call_ids(_tool_uses(response.get(an.CONTENT)))


def _tool_uses(content: Decoded) -> list[tuple[str | None, str | None]]:
    """The response's ``tool_use`` blocks as (id, name), in block order."""
    found: list[tuple[str | None, str | None]] = []
    for block in content[:MAX_INDEX] if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get(an.MESSAGE_TYPE) == an.BLOCK_TOOL_USE:
            found.append((_text(block.get(an.BLOCK_ID)), _text(block.get(an.BLOCK_NAME))))
    return found


def _text(value: Decoded) -> str | None:
    return clean_name(value) if isinstance(value, str) else None
