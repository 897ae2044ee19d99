"""Which spool entries still have spans (or log records) on their way to the export targets.

A spooled request is acknowledged to the spool only when every item it carried has been delivered to every
export target, or finally given up on. Items carry the entry id they arrived in (``SpanEnvelope.origin``).

Threading: a tracker belongs to the event loop thread that owns the pipeline state; it has no lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

__all__ = ["DeliveryTracker"]


class DeliveryTracker:
    """Counts undelivered items per spool entry and calls ``ack(entry_id)`` when an entry's count reaches zero.

    Memory is one dict slot per entry held by the spool, so it is bounded by the spool's own bound.
    """

    def __init__(self, ack: Callable[[int], None]) -> None:
        self._ack = ack
        self._remaining: dict[int, int] = {}

    @property
    def pending_entries(self) -> int:
        return len(self._remaining)

    def register(self, entry_id: int, spans: int) -> None:
        """Expect ``spans`` deliveries for ``entry_id`` (added to any already expected); 0 acknowledges at once."""
        if entry_id < 0:
            raise ValueError(f"spool entry ids are non-negative, got {entry_id}")
        remaining = self._remaining.get(entry_id, 0) + max(spans, 0)
        if remaining == 0:
            self._remaining.pop(entry_id, None)
            self._ack(entry_id)
            return
        self._remaining[entry_id] = remaining

    def delivered(self, origins: Iterable[int]) -> None:
        """One origin per delivered or finally given-up item. ``-1`` (not spooled) and unknown entries are
        ignored, so delivering an item twice (a retried export, a replay after restart) is harmless."""
        for entry_id, count in Counter(origins).items():
            remaining = self._remaining.get(entry_id)
            if remaining is None:
                continue
            if remaining > count:
                self._remaining[entry_id] = remaining - count
            else:
                del self._remaining[entry_id]
                self._ack(entry_id)
