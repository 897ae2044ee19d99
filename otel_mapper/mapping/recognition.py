"""Whether any convention reader could claim a span, decided on its serialized bytes without parsing it.

Every reader claims a span only for a marker attribute key it names (``marker_keys``) or for its
instrumentation scope (``marker_scopes``). An attribute key is encoded in the span's bytes as its UTF-8 text and a
scope name in the scope's bytes, so a span whose bytes contain none of the keys, under a scope whose bytes contain
none of the scope names, is claimed by no reader: it would map to an ``other`` node and nothing else. The test is
conservative: a key that appears inside a value makes the span look recognisable (it is then analysed, at the
usual cost), never the other way round. A reader that does not declare its markers makes every span look
recognisable.

The bytes are searched for short needles, each a substring of some markers (the marker's namespace, ``gen_ai.``,
``traceloop.``...), so that every marker contains a needle: a span without any needle holds no marker. A dozen
needles in one alternation cost about half of an alternation of the fifty-odd markers (and a loop of substring
tests in Python costs more than either).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from otel_mapper.mapping.facts import ConventionReader
from otel_mapper.mapping.readers import FallbackReader, default_readers

__all__ = ["SpanRecogniser", "needles_for"]

MIN_NAMESPACE: Final = 4
"""``ai.`` (Vercel's ``ai.operationId``) is too common a substring to stand for its markers; ``llm.`` is not."""


class SpanRecogniser:
    """``may_claim(span_bytes, scope_bytes)``: ``False`` only when no reader of ``readers`` can claim the span."""

    def __init__(self, readers: Iterable[ConventionReader] | None = None) -> None:
        keys: set[str] = set()
        scopes: set[str] = set()
        self._always = False
        for reader in default_readers() if readers is None else readers:
            if isinstance(reader, FallbackReader):
                continue  # claims everything, as an ``other`` node: not a recognised span
            reader_keys = getattr(reader, "marker_keys", None)
            reader_scopes: frozenset[str] = getattr(reader, "marker_scopes", frozenset())
            if reader_keys is None:
                self._always = True
                continue
            keys.update(reader_keys)
            scopes.update(reader_scopes)
        self.key_needles = needles_for(keys)
        self.scope_needles = tuple(sorted(scope.encode() for scope in scopes))  # whole names: scopes share namespaces
        self._keys = re.compile(b"|".join(re.escape(needle) for needle in self.key_needles)) if self.key_needles else None

    def may_claim(self, span: bytes, scope: bytes) -> bool:
        return self.scope_may_claim(scope) or self.span_may_claim(span)

    def scope_may_claim(self, scope: bytes) -> bool:
        """Whether a reader may claim every span of this (serialized) instrumentation scope."""
        return self._always or any(needle in scope for needle in self.scope_needles)

    def span_may_claim(self, span: bytes) -> bool:
        """Whether a reader may claim this serialized span for its attributes (its scope aside)."""
        return self._always or (self._keys is not None and self._keys.search(span) is not None)

    @property
    def claims_all(self) -> bool:
        """A reader that does not declare its markers may claim any span."""
        return self._always

    def find_claim(self, data: bytes, start: int = 0) -> int:
        """Offset of the first needle in ``data`` at or after ``start`` (``-1``: none), the offset the alternation
        of :meth:`span_may_claim` would find; ``start`` itself when every span may be claimed. For the bytes of
        many spans at once: over kilobytes, one ``bytes.find`` per needle costs about a third of the alternation
        (which tries every needle at every offset)."""
        if self._always:
            return start
        first = -1
        for needle in self.key_needles:
            found = data.find(needle, start) if first < 0 else data.find(needle, start, first + len(needle) - 1)
            if found >= 0:
                first = found
        return first


def needles_for(markers: Iterable[str]) -> tuple[bytes, ...]:
    """Substrings such that every marker contains one: a marker's namespace (up to its first ``.``) when that is
    at least :data:`MIN_NAMESPACE` characters, else the whole marker; needles containing another are dropped."""
    candidates: set[bytes] = set()
    for marker in markers:
        namespace, dot, _ = marker.partition(".")
        candidates.add((namespace + dot if dot and len(namespace) + 1 >= MIN_NAMESPACE else marker).encode())
    return tuple(sorted(
        needle for needle in candidates if not any(other != needle and other in needle for other in candidates)
    ))
