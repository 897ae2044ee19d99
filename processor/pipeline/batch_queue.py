"""The queue between the assembler and analysis: released traces, taken in batches that fit one analysis call.

Owned by one event loop. Unbounded by itself: what it holds is bounded by the service's admission check
(``processor.max_buffered_spans`` of released spans not yet analysed, then intake is refused).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Final, Generic, TypeVar

__all__ = ["ANALYSIS_BATCH_SPANS", "ANALYSIS_BATCH_TRACES", "BatchQueue"]

ANALYSIS_BATCH_TRACES: Final = 16
ANALYSIS_BATCH_SPANS: Final = 128
"""Released traces queued together go to analysis in one call while their spans add up to at most this (a single
larger trace goes alone): small traces share a worker round trip, which costs about as much as analysing a few
spans; a batch delays its first trace by at most the analysis of this many spans."""

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
        """``first`` and the items queued behind it that fit one analysis call (:data:`ANALYSIS_BATCH_SPANS`,
        :data:`ANALYSIS_BATCH_TRACES`); an item that does not fit stays queued, first in line."""
        batch = [first]
        spans = spans_of(first)
        items = self._items
        while items and len(batch) < ANALYSIS_BATCH_TRACES:
            following = spans_of(items[0])
            if spans + following > ANALYSIS_BATCH_SPANS:
                break
            batch.append(items.popleft())
            spans += following
        if items:
            self._wake_next()  # what is left may be for another consumer
        return batch
