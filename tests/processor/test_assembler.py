"""Trace assembler with a fake clock: release rules, bounds, late spans. No sleeping."""

from __future__ import annotations

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.otlp.held import HeldResource, HeldSpan, SpanGroup
from processor.pipeline.assembler import AssemblerLimits, ReleaseReason, TraceAssembler
from tests.support.clock import FakeClock

GROUP = SpanGroup(HeldResource(b"", "", ""), b"", "")


def span(trace: int, span_id: int, parent: int | None = None, size: int | None = None) -> HeldSpan:
    """A held span; with ``size``, its bytes are filler of that length (the assembler never parses them)."""
    message = Span(
        trace_id=trace.to_bytes(16, "big"),
        span_id=span_id.to_bytes(8, "big"),
        parent_span_id=parent.to_bytes(8, "big") if parent else b"",
        name=f"s{span_id}",
    )
    data = message.SerializeToString() if size is None else b"x" * size
    return HeldSpan(message.trace_id, data, GROUP, parent is None)


def span_ids(spans: list[HeldSpan]) -> set[int]:
    return {Span.FromString(held.data).span_id[-1] for held in spans}


def make(clock: FakeClock, **limits: float) -> TraceAssembler:
    defaults = {"decision_wait": 2.0, "idle_timeout": 30.0, "max_trace_wait": 300.0}
    defaults.update(limits)
    return TraceAssembler(limits=AssemblerLimits(**defaults), clock=clock)  # type: ignore[arg-type]


def test_root_then_quiet_for_decision_wait_releases() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assembler.add([span(1, 2, parent=1)])
    clock.advance(1.0)
    assembler.add([span(1, 1)])
    clock.advance(1.9)
    assert assembler.poll() == []
    clock.advance(0.2)
    (released,) = assembler.poll()
    assert released.reason is ReleaseReason.DECISION_WAIT
    assert span_ids(released.spans) == {1, 2}
    assert released.revision == 1 and not released.reason.early


def test_spans_after_the_root_keep_the_trace_open() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assembler.add([span(1, 1)])
    for child in range(2, 6):
        clock.advance(1.5)
        assembler.add([span(1, child, parent=1)])
        assert assembler.poll() == []
    clock.advance(2.0)
    (released,) = assembler.poll()
    assert len(released.spans) == 5


def test_without_root_waits_for_idle_timeout() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assembler.add([span(1, 2, parent=1)])
    clock.advance(29.0)
    assert assembler.poll() == []
    clock.advance(1.0)
    (released,) = assembler.poll()
    assert released.reason is ReleaseReason.IDLE_TIMEOUT


def test_max_trace_wait_releases_a_busy_trace_early() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock, max_trace_wait=10.0, idle_timeout=5.0, decision_wait=1.0)
    for child in range(2, 40):
        assembler.add([span(1, child, parent=1)])
        clock.advance(0.5)
    released = assembler.poll()
    assert [r.reason for r in released] == [ReleaseReason.MAX_TRACE_WAIT]
    assert released[0].reason.early


def test_num_traces_bound_releases_oldest_first_as_early() -> None:
    clock = FakeClock(start=1000.0)
    assembler = TraceAssembler(limits=AssemblerLimits(num_traces=2), clock=clock)
    assert assembler.add([span(1, 1)]) == []
    clock.advance(0.1)
    assert assembler.add([span(2, 1)]) == []
    clock.advance(0.1)
    (evicted,) = assembler.add([span(3, 1)])
    assert evicted.trace_id[-1] == 1 and evicted.reason is ReleaseReason.BUFFER_FULL
    assert assembler.traces_held == 2
    assert assembler.stats.released_early == 1


def test_span_bound_releases_early_and_never_drops() -> None:
    clock = FakeClock(start=1000.0)
    assembler = TraceAssembler(limits=AssemblerLimits(max_buffered_spans=5), clock=clock)
    released = assembler.add([span(1, i) for i in range(1, 4)] + [span(2, i) for i in range(1, 5)])
    held = assembler.stats.spans_held
    total = sum(len(r.spans) for r in released) + held
    assert total == 7 and held <= 5
    assert all(r.reason is ReleaseReason.BUFFER_FULL for r in released)


