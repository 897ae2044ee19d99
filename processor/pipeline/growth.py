"""How much larger a trace's annotated export requests are than the spans it came in as.

``processor.memory_limit_mib`` bounds span data held: traces buffered and in analysis at their wire size, export
requests at theirs. A trace grows when it is annotated (verdicts, findings, declarations), so the span data held
would pass the limit by that growth once the traces taken before the limit was reached are exported. The intake
check therefore counts traces not yet analysed at their projected size, using the ratio observed on the traces
analysed so far.

The ratio is by volume and forgets: once the input counted passes ``window_bytes``, both sums are halved, so the
estimate follows the traffic of the last few windows. It stays within ``[1, max_ratio]``: annotation never makes
a trace smaller, and a handful of tiny traces cannot make the processor refuse everything.
"""

from __future__ import annotations

import math

__all__ = ["AnnotationGrowth"]

DEFAULT_WINDOW_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_RATIO = 4.0


class AnnotationGrowth:
    """Observed ratio of annotated output bytes to received input bytes. One owner: the service's event loop."""

    __slots__ = ("_input", "_output", "_window", "_max_ratio")

    def __init__(self, window_bytes: int = DEFAULT_WINDOW_BYTES, max_ratio: float = DEFAULT_MAX_RATIO) -> None:
        if window_bytes <= 0 or max_ratio < 1.0:
            raise ValueError("window_bytes must be positive and max_ratio at least 1")
        self._input = 0
        self._output = 0
        self._window = window_bytes
        self._max_ratio = max_ratio

    def record(self, input_bytes: int, output_bytes: int) -> None:
        """One analysed trace: its spans' wire size as received, and the size of its annotated export requests."""
        if input_bytes <= 0 or output_bytes < 0:
            return
        self._input += input_bytes
        self._output += output_bytes
        if self._input > self._window:
            self._input //= 2
            self._output //= 2

    @property
    def ratio(self) -> float:
        """Output per input byte; 1.0 before any trace was analysed."""
        if self._input == 0:
            return 1.0
        return min(self._max_ratio, max(1.0, self._output / self._input))

    def projected(self, input_bytes: int) -> int:
        """What ``input_bytes`` of traces not yet analysed will hold once annotated."""
        return math.ceil(input_bytes * self.ratio)
