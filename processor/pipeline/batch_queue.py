"""The queue between the assembler and analysis: released traces, taken in release batches, and the analysis
calls the traces of a batch that need analysis are split into.

Owned by one event loop. Unbounded by itself: what it holds is bounded by the service's admission check
(``processor.max_buffered_spans`` of released spans not yet analysed, or more than ``processor.max_analysis_lag``
of analysis at the rate it clears them: then intake is refused).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from typing import Final, Generic, TypeVar

__all__ = [
    "ANALYSIS_BATCH_SPANS",
    "ANALYSIS_BATCH_TRACES",
    "RELEASE_BATCH_SPANS",
    "RELEASE_BATCH_TRACES",
    "BatchQueue",
    "analysis_calls",
]

ANALYSIS_BATCH_TRACES: Final = 16
ANALYSIS_BATCH_SPANS: Final = 128
"""Traces to analyse go to a worker in calls of at most this many traces and spans (a single larger trace goes
alone): small traces share a worker round trip, which costs about as much as analysing a few spans; a call delays
its first trace by at most the analysis of this many spans."""

RELEASE_BATCH_TRACES: Final = 64
RELEASE_BATCH_SPANS: Final = 512
"""Released traces a process loop takes at once (a single larger trace alone). Most traces of a pipeline take the
fast path (no agent span) and go out together, so the batch is larger than an analysis call: the traces it
analyses are split into calls (:func:`analysis_calls`). In a 90/10 mix of web and agent traces, a batch of 16
held one or two agent traces, and each worker round trip then carried that little."""


def analysis_calls(spans: Sequence[int]) -> list[list[int]]:
    """Positions of traces (``spans[i]``: the span count of trace ``i``) grouped into analysis calls, in order:
    consecutive traces share a call while it holds at most :data:`ANALYSIS_BATCH_TRACES` traces and
    :data:`ANALYSIS_BATCH_SPANS` spans; a trace larger than that goes alone."""
    calls: list[list[int]] = []
    current: list[int] = []
    held = 0
    for position, count in enumerate(spans):
        if current and (len(current) >= ANALYSIS_BATCH_TRACES or held + count > ANALYSIS_BATCH_SPANS):
            calls.append(current)
            current, held = [], 0
        current.append(position)
        held += count
    if current:
        calls.append(current)
    return calls


_T = TypeVar("_T")


class BatchQueue(Generic[_T]):
    """FIFO with ``asyncio.Queue``'s waiting surface (``put_nowait``, ``get``, ``get_nowait``, ``task_done``,
    ``join``) and :meth:`take_batch`, which needs to look at the next item before taking it."""

    def __init__(self) -> None:
        self._items: deque[_T] = deque()
        self._getters: deque[asyncio.Future[None]] = deque()
        self._unfinished = 0
        self._all_done = asyncio.Event()
        self._all_done.set()

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: _T) -> None:
        self._items.append(item)
        self._unfinished += 1
        self._all_done.clear()
        self._wake_next()

    def get_nowait(self) -> _T:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    async def get(self) -> _T:
        while not self._items:
            getter = asyncio.get_running_loop().create_future()
            self._getters.append(getter)
            try:
                await getter
            except BaseException:
                getter.cancel()
                if self._items and not getter.cancelled():
                    self._wake_next()  # this getter was woken for an item it will not take: pass it on
                raise
        return self._items.popleft()

    def _wake_next(self) -> None:
        while self._getters:
            getter = self._getters.popleft()
            if not getter.done():
                getter.set_result(None)
                return

    def task_done(self) -> None:
        if self._unfinished <= 0:
            raise ValueError("task_done() called more times than items were put")
        self._unfinished -= 1
        if self._unfinished == 0:
            self._all_done.set()

    async def join(self) -> None:
        """Wait until every item put so far was taken and marked done."""
        await self._all_done.wait()

    def take_batch(self, first: _T, spans_of: Callable[[_T], int]) -> list[_T]:
        """``first`` and the items queued behind it that fit one release batch (:data:`RELEASE_BATCH_SPANS`,
        :data:`RELEASE_BATCH_TRACES`); an item that does not fit stays queued, first in line."""
        batch = [first]
        spans = spans_of(first)
        items = self._items
        while items and len(batch) < RELEASE_BATCH_TRACES:
            following = spans_of(items[0])
            if spans + following > RELEASE_BATCH_SPANS:
                break
            batch.append(items.popleft())
            spans += following
        if items:
            self._wake_next()  # what is left may be for another consumer
        return batch
