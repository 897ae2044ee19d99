"""Groups spans by trace across any number of requests and decides when a trace is ready.

A trace is released when
- a local root (span without parent) has been seen and no span arrived for ``decision_wait``; or
- no span arrived for ``idle_timeout`` (no root seen: parts of the trace live elsewhere); or
- ``max_trace_wait`` passed since its first span, unless it is an agent run still under way: no root span yet,
  its spans still coming (the last one within ``idle_timeout``) and at least one span a convention reader may
  claim. Such a run is held up to ``max_run_wait`` since its first span, so a reasoning model's pause does not
  split it; or
- the buffer is full (``num_traces`` or ``max_buffered_spans``): the oldest traces go first, marked early
  (bundle ``open``), counted and logged with the setting to raise;
- the owner sheds memory (:meth:`TraceAssembler.shed`): the oldest traces go first, marked early.

Spans are held as their serialized bytes (:class:`otel_mapper.otlp.held.HeldSpan`): a buffered span costs its wire size
plus a small fixed overhead. ``buffered_bytes`` is the wire size of the buffered spans, summed as they are added,
so the owner can enforce a memory limit without walking the buffer.

Late spans (for a trace already released) are a documented case: a bounded cache remembers released trace ids
and their revision, and late spans start a new revision of the same trajectory.

The assembler is not thread-safe: it has one owner (the service's event loop). Time comes from an injected
clock; nothing here sleeps.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from otel_mapper.otlp.held import HeldSpan
from processor.config.definition import default

__all__ = ["AssemblerLimits", "AssemblerStats", "ReleaseReason", "ReleasedTrace", "TraceAssembler"]

logger = logging.getLogger(__name__)


class ReleaseReason(StrEnum):
    DECISION_WAIT = "decision_wait"
    IDLE_TIMEOUT = "idle_timeout"
    MAX_TRACE_WAIT = "max_trace_wait"
    MAX_RUN_WAIT = "max_run_wait"
    BUFFER_FULL = "buffer_full"
    MEMORY_LIMIT = "memory_limit"
    SHUTDOWN = "shutdown"

    @property
    def early(self) -> bool:
        """Released before the trace reached a terminal cut: its bundle is ``open``."""
        return self in _EARLY_REASONS


_EARLY_REASONS: Final = frozenset({
    ReleaseReason.MAX_TRACE_WAIT,
    ReleaseReason.MAX_RUN_WAIT,
    ReleaseReason.BUFFER_FULL,
    ReleaseReason.MEMORY_LIMIT,
    ReleaseReason.SHUTDOWN,
})
"""Built once: reading members off the enum class is an attribute lookup each, and ``early`` is asked per trace."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AssemblerLimits:
    """The ``processor.*`` limits; defaults from the config definition."""

    decision_wait: float = default("processor.decision_wait")
    idle_timeout: float = default("processor.idle_timeout")
    max_trace_wait: float = default("processor.max_trace_wait")
    max_run_wait: float = default("processor.max_run_wait")
    """Longest an agent run without its root span is held while spans keep coming; at most ``max_trace_wait``
    when not larger."""
    num_traces: int = default("processor.num_traces")
    max_buffered_spans: int = default("processor.max_buffered_spans")
    released_cache_size: int = default("processor.released_cache_size")


@dataclass(slots=True)
class ReleasedTrace:
    trace_id: bytes
    spans: list[HeldSpan]
    revision: int
    reason: ReleaseReason
    late: bool = False
    """This revision holds spans that arrived after an earlier revision was released."""
    logs: dict[bytes, list[LogRecord]] | None = None
    """Log records joined to the trace, by span id (set by the service before analysis)."""
    logs_expected: bool = False
    """The trace's service sends trace-correlated log records (so none arriving is a loss to declare)."""
    wire_bytes: int = 0
    """Wire size of the spans."""


@dataclass(slots=True)
class AssemblerStats:
    traces_held: int = 0
    spans_held: int = 0
    bytes_held: int = 0
    """Wire bytes of the spans held."""
    released: int = 0
    released_early: int = 0
    late_spans: int = 0


@dataclass(slots=True)
class _Buffer:
    spans: list[HeldSpan]
    first_seen: float
    last_seen: float
    has_root: bool
    revision: int
    late: bool
    wire_bytes: int = 0
    agent: bool | None = None
    """Whether a convention reader may claim one of its spans (asked once, when ``max_trace_wait`` is reached)."""


