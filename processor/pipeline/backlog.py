"""The work in hand of analysis (spans of released traces not yet handed to the exporter) and how far behind it is
in time: :class:`Backlog`.

Admission control refuses intake when the backlog would take longer than ``processor.max_analysis_lag`` to clear
at the rate analysis has been clearing it. That rate must be what analysis *can* clear, not what was offered:

- it is spans cleared per second of **busy time**, and time counts as busy only while the backlog holds at least
  :data:`LAG_FLOOR_SPANS` spans: then every process loop has a batch to work on, so the spans cleared are what the
  analysis can do. Idle time does not count, nor a trickle of traffic cleared one trace at a time as it arrives
  (that measures one trace's latency, not what the analysing processes clear together);
- busy time is cut into samples of at least :data:`SAMPLE_SECONDS`; the rate is the spans cleared over the busy
  seconds of the last :data:`WINDOW_SAMPLES` samples. It follows a change of traffic within a few seconds of busy
  time, and does not age while the service is idle (capacity does not change with idleness). Time spent busy
  without clearing anything (analysis stalled while traces keep being released) lowers it.

There is no estimate until the first sample is complete; until then the lag bound does not apply (the other
admission checks do). Below :data:`LAG_FLOOR_SPANS` intake is never refused for lag.

Threading: one owner, the event loop thread that owns the pipeline state. Time comes from the injected ``clock``.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from processor.settings import format_duration

__all__ = ["LAG_FLOOR_SPANS", "SAMPLE_SECONDS", "WINDOW_SAMPLES", "Backlog", "Behind"]

LAG_FLOOR_SPANS: Final = 10_000
"""Below this many spans in hand intake is never refused for lag, and the clearing rate is not measured. It is
about a second of analysis at the rate measured on two cores (9,500 spans/s), so a burst that size is always
taken; and it is more than the process loops hold at once (two per analysis worker, at most eight workers with
``auto``, each taking a release batch of at most 512 spans, :mod:`processor.pipeline.batch_queue`: 8,192), so above
it every loop has work and what is measured is what analysis can clear."""
SAMPLE_SECONDS: Final = 1.0
"""Busy time per sample: long enough to hold several batches cleared, short enough to follow a change quickly."""
WINDOW_SAMPLES: Final = 5
"""Samples the rate is taken over: at least five seconds of busy time, so one slow batch does not swing it."""
MIN_RETRY_SECONDS: Final = 1.0
MAX_RETRY_SECONDS: Final = 5.0
"""The retry delay of a refusal is the time the excess over the bound takes to clear, within these: not shorter
than the other refusals ask, not so long that intake idles while the buffered traces still to be released wait."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Behind:
    """A backlog over the lag bound: what the refusal says and asks."""

    spans: int
    """Spans in hand."""
    spans_per_second: float
    """The rate analysis has been clearing them at."""
    lag: float
    """Seconds the spans in hand take at that rate (``inf`` when nothing was cleared)."""
    max_lag: float

    @property
    def retry_after(self) -> float:
        return min(max(self.lag - self.max_lag, MIN_RETRY_SECONDS), MAX_RETRY_SECONDS)

    def __str__(self) -> str:
        bound = f"processor.max_analysis_lag is {format_duration(self.max_lag)}"
        if math.isinf(self.lag):
            return f"analysis is behind: {self.spans} spans in hand and none cleared lately ({bound})"
        return (
            f"analysis is behind: {self.spans} spans in hand take {self.lag:.1f}s at the "
            f"{self.spans_per_second:.0f} spans/s analysis clears ({bound})"
        )


class Backlog:
    """Spans released for analysis and not yet handed to the exporter (``spans``), and the rate analysis clears
    them at (see the module docstring). ``taken`` when a trace is released, ``done`` when it leaves."""

    __slots__ = ("spans", "_clock", "_since", "_busy", "_cleared", "_samples")

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.spans = 0
        self._clock = clock
        self._since = clock()
        """When ``spans`` last changed."""
        self._busy = 0.0
        self._cleared = 0
        """Busy seconds and spans cleared in the sample being filled."""
        self._samples: deque[tuple[float, int]] = deque(maxlen=WINDOW_SAMPLES)
        """(busy seconds, spans cleared) of the last complete samples."""

    def taken(self, spans: int) -> None:
        self._account(0)
        self.spans += spans

    def done(self, spans: int) -> None:
        self._account(spans)
        self.spans -= spans

    def _account(self, cleared: int) -> None:
        """``spans`` is about to change, ``cleared`` of them leaving: the time since the last change was busy when
        the backlog was at least the floor all along (it changes only here)."""
        now = self._clock()
        if self.spans >= LAG_FLOOR_SPANS:
            self._busy += now - self._since
            self._cleared += cleared
            if self._busy >= SAMPLE_SECONDS:
                self._samples.append((self._busy, self._cleared))
                self._busy, self._cleared = 0.0, 0
        self._since = now

    @property
    def spans_per_second(self) -> float | None:
        """Spans cleared per second of busy time over the last samples; ``None`` before the first is complete."""
        if not self._samples:
            return None
        busy = sum(seconds for seconds, _ in self._samples)
        return sum(cleared for _, cleared in self._samples) / busy

    def lag(self) -> float | None:
        """Seconds the spans in hand take to clear at :attr:`spans_per_second`; ``None`` without an estimate."""
        rate = self.spans_per_second
        if rate is None:
            return None
        if rate <= 0:
            return math.inf if self.spans else 0.0
        return self.spans / rate

    def behind(self, max_lag: float) -> Behind | None:
        """The backlog when it is at least the floor and its lag over ``max_lag`` (``0``: never); else ``None``."""
        if max_lag <= 0 or self.spans < LAG_FLOOR_SPANS:
            return None
        lag = self.lag()
        if lag is None or lag <= max_lag:
            return None
        rate = self.spans_per_second or 0.0
        return Behind(spans=self.spans, spans_per_second=rate, lag=lag, max_lag=max_lag)
