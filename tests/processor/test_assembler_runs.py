"""Spans added together behave as the same spans added one at a time: consecutive spans of a trace share one
buffer lookup, and eviction, late spans and the release order stay as they were."""

from __future__ import annotations

import random

from otel_mapper.otlp.held import HeldResource, HeldSpan, SpanGroup
from processor.pipeline.assembler import AssemblerLimits, ReleasedTrace, TraceAssembler
from tests.support.clock import FakeClock

GROUP = SpanGroup(HeldResource(b"", "", "svc"), b"", "")


def assembler(clock: FakeClock, num_traces: int, max_spans: int) -> TraceAssembler:
    limits = AssemblerLimits(decision_wait=1.0, idle_timeout=2.0, max_trace_wait=5.0, max_run_wait=5.0,
                             num_traces=num_traces, max_buffered_spans=max_spans, released_cache_size=50)
    return TraceAssembler(limits=limits, clock=clock)


def summary(traces: list[ReleasedTrace]) -> list[tuple[bytes, list[bytes], int, str, bool]]:
    return [(t.trace_id, [s.data for s in t.spans], t.revision, t.reason.value, t.late) for t in traces]


def requests(rng: random.Random) -> list[list[HeldSpan]]:
    """Requests of spans of a few traces, mostly in runs of one trace, some interleaved, some roots."""
    out = []
    serial = 0
    for _ in range(rng.randrange(1, 12)):
        spans = []
        for _ in range(rng.randrange(1, 6)):
            trace = rng.randrange(6).to_bytes(16, "big")
            for _ in range(rng.randrange(1, 4)):
                serial += 1
                spans.append(HeldSpan(trace, serial.to_bytes(4, "big"), GROUP, rng.random() < 0.3))
        out.append(spans)
    return out


def test_adding_a_request_at_once_equals_adding_its_spans_one_by_one() -> None:
    rng = random.Random(5)
    for _ in range(300):
        sent = requests(rng)
        num_traces, max_spans = rng.randrange(1, 6), rng.randrange(1, 15)
        clocks = FakeClock(), FakeClock()
        together, alone = assembler(clocks[0], num_traces, max_spans), assembler(clocks[1], num_traces, max_spans)
        for spans in sent:
            early_together = together.add(spans)
            early_alone = [item for span in spans for item in alone.add([span])]
            assert summary(early_together) == summary(early_alone)
            assert together.stats == alone.stats
            step = rng.choice([0.0, 0.5, 1.5])
            for clock in clocks:
                clock.advance(step)
            assert summary(together.poll()) == summary(alone.poll())
        for clock in clocks:
            clock.advance(10.0)
        assert summary(together.poll()) == summary(alone.poll())
        assert together.stats == alone.stats


def test_a_trace_evicted_for_room_in_the_middle_of_its_spans_goes_on_as_its_next_revision() -> None:
    clock = FakeClock()
    buffer = assembler(clock, num_traces=10, max_spans=2)
    trace = (1).to_bytes(16, "big")

    early = buffer.add([HeldSpan(trace, bytes([n]), GROUP, n == 0) for n in range(4)])

    assert summary(early) == [(trace, [b"\x00", b"\x01", b"\x02"], 1, "buffer_full", False)]
    clock.advance(10.0)
    assert summary(buffer.poll()) == [(trace, [b"\x03"], 2, "max_trace_wait", True)]
    assert buffer.stats.late_spans == 1