def test_late_spans_start_a_new_revision() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assembler.add([span(1, 1)])
    clock.advance(3.0)
    (first,) = assembler.poll()
    assert first.revision == 1
    assembler.add([span(1, 9, parent=1)])
    clock.advance(31.0)
    (second,) = assembler.poll()
    assert second.revision == 2 and second.late
    assert assembler.stats.late_spans == 1


def test_drain_releases_everything_as_shutdown() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assembler.add([span(1, 1), span(2, 1), span(3, 2, parent=1)])
    released = assembler.drain()
    assert sorted(r.trace_id[-1] for r in released) == [1, 2, 3]
    assert all(r.reason is ReleaseReason.SHUTDOWN for r in released)
    assert assembler.traces_held == 0 and assembler.stats.spans_held == 0


def test_next_due_in_tells_the_owner_how_long_to_wait() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assert assembler.next_due_in() is None
    assembler.add([span(1, 1)])
    assert assembler.next_due_in() == 2.0
    clock.advance(0.5)
    assert assembler.next_due_in() == 1.5



def test_buffered_bytes_sum_the_wire_size_of_held_spans() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assembler.add([span(1, 1, size=100), span(1, 2, parent=1, size=100)])
    assembler.add([span(2, 1, size=40)])
    assert assembler.buffered_bytes == 240
    clock.advance(2.1)
    assert len(assembler.poll()) == 2
    assert assembler.buffered_bytes == 0


def test_shed_releases_oldest_traces_until_enough_is_freed() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    for trace in (1, 2, 3):
        assembler.add([span(trace, 1, size=50), span(trace, 2, parent=1, size=50)])
        clock.advance(0.1)
    assembler.add([span(1, 3, parent=1, size=50)])  # activity does not make trace 1 younger

    released = assembler.shed(151)  # trace 1 holds 150 bytes: trace 2 must go too

    assert [item.trace_id[-1] for item in released] == [1, 2]
    assert all(item.reason is ReleaseReason.MEMORY_LIMIT and item.reason.early for item in released)
    assert [len(item.spans) for item in released] == [3, 2]
    assert assembler.buffered_bytes == 100 and assembler.traces_held == 1
    assert assembler.stats.released_early == 2


def test_shed_with_nothing_to_free_or_nothing_held_releases_nothing() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assert assembler.shed(1_000) == []
    assembler.add([span(1, 1, size=10)])
    assert assembler.shed(0) == []
    (released,) = assembler.shed(10**9)  # more than is held: everything goes, nothing more
    assert released.trace_id[-1] == 1 and assembler.buffered_bytes == 0 and assembler.traces_held == 0


def test_a_shed_trace_that_gets_more_spans_starts_a_new_revision() -> None:
    clock = FakeClock(start=1000.0)
    assembler = make(clock)
    assembler.add([span(1, 1, size=10)])
    (shed,) = assembler.shed(1)
    assembler.add([span(1, 2, parent=1, size=10)])
    clock.advance(31.0)
    (late,) = assembler.poll()
    assert shed.revision == 1 and late.revision == 2 and late.late


def agent_detector(agent_traces: set[int]):  # type: ignore[no-untyped-def]
    """``may_be_agent`` for tests: a trace is an agent run when its number is in ``agent_traces``."""
    def may_be_agent(spans):  # type: ignore[no-untyped-def]
        return int.from_bytes(spans[0].trace_id, "big") in agent_traces

    return may_be_agent


def test_an_agent_run_still_going_is_held_past_max_trace_wait_up_to_max_run_wait() -> None:
    clock = FakeClock(start=0.0)
    assembler = TraceAssembler(
        limits=AssemblerLimits(decision_wait=2.0, idle_timeout=30.0, max_trace_wait=300.0, max_run_wait=900.0),
        clock=clock, may_be_agent=agent_detector({1}),
    )
    assembler.add([span(1, 2, parent=1), span(2, 2, parent=1)])  # trace 1 an agent run, trace 2 not
    for second in range(20, 900, 20):  # a span every 20 s, within idle_timeout, never the root
        clock.now = float(second)
        assembler.add([span(1, 100 + second, parent=1), span(2, 100 + second, parent=1)])
        released = assembler.poll()
        if second < 300:
            assert released == []
        elif second == 300:
            assert [(item.trace_id[-1], item.reason) for item in released] == [(2, ReleaseReason.MAX_TRACE_WAIT)]
        else:
            assert all(item.trace_id[-1] == 2 for item in released)  # trace 2 continues in revisions
    clock.now = 900.0
    assert assembler.next_due_in() == 0.0
    (held,) = [item for item in assembler.poll() if item.trace_id[-1] == 1]
    assert held.reason is ReleaseReason.MAX_RUN_WAIT and held.reason.early and held.revision == 1
    assert len(held.spans) == 1 + len(range(20, 900, 20))


