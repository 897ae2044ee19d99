"""Spans made fit for a dataset: our own annotations removed, every string scrubbed of secrets, and the content
attributes of the conventions we read reduced to the dataset's content mode.

``keep``: content stays (scrubbed). ``digest``: a content value becomes ``sha256:<hex>`` of its scrubbed text
(identical arguments keep identical digests, so repeats are still visible). ``drop``: it becomes the marker
``[REDACTED:content]``. Only the attribute keys listed in :data:`CONTENT_KEYS` and :data:`CONTENT_PREFIXES` are
content; everything else (names, ids, usage, status, errors) stays, scrubbed. Iterative over ``AnyValue`` trees.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.annotate import strip_annotations
from otel_mapper.bundle.canonical import digest_text
from otel_mapper.bundle.redact import ContentMode, scrub
from semconv import genai, openinference, openllmetry, pydantic_ai, vercel

__all__ = ["CONTENT_KEYS", "CONTENT_PREFIXES", "redact_span", "scrub_attributes"]

CONTENT_KEYS: Final = frozenset(
    {
        genai.INPUT_MESSAGES,
        genai.OUTPUT_MESSAGES,
        genai.SYSTEM_INSTRUCTIONS,
        genai.TOOL_CALL_ARGUMENTS,
        genai.TOOL_CALL_RESULT,
        openinference.INPUT_VALUE,
        openinference.OUTPUT_VALUE,
        openllmetry.ENTITY_INPUT,
        openllmetry.ENTITY_OUTPUT,
        pydantic_ai.ALL_MESSAGES,
        pydantic_ai.TOOL_ARGUMENTS_V2,
        vercel.RESPONSE_TEXT,
        vercel.RESPONSE_TOOL_CALLS,
        vercel.PROMPT,
        vercel.PROMPT_MESSAGES,
        *vercel.TOOL_CALL_ARGS,
        *vercel.TOOL_CALL_RESULT,
    }
)
CONTENT_PREFIXES: Final = (
    genai.LEGACY_PROMPT_PREFIX,
    genai.LEGACY_COMPLETION_PREFIX,
    openinference.LLM_INPUT_MESSAGES,
    openinference.LLM_OUTPUT_MESSAGES,
)
DROPPED_MARKER: Final = "[REDACTED:content]"
MAX_VALUES: Final = 1_000_000
"""AnyValue nodes visited per span at most (the decoder bounds nesting; this bounds breadth)."""


def _is_content(key: str) -> bool:
    return key in CONTENT_KEYS or key.startswith(CONTENT_PREFIXES)


def _scrub_value(root: AnyValue) -> None:
    stack = [root]
    visited = 0
    while stack and visited < MAX_VALUES:
        value = stack.pop()
        visited += 1
        which = value.WhichOneof("value")
        if which == "string_value":
            cleaned = scrub(value.string_value)
            if cleaned != value.string_value:
                value.string_value = cleaned
        elif which == "array_value":
            stack.extend(value.array_value.values)
        elif which == "kvlist_value":
            for item in value.kvlist_value.values:
                item.key = scrub(item.key)
                stack.append(item.value)
        elif which == "bytes_value":
            value.string_value = "[REDACTED:bytes]"  # opaque bytes cannot be scrubbed: never kept


def _reduce(value: AnyValue, mode: ContentMode) -> None:
    if mode == "keep":
        return
    if mode == "digest":
        text = value.string_value if value.WhichOneof("value") == "string_value" else value.SerializeToString()
        value.string_value = digest_text(text if isinstance(text, str) else text.hex())
    else:
        value.string_value = DROPPED_MARKER


def _attributes(attributes: Iterable[KeyValue], mode: ContentMode) -> None:
    for item in attributes:
        item.key = scrub(item.key)
        _scrub_value(item.value)
        if _is_content(item.key):
            _reduce(item.value, mode)


def redact_span(span: Span, mode: ContentMode) -> None:
    """In place: annotations removed, strings scrubbed, content reduced to ``mode``."""
    strip_annotations(span)
    span.name = scrub(span.name)
    span.status.message = scrub(span.status.message)
    span.trace_state = scrub(span.trace_state)
    _attributes(span.attributes, mode)
    for event in span.events:
        event.name = scrub(event.name)
        _attributes(event.attributes, mode)
    for link in span.links:
        link.trace_state = scrub(link.trace_state)
        _attributes(link.attributes, mode)


def scrub_attributes(attributes: Iterable[KeyValue]) -> None:
    """Resource and scope attributes: scrubbed, never reduced (they describe the service, not the content)."""
    _attributes(attributes, "keep")
