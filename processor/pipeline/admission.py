"""Admission control and memory policy: whether the pipeline takes a request now, and how span data held stays
under ``processor.memory_limit_mib``.

Span data held (wire size) is: traces buffered in the assembler, released traces not yet analysed and exported
(the work in hand), and the exporters' queued requests. Two rules bound it:

- the buffer may use half of the limit: beyond, the oldest traces are released early (bundle ``open``), counted;
- beyond the whole limit, intake is refused with a retry delay until exports catch up. Traces not yet analysed are
  counted at the size they will have once annotated (:class:`~processor.pipeline.growth.AnnotationGrowth`).

Intake is also refused while the service shuts down, when analysis is behind by more than
``processor.max_buffered_spans`` spans or by more than ``processor.max_analysis_lag`` in time (the work in hand
against the rate analysis clears it, :class:`~processor.pipeline.backlog.Backlog`), and when the traces export
queue is full.

Threading: one owner, the event loop thread that owns the pipeline state.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from processor.config import Config
from processor.pipeline.assembler import ReleasedTrace, TraceAssembler
from processor.pipeline.backlog import Backlog, Behind
from processor.pipeline.growth import AnnotationGrowth
from processor.pipeline.intake import Backpressure
from processor.pipeline.signal_pipeline import SignalPipeline
from processor.resources import cgroup_limits, machine_memory_bytes
from processor.telemetry.counters import ProcessorCounters

__all__ = ["DEFAULT_MEMORY_SHARE", "MiB", "AdmissionControl", "effective_memory_limit"]

logger = logging.getLogger(__name__)

MiB = 1024 * 1024
DEFAULT_MEMORY_SHARE = 0.25
"""``memory_limit_mib: 0`` means this share of the machine's memory, or of the container's limit when smaller."""
LAG_LOG_INTERVAL = 60.0
"""While intake is refused for ``processor.max_analysis_lag``, one log line per this many seconds at most."""


def effective_memory_limit(config: Config) -> int:
    """Bytes of span data (wire size) the processor may hold: buffered traces plus work in hand.

    The buffer may use half of it (beyond, the oldest traces are released early); beyond the whole, intake is
    refused with a retry delay until exports catch up."""
    if config.memory_limit_mib:
        return config.memory_limit_mib * MiB
    return int(machine_memory_bytes(cgroup_limits(), fallback=4 * 1024 * MiB) * DEFAULT_MEMORY_SHARE)


class AdmissionControl:
    """Decides whether a request is taken, and keeps the count of work in hand that the decision rests on.

    ``is_stopped`` tells whether the service is shutting down (then everything is refused); ``clock`` times the
    rate analysis clears the work in hand at, and the log lines about refusing for it."""

    def __init__(
        self,
        config: Config,
        assembler: TraceAssembler,
        traces: SignalPipeline,
        logs: SignalPipeline | None,
        counters: ProcessorCounters,
        *,
        is_stopped: Callable[[], bool],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._assembler = assembler
        self._traces = traces
        self._logs = logs
        self._counters = counters
        self._is_stopped = is_stopped
        self.memory_limit = effective_memory_limit(config)
        self._clock = clock
        self.backlog = Backlog(clock=clock)
        """Spans of released traces not yet handed to the exporter, and the rate analysis clears them at."""
        self._lag_refusals = 0
        """Requests refused for ``processor.max_analysis_lag`` since the last log line about it."""
        self._lag_said_at: float | None = None
        self.pending_bytes = 0
        """Wire bytes of released traces not yet handed to the exporter; with the exporters' queued bytes, the work
        in hand that the memory limit bounds (the buffer is bounded by early release)."""
        self.growth = AnnotationGrowth()

    def check_room(self) -> None:
        """Raise Backpressure when the pipeline cannot take a request now (checked before spooling)."""
        if self._is_stopped():
            raise Backpressure("shutting down", retry_after=5.0)
        if self.pending_spans > self._config.max_buffered_spans:
            raise Backpressure("analysis and export are behind", retry_after=1.0)
        if self.projected_held_bytes() > self.memory_limit:
            # The buffer already released its oldest traces early to stay within its half; the rest is work in hand.
            raise Backpressure("analysis and export are behind (processor.memory_limit_mib reached)", retry_after=2.0)
        behind = self.backlog.behind(self._config.max_analysis_lag)
        if behind is not None:
            self._note_lag_refusal(behind)
            raise Backpressure(str(behind), retry_after=behind.retry_after)
        self._traces.check_export_room()

    def _note_lag_refusal(self, behind: Behind) -> None:
        """Log the first refusal for lag, then at most one line per :data:`LAG_LOG_INTERVAL` with the count."""
        self._lag_refusals += 1
        now = self._clock()
        if self._lag_said_at is not None and now - self._lag_said_at < LAG_LOG_INTERVAL:
            return
        logger.warning(
            "%s; trace requests are refused with a retry delay until it catches up (%d refused since the last line, "
            "said at most every %gs)",
            behind, self._lag_refusals, LAG_LOG_INTERVAL,
        )
        self._lag_said_at = now
        self._lag_refusals = 0

    @property
    def pending_spans(self) -> int:
        """Spans of released traces not yet handed to the exporter (the work in hand)."""
        return self.backlog.spans

    @property
    def held_bytes(self) -> int:
        """Span data held (wire size): buffered traces, released traces in analysis, queued exports."""
        return self._assembler.buffered_bytes + self.pending_bytes + self.queued_export_bytes()

    def projected_held_bytes(self) -> int:
        """``held_bytes`` once the traces not yet analysed are annotated: what the memory limit is checked against."""
        not_analysed = self._assembler.buffered_bytes + self.pending_bytes
        return self.growth.projected(not_analysed) + self.queued_export_bytes()

    def queued_export_bytes(self) -> int:
        return sum(p.exporter.queued_bytes for p in (self._traces, self._logs) if p is not None)

    def enforce_memory_limit(self) -> list[ReleasedTrace]:
        """Release the oldest buffered traces early while the buffer holds more than half of the limit; returns
        them (to be queued for analysis)."""
        excess = self._assembler.buffered_bytes - self.memory_limit // 2
        if excess <= 0:
            return []
        shed = self._assembler.shed(excess)
        if shed:
            self._counters.memory_limit_releases += len(shed)
            logger.warning(
                "buffered spans reached half of processor.memory_limit_mib (%d MiB): released %d oldest trace(s) early",
                self.memory_limit // MiB,
                len(shed),
            )
        return shed

    def taken(self, released: ReleasedTrace) -> None:
        """A released trace joined the work in hand."""
        self.backlog.taken(len(released.spans))
        self.pending_bytes += released.wire_bytes

    def done(self, released: ReleasedTrace) -> None:
        """A released trace left the work in hand (handed to the exporter, or failed)."""
        self.backlog.done(len(released.spans))
        self.pending_bytes -= released.wire_bytes

    def record_growth(self, released: ReleasedTrace, output_bytes: int) -> None:
        """An analysed trace whose annotated requests (``output_bytes``) wait in an exporter's queue."""
        self.growth.record(released.wire_bytes, output_bytes, settled=_settled(released))

    def record_forwarded_growth(self, traces: Sequence[ReleasedTrace], output_bytes: int) -> None:
        """Traces forwarded together, in requests of ``output_bytes`` in all: each class of trace (settled or
        open) is recorded once, with its share of the output by wire size."""
        settled_input = sum(released.wire_bytes for released in traces if _settled(released))
        open_input = sum(released.wire_bytes for released in traces) - settled_input
        if settled_input + open_input <= 0:
            return
        settled_output = output_bytes * settled_input // (settled_input + open_input)
        if settled_input:
            self.growth.record(settled_input, settled_output, settled=True)
        if open_input:
            self.growth.record(open_input, output_bytes - settled_output, settled=False)


def _settled(released: ReleasedTrace) -> bool:
    """Not released early, its top span among its spans: the class whose findings travel as span events."""
    if released.reason.early:
        return False
    for span in released.spans:  # a loop: a generator per trace costs more than the few spans it looks at
        if span.is_root:
            return True
    return False
