"""Convention readers, in classification priority order (conventions.md section 13.1).

The first reader whose ``claims`` is true reads the span. A span no reader claims becomes an ``other`` node
(kept for its parent edges).
"""

from __future__ import annotations

from otel_mapper.facts import ConventionReader, SpanFacts
from otel_mapper.readers.common import read_error
from otel_mapper.readers.genai import GenAIReader
from otel_mapper.spans import SpanView
from semconv.trajectory import NodeKind

__all__ = ["FallbackReader", "default_readers"]


class FallbackReader:
    """Spans of no known convention: ``other`` nodes with their errors."""

    name = "unknown"

    def claims(self, view: SpanView) -> bool:
        return True

    def read(self, view: SpanView) -> SpanFacts:
        facts = SpanFacts(kind=NodeKind.OTHER, convention=self.name, name=view.name)
        error = read_error(view)
        facts.failed = error.failed
        facts.error_type = error.error_type
        facts.error_message = error.error_message
        facts.http_status = error.http_status
        return facts


def default_readers() -> tuple[ConventionReader, ...]:
    """Readers in priority order; the fallback is always last."""
    return (GenAIReader(), FallbackReader())