@dataclass(slots=True)
class TraceAssembler:
    limits: AssemblerLimits
    clock: Callable[[], float]
    may_be_agent: Callable[[Sequence[HeldSpan]], bool] | None = None
    """Whether spans may hold an agent span (the fast path's recogniser); ``None``: no run is held past
    ``max_trace_wait``."""
    stats: AssemblerStats = field(default_factory=AssemblerStats)
    _buffers: dict[bytes, _Buffer] = field(default_factory=dict)
    # Three orderings over the same buffers, each kept in its release order so `poll` stops at the first
    # trace that is not due: rooted and unrooted by last activity, all by first span.
    _rooted: OrderedDict[bytes, None] = field(default_factory=OrderedDict)
    _unrooted: OrderedDict[bytes, None] = field(default_factory=OrderedDict)
    _by_first_seen: OrderedDict[bytes, None] = field(default_factory=OrderedDict)
    _held_runs: OrderedDict[bytes, None] = field(default_factory=OrderedDict)
    """Agent runs past ``max_trace_wait``, held until ``max_run_wait`` (by first span, like ``_by_first_seen``)."""
    _released: OrderedDict[bytes, int] = field(default_factory=OrderedDict)

    def add(self, spans: Sequence[HeldSpan]) -> list[ReleasedTrace]:
        """Buffer spans (any traces, any order). Returns traces released early to make room.

        Consecutive spans of one trace (the usual order within a request) share one buffer lookup, and the trace
        takes its place in the release order once, after its last span of the run (or before a trace is evicted
        for room): the same order as after each span, since nothing in between looks at it."""
        now = self.clock()
        released: list[ReleasedTrace] = []
        stats = self.stats
        max_spans = self.limits.max_buffered_spans
        trace_id = b""
        buffer: _Buffer | None = None
        for span in spans:
            if buffer is None or span.trace_id != trace_id:
                if buffer is not None:
                    self._touch(trace_id, buffer)
                trace_id = span.trace_id
                buffer = self._buffer_for(trace_id, now, released)
            elif buffer.late:
                stats.late_spans += 1
            buffer.spans.append(span)
            buffer.last_seen = now
            size = len(span.data)
            buffer.wire_bytes += size
            stats.spans_held += 1
            stats.bytes_held += size
            if span.is_root:
                buffer.has_root = True
            if stats.spans_held > max_spans:
                self._touch(trace_id, buffer)
                buffer = None  # it may be the one evicted: the next span looks it up again
                while stats.spans_held > max_spans and self._buffers:
                    released.append(self._evict_oldest("max_buffered_spans"))
        if buffer is not None:
            self._touch(trace_id, buffer)
        return released

    def _buffer_for(self, trace_id: bytes, now: float, released: list[ReleasedTrace]) -> _Buffer:
        """The buffer of ``trace_id``, new when the trace is not buffered (counted late when it was released
        before), evicting the oldest traces while ``num_traces`` are held; counts the span about to be added as
        late when its trace is."""
        buffer = self._buffers.get(trace_id)
        if buffer is not None:
            if buffer.late:
                self.stats.late_spans += 1
            return buffer
        while len(self._buffers) >= self.limits.num_traces:
            released.append(self._evict_oldest("num_traces"))
        previous_revision = self._released.get(trace_id)
        late = previous_revision is not None
        if late:
            self.stats.late_spans += 1
        buffer = _Buffer([], now, now, False, (previous_revision or 0) + 1, late)
        self._buffers[trace_id] = buffer
        self._by_first_seen[trace_id] = None
        self.stats.traces_held += 1
        return buffer

    def _touch(self, trace_id: bytes, buffer: _Buffer) -> None:
        if buffer.has_root:
            self._unrooted.pop(trace_id, None)
            self._rooted[trace_id] = None
            self._rooted.move_to_end(trace_id)
        else:
            self._unrooted[trace_id] = None
            self._unrooted.move_to_end(trace_id)

    def _oldest(self) -> bytes:
        """The trace whose first span came first, held run or not."""
        if not self._held_runs:
            return next(iter(self._by_first_seen))
        held = next(iter(self._held_runs))
        if not self._by_first_seen:
            return held
        other = next(iter(self._by_first_seen))
        return held if self._buffers[held].first_seen <= self._buffers[other].first_seen else other

    def _evict_oldest(self, limit_name: str) -> ReleasedTrace:
        trace_id = self._oldest()
        logger.warning(
            "trace buffer full (%s): releasing the oldest trace early as 'open'; raise processor.%s if this "
            "happens often",
            limit_name,
            limit_name,
        )
        return self._release(trace_id, ReleaseReason.BUFFER_FULL)

    def poll(self) -> list[ReleasedTrace]:
        """Release every trace that is due now."""
        now = self.clock()
        released: list[ReleasedTrace] = []
        limits = self.limits
        while self._by_first_seen:
            trace_id = next(iter(self._by_first_seen))
            buffer = self._buffers[trace_id]
            if now < buffer.first_seen + limits.max_trace_wait:  # the same sum next_due_in gives
                break
            if self._run_goes_on(buffer, now):
                del self._by_first_seen[trace_id]
                self._held_runs[trace_id] = None
                continue
            released.append(self._release(trace_id, ReleaseReason.MAX_TRACE_WAIT))
        while self._held_runs:
            trace_id = next(iter(self._held_runs))
            if now < self._buffers[trace_id].first_seen + limits.max_run_wait:
                break
            released.append(self._release(trace_id, ReleaseReason.MAX_RUN_WAIT))
        while self._rooted:
            trace_id = next(iter(self._rooted))
            if now < self._buffers[trace_id].last_seen + limits.decision_wait:
                break
            released.append(self._release(trace_id, ReleaseReason.DECISION_WAIT))
        while self._unrooted:
            trace_id = next(iter(self._unrooted))
            if now < self._buffers[trace_id].last_seen + limits.idle_timeout:
                break
            released.append(self._release(trace_id, ReleaseReason.IDLE_TIMEOUT))
        return released

    def _run_goes_on(self, buffer: _Buffer, now: float) -> bool:
        """An agent run still under way at ``max_trace_wait``: no root yet, spans still coming, agent spans."""
        limits = self.limits
        if self.may_be_agent is None or limits.max_run_wait <= limits.max_trace_wait or buffer.has_root:
            return False
        if now >= buffer.last_seen + limits.idle_timeout:
            return False
        if buffer.agent is None:
            buffer.agent = self.may_be_agent(buffer.spans)
        return buffer.agent

    def shed(self, bytes_to_free: int) -> list[ReleasedTrace]:
        """Release the oldest traces (early, ``memory_limit``) until ``bytes_to_free`` wire bytes are freed."""
        released: list[ReleasedTrace] = []
        freed = 0
        while freed < bytes_to_free and self._buffers:
            trace_id = self._oldest()
            freed += self._buffers[trace_id].wire_bytes
            released.append(self._release(trace_id, ReleaseReason.MEMORY_LIMIT))
        return released

    def drain(self) -> list[ReleasedTrace]:
        """Release everything (shutdown): every trace goes out, marked early."""
        order = sorted(self._buffers, key=lambda trace_id: self._buffers[trace_id].first_seen)
        return [self._release(trace_id, ReleaseReason.SHUTDOWN) for trace_id in order]

    def _release(self, trace_id: bytes, reason: ReleaseReason) -> ReleasedTrace:
        buffer = self._buffers.pop(trace_id)
        self._rooted.pop(trace_id, None)
        self._unrooted.pop(trace_id, None)
        self._by_first_seen.pop(trace_id, None)
        self._held_runs.pop(trace_id, None)
        self.stats.traces_held -= 1
        self.stats.spans_held -= len(buffer.spans)
        self.stats.bytes_held -= buffer.wire_bytes
        self.stats.released += 1
        if reason.early:
            self.stats.released_early += 1
        if self.limits.released_cache_size:
            self._released[trace_id] = buffer.revision
            self._released.move_to_end(trace_id)
            while len(self._released) > self.limits.released_cache_size:
                self._released.popitem(last=False)
        return ReleasedTrace(
            trace_id=trace_id,
            spans=buffer.spans,
            revision=buffer.revision,
            reason=reason,
            late=buffer.late,
            wire_bytes=buffer.wire_bytes,
        )

    @property
    def traces_held(self) -> int:
        return len(self._buffers)

    @property
    def spans_held(self) -> int:
        return self.stats.spans_held

    @property
    def buffered_bytes(self) -> int:
        return self.stats.bytes_held

    def was_released(self, trace_id: bytes) -> bool:
        """Whether a trace was released and is still remembered (its next spans start a new revision)."""
        return trace_id in self._released and trace_id not in self._buffers

    def next_due_in(self) -> float | None:
        """Seconds until the next trace is due (``None`` when empty): lets the owner sleep exactly that long.
        Deadlines are the same sums ``poll`` compares with, so a clock moved by exactly this much makes that
        trace due (no float rounding between the two)."""
        if not self._buffers:
            return None
        now = self.clock()
        candidates = []
        if self._by_first_seen:
            candidates.append(self._buffers[next(iter(self._by_first_seen))].first_seen + self.limits.max_trace_wait)
        if self._held_runs:
            candidates.append(self._buffers[next(iter(self._held_runs))].first_seen + self.limits.max_run_wait)
        if self._rooted:
            candidates.append(self._buffers[next(iter(self._rooted))].last_seen + self.limits.decision_wait)
        if self._unrooted:
            candidates.append(self._buffers[next(iter(self._unrooted))].last_seen + self.limits.idle_timeout)
        return max(0.0, min(candidates) - now)
