"""How much larger a trace's annotated export requests are than the spans it came in as.

``processor.memory_limit_mib`` bounds span data held: traces buffered and in analysis at their wire size, export
requests at theirs. A trace grows when it is annotated (verdicts, findings, declarations), so the span data held
would pass the limit by that growth once the traces taken before the limit was reached are exported. The intake
check therefore counts traces not yet analysed at their projected size, using the ratio observed on the traces
analysed so far.

The ratio is by volume and forgets: once the input counted passes ``window_bytes``, both sums are halved, so the
estimate follows the traffic of the last few windows. It stays within ``[1, max_ratio]``: annotation never makes
a trace smaller, and a handful of tiny traces cannot make the processor refuse everything.

Traces fall in two classes that grow differently: a run that is settled carries its findings as span events, an
open one (released early, or before its top span arrived) does not yet. Each class has its own ratio, and the
projection takes the larger, so a burst of open traces never lowers the estimate below what the next settled
trace will need.
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
        self._input = [0, 0]
        self._output = [0, 0]
        self._window = window_bytes
        self._max_ratio = max_ratio

    def record(self, input_bytes: int, output_bytes: int, *, settled: bool = True) -> None:
        """One analysed trace: its spans' wire size as received, and the size of its annotated export requests;
        ``settled``: not released early, its top span among them (see the module docstring)."""
        if input_bytes <= 0 or output_bytes < 0:
            return
        kind = 0 if settled else 1
        self._input[kind] += input_bytes
        self._output[kind] += output_bytes
        if self._input[kind] > self._window:
            self._input[kind] //= 2
            self._output[kind] //= 2

    @property
    def ratio(self) -> float:
        """Output per input byte, the larger of the two classes; 1.0 before any trace was analysed."""
        observed = [output / given for given, output in zip(self._input, self._output, strict=True) if given]
        if not observed:
            return 1.0
        return min(self._max_ratio, max(1.0, *observed))

    def projected(self, input_bytes: int) -> int:
        """What ``input_bytes`` of traces not yet analysed will hold once annotated."""
        return math.ceil(input_bytes * self.ratio)
