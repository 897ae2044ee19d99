"""Model calls that finished with reason ``error`` and recorded no error: the error of the run they ended.

Mastra (``@mastra/otel-exporter`` 1.4, :mod:`otel_mapper.mapping.readers.mastra`) ends a call whose request failed
(an HTTP 5xx, a timeout) with ``gen_ai.response.finish_reasons`` ``["error"]`` and an OK status, and records the error
only where it escaped: on the agent run it ended (status ERROR, ``error.message``, an ``exception`` event). Such a call
is read as failed by its reader; here it takes the error of its nearest failed ancestor (at most
:data:`MAX_ANCESTORS` parent links up), so that what failed it (a timeout, a rate limit, a server error) is known. A
call that recorded an error of its own, or has no failed ancestor, is left as it is. Parent links only.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts
from semconv.mastra import ERROR_FINISH_REASON

__all__ = ["settle_error_finishes"]

MAX_ANCESTORS: Final = 16
"""Parent links followed up from a call (run -> loop -> step -> call is three)."""


def settle_error_finishes(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    for entry in entries:
        facts = entry.facts
        if (
            not entry.primary
            or facts.kind is not MODEL_CALL
            or not facts.failed
            or ERROR_FINISH_REASON not in facts.finish_reasons
            or facts.error_type is not None
            or facts.error_message is not None
        ):
            continue
        source = _failed_ancestor(entry, by_span_id)
        if source is None:
            continue
        facts = entry.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
        facts.error_type = source.facts.error_type
        facts.error_message = source.facts.error_message


def _failed_ancestor(entry: SpanEntry, by_span_id: dict[str, SpanEntry]) -> SpanEntry | None:
    current = entry
    for _ in range(MAX_ANCESTORS):
        parent = by_span_id.get(current.view.parent_span_id or "")
        if parent is None or parent is current:
            return None
        if parent.facts.failed and (parent.facts.error_type is not None or parent.facts.error_message is not None):
            return parent
        current = parent
    return None
