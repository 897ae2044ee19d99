"""Whether any convention reader could claim a span, decided on its serialized bytes without parsing it.

Every reader claims a span only for a marker attribute key it names (``marker_keys``) or for its
instrumentation scope (``marker_scopes``). An attribute key is encoded in the span's bytes as its UTF-8 text and a
scope name in the scope's bytes, so a span whose bytes contain none of the keys, under a scope whose bytes contain
none of the scope names, is claimed by no reader: it would map to an ``other`` node and nothing else. The test is
conservative: a key that appears inside a value makes the span look recognisable (it is then analysed, at the
usual cost), never the other way round. A reader that does not declare its markers makes every span look
recognisable.

A reader may also claim spans for *companion* keys (``companion_keys``): keys its convention writes on every span,
agent work or not (Logfire's ``logfire.span_type``, set by its tracer on a web request's span as on an agent's).
They are not searched for: a trace whose spans hold nothing else is no agent's run and is not analysed, as if
Logfire were not there; in a trace with a marker, the reader claims those spans as before.

The bytes are searched for short needles, each a substring of some markers (the marker's namespace, ``gen_ai.``,
``traceloop.``...), so that every marker contains a needle: a span without any needle holds no marker. A dozen
needles in one alternation cost about half of an alternation of the fifty-odd markers (and a loop of substring
tests in Python costs more than either).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
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

    def pieces_with_needle(self, data: bytes, ends: Sequence[int]) -> set[int]:
        """Indexes of the pieces of ``data`` in which a needle of :meth:`span_may_claim` starts (piece ``i`` ends at
        ``ends[i]``, where the next begins; the last end is ``len(data)``); every piece when every span may be
        claimed. A needle that starts in one piece and ends in the next counts for the first only: the caller
        tests each piece found on its own bytes.

        For the bytes of many traces at once: one ``bytes.find`` per needle and run of pieces not found yet (over
        kilobytes, a third of the cost of the alternation, which tries every needle at every offset). A piece
        found by one needle is not searched for the others, so a batch of agent traces costs about one pass,
        and a batch of web traces one pass per needle, as many as the alternation would make in one."""
        if self._always:
            return set(range(len(ends)))
        found_in: set[int] = set()
        count = len(ends)
        for needle in self.key_needles:
            reach = len(needle) - 1
            piece = 0
            while piece < count:
                if piece in found_in:
                    piece += 1
                    continue
                last = piece if found_in else count - 1  # the run of pieces not found yet that starts here
                while last + 1 < count and last + 1 not in found_in:
                    last += 1
                start = ends[piece - 1] if piece else 0
                found = data.find(needle, start, ends[last] + reach)  # may end in the piece after the run
                if found < 0:
                    piece = last + 1
                    continue
                hit = bisect_right(ends, found, piece)
                found_in.add(hit)
                piece = hit + 1
        return found_in


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
