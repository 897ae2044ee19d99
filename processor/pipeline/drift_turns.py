"""Tickets that keep drift evaluation in call order while analysis calls run concurrently.

Owned by one event loop: :class:`~processor.pipeline.analysis.AnalysisStage` takes a ticket per call and judges
drift for ticket N only after every earlier ticket is done, whatever order the workers finish in.
"""

from __future__ import annotations

import asyncio

__all__ = ["DriftTurns"]


class DriftTurns:
    """Tickets in call order; drift for ticket N is evaluated only after every earlier ticket is done."""

    def __init__(self) -> None:
        self._issued = 0
        self._current = 0
        self._finished: set[int] = set()
        self._waiters: dict[int, asyncio.Future[None]] = {}

    def take(self) -> int:
        ticket = self._issued
        self._issued += 1
        return ticket

    def is_current(self, ticket: int) -> bool:
        return self._current == ticket

    async def wait(self, ticket: int) -> None:
        if self._current == ticket:
            return
        waiter = self._waiters[ticket] = asyncio.get_running_loop().create_future()
        try:
            await waiter
        finally:
            self._waiters.pop(ticket, None)

    def done(self, ticket: int) -> None:
        """Mark ``ticket`` done (again: no effect) and wake the next one in line."""
        if ticket < self._current or ticket in self._finished:
            return
        self._finished.add(ticket)
        while self._current in self._finished:
            self._finished.discard(self._current)
            self._current += 1
        waiter = self._waiters.get(self._current)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