def test_a_held_run_that_goes_quiet_or_gets_its_root_is_released_by_the_usual_rules() -> None:
    clock = FakeClock(start=0.0)
    assembler = TraceAssembler(
        limits=AssemblerLimits(decision_wait=2.0, idle_timeout=30.0, max_trace_wait=300.0, max_run_wait=900.0),
        clock=clock, may_be_agent=agent_detector({1, 2}),
    )
    for second in range(0, 320, 20):
        clock.now = float(second)
        assembler.add([span(1, 10 + second, parent=1), span(2, 10 + second, parent=1)])
        assert assembler.poll() == []
    clock.now = 320.0
    assembler.add([span(2, 1)])  # trace 2's root arrives
    clock.now = 322.5
    (rooted,) = assembler.poll()
    assert rooted.trace_id[-1] == 2 and rooted.reason is ReleaseReason.DECISION_WAIT
    clock.now = 330.0
    (quiet,) = assembler.poll()  # trace 1: last span at 300 s, idle for 30 s
    assert quiet.trace_id[-1] == 1 and quiet.reason is ReleaseReason.IDLE_TIMEOUT


def test_memory_pressure_releases_a_held_run_first_as_the_oldest() -> None:
    clock = FakeClock(start=0.0)
    assembler = TraceAssembler(
        limits=AssemblerLimits(decision_wait=2.0, idle_timeout=30.0, max_trace_wait=300.0, max_run_wait=900.0),
        clock=clock, may_be_agent=agent_detector({1}),
    )
    assembler.add([span(1, 2, parent=1, size=1000)])
    for second in range(20, 320, 20):
        clock.now = float(second)
        assembler.add([span(1, 100 + second, parent=1, size=1000)])
        assembler.poll()
    assembler.add([span(3, 2, parent=1, size=1000)])  # a younger trace
    (shed,) = assembler.shed(1)
    assert shed.trace_id[-1] == 1 and shed.reason is ReleaseReason.MEMORY_LIMIT
    assert [item.trace_id[-1] for item in assembler.drain()] == [3]


def test_without_max_run_wait_past_max_trace_wait_nothing_is_held() -> None:
    clock = FakeClock(start=0.0)
    assembler = TraceAssembler(
        limits=AssemblerLimits(decision_wait=2.0, idle_timeout=30.0, max_trace_wait=300.0, max_run_wait=0.0),
        clock=clock, may_be_agent=agent_detector({1}),
    )
    for second in range(0, 320, 20):
        clock.now = float(second)
        assembler.add([span(1, 10 + second, parent=1)])
        released = assembler.poll()
    assert [item.reason for item in released] == [ReleaseReason.MAX_TRACE_WAIT]


def test_a_clock_moved_by_next_due_in_always_finds_a_trace_due() -> None:
    """Deadlines and the time to them come from the same sums: moving the clock by exactly ``next_due_in``
    releases the trace (no spin on a remainder that float rounding leaves: here ``now - first_seen`` stays just
    under ``decision_wait`` while ``first_seen + decision_wait - now`` is already below a nanosecond)."""
    clock = FakeClock(start=1179.1870367106105)
    assembler = make(clock, decision_wait=0.3)
    assembler.add([span(1, 1)])
    clock.now = 1179.4870367106096
    due = assembler.next_due_in()
    assert due is not None and 0 < due < 1e-9
    clock.now += due
    (released,) = assembler.poll()
    assert released.reason is ReleaseReason.DECISION_WAIT
