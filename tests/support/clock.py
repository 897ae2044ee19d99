"""A clock the test moves by hand: pass it where the code takes a ``clock: Callable[[], float]``; no sleeping."""

from __future__ import annotations

__all__ = ["FakeClock"]


class FakeClock:
    """Monotonic seconds that change only when the test sets ``now`` or calls :meth:`advance`."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a monotonic clock does not go back")
        self.now += seconds
