"""Whether any convention reader could claim a span, decided on its serialized bytes without parsing it.

Every reader claims a span only for a marker attribute key it names (``marker_keys``) or for its
instrumentation scope (``marker_scopes``). An attribute key is encoded in the span's bytes as its UTF-8 text and a
scope name in the scope's bytes, so a span whose bytes contain none of the keys, under a scope whose bytes contain
none of the scope names, is claimed by no reader: it would map to an ``other`` node and nothing else. The test is
conservative: a key that appears inside a value makes the span look recognisable (it is then analysed, at the
usual cost), never the other way round. A reader that does not declare its markers makes every span look
recognisable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from otel_mapper.mapping.facts import ConventionReader
from otel_mapper.mapping.readers import FallbackReader, default_readers

__all__ = ["SpanRecogniser"]


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
            reader_scopes = getattr(reader, "marker_scopes", frozenset())
            if reader_keys is None:
                self._always = True
                continue
            keys.update(reader_keys)
            scopes.update(reader_scopes)
        self._keys = _alternation(keys)
        self._scopes = _alternation(scopes)

    def may_claim(self, span: bytes, scope: bytes) -> bool:
        if self._always:
            return True
        if self._keys is not None and self._keys.search(span) is not None:
            return True
        return self._scopes is not None and self._scopes.search(scope) is not None


def _alternation(needles: set[str]) -> re.Pattern[bytes] | None:
    if not needles:
        return None
    # Longest first, so a key that contains another is still tried (the search only needs any match).
    ordered = sorted((needle.encode() for needle in needles), key=lambda needle: (-len(needle), needle))
    return re.compile(b"|".join(re.escape(needle) for needle in ordered))
