"""The work in hand of analysis against the rate analysis clears it: spans cleared per second of busy time (a
backlog of at least the floor), never the offered load; the lag bound refuses only above the floor, with an
estimate, and not at all when it is 0. Admission control refuses with the lag in its message."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import pytest

from otel_mapper.otlp.held import hold_request
from processor.config import Config
from processor.pipeline.admission import AdmissionControl
from processor.pipeline.assembler import AssemblerLimits, ReleasedTrace, ReleaseReason, TraceAssembler
from processor.pipeline.backlog import LAG_FLOOR_SPANS, SAMPLE_SECONDS, WINDOW_SAMPLES, Backlog
from processor.pipeline.file_exporter import FileExporter
from processor.pipeline.intake import Backpressure
from processor.pipeline.outbound import Signal
from processor.pipeline.signal_pipeline import SignalPipeline
from processor.telemetry.counters import ExporterCounters, ProcessorCounters
from tests.support.clock import FakeClock
from tests.support.spans import request, span

MAX_LAG = 5.0


def clear(backlog: Backlog, clock: FakeClock, spans: int, *, per_second: int, step: int) -> None:
    """Clear ``spans`` in steps of ``step`` spans, each taking the time ``per_second`` gives it (the tests choose
    steps of a quarter or half second, exact in binary, so samples end where the test says)."""
    while spans > 0:
        chunk = min(step, spans)
        clock.advance(chunk / per_second)
        backlog.done(chunk)
        spans -= chunk


def measured(rate: int, clock: FakeClock, *, backlog: Backlog | None = None) -> Backlog:
    """A backlog whose clearing was measured at ``rate`` spans/s over one whole window, then emptied."""
    backlog = backlog if backlog is not None else Backlog(clock=clock)
    per_sample = int(rate * SAMPLE_SECONDS)
    backlog.taken(LAG_FLOOR_SPANS - 1 + per_sample * WINDOW_SAMPLES)
    for _ in range(WINDOW_SAMPLES):
        clock.advance(SAMPLE_SECONDS)
        backlog.done(per_sample)
    backlog.done(backlog.spans)  # the rest, below the floor: not measured
    return backlog


def test_a_trickle_leaves_no_estimate_and_a_burst_within_the_lag_is_taken() -> None:
    clock = FakeClock()
    backlog = Backlog(clock=clock)
    # A trickle: 50-span traces, one every second, each cleared in half a second. As offered load that is 50 spans/s;
    # per second of busy time 100 spans/s. Either figure would make the burst below look 400 s or more behind.
    for _ in range(120):
        backlog.taken(50)
        clock.advance(0.5)
        backlog.done(50)
        clock.advance(0.5)
    assert backlog.spans_per_second is None and backlog.behind(MAX_LAG) is None

    # A burst of 40,000 spans that analysis clears at 10,000 spans/s: 4 s of work, within the bound all along.
    backlog.taken(40_000)
    verdicts = []
    while backlog.spans:
        verdicts.append(backlog.behind(MAX_LAG))
        clear(backlog, clock, 2_500, per_second=10_000, step=2_500)
    assert verdicts and all(verdict is None for verdict in verdicts)
    assert backlog.spans_per_second == pytest.approx(10_000)


def test_a_trickle_after_a_measured_burst_does_not_lower_the_estimate() -> None:
    clock = FakeClock()
    backlog = measured(10_000, clock)

    for _ in range(100):  # one trace at a time, each cleared at 100 spans/s of busy time
        backlog.taken(50)
        clock.advance(0.5)
        backlog.done(50)
        clock.advance(60)  # and long idle stretches

    assert backlog.spans_per_second == pytest.approx(10_000)
    backlog.taken(45_000)
    assert backlog.behind(MAX_LAG) is None  # 4.5 s at the measured rate
    backlog.taken(10_000)
    behind = backlog.behind(MAX_LAG)
    assert behind is not None and behind.lag == pytest.approx(5.5)


def test_a_backlog_longer_than_the_lag_at_the_measured_rate_is_behind() -> None:
    clock = FakeClock()
    backlog = Backlog(clock=clock)
    backlog.taken(30_000)
    clear(backlog, clock, 2_000, per_second=2_000, step=500)  # one sample: 2,000 spans/s

    assert backlog.spans == 28_000
    behind = backlog.behind(MAX_LAG)
    assert behind is not None
    assert (behind.spans, behind.spans_per_second, behind.lag) == (28_000, pytest.approx(2_000), pytest.approx(14.0))
    assert behind.retry_after == 5.0  # the excess takes 9 s; the delay asked is at most 5 s
    assert str(behind).startswith("analysis is behind: 28000 spans in hand take 14.0s at the 2000 spans/s")
    assert "processor.max_analysis_lag is 5s" in str(behind)

    backlog.done(16_500)  # 11,500 spans: 5.75 s, the excess clears in under a second
    behind = backlog.behind(MAX_LAG)
    assert behind is not None and behind.retry_after == 1.0
    backlog.done(1_500)  # 10,000 spans: exactly 5 s
    assert backlog.behind(MAX_LAG) is None


def test_below_the_floor_nothing_is_behind_whatever_the_rate() -> None:
    clock = FakeClock()
    backlog = measured(100, clock)  # slow: 100 spans/s

    backlog.taken(LAG_FLOOR_SPANS - 1)  # 100 s of work at that rate
    assert backlog.lag() == pytest.approx((LAG_FLOOR_SPANS - 1) / 100)
    assert backlog.behind(MAX_LAG) is None
    backlog.taken(1)
    assert backlog.behind(MAX_LAG) is not None


def test_zero_turns_the_bound_off() -> None:
    clock = FakeClock()
    backlog = measured(100, clock)
    backlog.taken(1_000_000)
    assert backlog.behind(MAX_LAG) is not None
    assert backlog.behind(0.0) is None


def test_no_bound_before_the_first_sample_of_busy_time() -> None:
    clock = FakeClock()
    backlog = Backlog(clock=clock)
    backlog.taken(100_000)
    clock.advance(SAMPLE_SECONDS / 2)
    backlog.done(10)  # 20 spans/s so far, but over less than a sample

    assert backlog.spans_per_second is None and backlog.lag() is None
    assert backlog.behind(MAX_LAG) is None
    clock.advance(SAMPLE_SECONDS / 2)
    backlog.done(10)
    assert backlog.behind(MAX_LAG) is not None


def test_idle_time_and_time_below_the_floor_are_not_busy_time() -> None:
    clock = FakeClock()
    backlog = Backlog(clock=clock)
    backlog.taken(LAG_FLOOR_SPANS - 1)
    clock.advance(100)  # a backlog below the floor that nobody clears
    backlog.done(LAG_FLOOR_SPANS - 1)
    clock.advance(1000)  # idle
    assert backlog.spans_per_second is None

    backlog.taken(LAG_FLOOR_SPANS + 5_000)
    clear(backlog, clock, 5_000, per_second=5_000, step=1_250)
    assert backlog.spans_per_second == pytest.approx(5_000)


def test_busy_time_without_clearing_lowers_the_rate() -> None:
    """Analysis stalls while traces keep being released: the time counts, nothing is cleared."""
    clock = FakeClock()
    backlog = measured(10_000, clock)

    backlog.taken(20_000)  # 2 s of work at the measured rate
    assert backlog.behind(MAX_LAG) is None
    for _ in range(WINDOW_SAMPLES):
        clock.advance(SAMPLE_SECONDS)
        backlog.taken(100)

    assert backlog.spans_per_second == 0.0 and backlog.lag() == math.inf
    behind = backlog.behind(MAX_LAG)
    assert behind is not None and behind.retry_after == 5.0
    assert "none cleared lately" in str(behind)


def test_the_rate_follows_the_last_samples() -> None:
    clock = FakeClock()
    backlog = measured(1_000, clock)
    assert backlog.spans_per_second == pytest.approx(1_000)

    measured(8_000, clock, backlog=backlog)  # a whole window at the new rate: the old one is forgotten
    assert backlog.spans_per_second == pytest.approx(8_000)


def admission(tmp_path: Path, clock: FakeClock, **config: float) -> AdmissionControl:
    traces = SignalPipeline(
        Signal.TRACES, None, lambda settled: FileExporter(tmp_path, ExporterCounters(), on_settled=settled)
    )
    return AdmissionControl(
        Config(**config),
        TraceAssembler(AssemblerLimits(), clock=clock),
        traces,
        None,
        ProcessorCounters(),
        is_stopped=lambda: False,
        clock=clock,
    )


def released(spans: int, number: int = 1) -> ReleasedTrace:
    held = hold_request(request([span(1, "GET /", trace_id=number.to_bytes(16, "big"))]))[0]
    return ReleasedTrace(
        trace_id=held[0].trace_id,
        spans=held * spans,
        revision=1,
        reason=ReleaseReason.DECISION_WAIT,
        wire_bytes=spans * len(held[0].data),
    )


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "processor.pipeline.admission"]


def test_check_room_refuses_when_analysis_is_behind_and_says_so_once_a_minute(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    control = admission(tmp_path, clock)
    first, second = released(30_000, 1), released(2_000, 2)
    control.taken(first)
    control.taken(second)
    control.check_room()  # 32,000 spans in hand, no estimate yet: taken
    clock.advance(1.0)
    control.done(second)  # 2,000 spans/s over a second of busy time: 30,000 spans take 15 s

    assert control.pending_spans == 30_000
    caplog.set_level(logging.WARNING, logger="processor.pipeline.admission")
    refusals = []
    for _ in range(10):
        with pytest.raises(Backpressure) as refused:
            control.check_room()
        refusals.append(refused.value)
    assert str(refusals[0]).startswith("analysis is behind: 30000 spans in hand take 15.0s")
    assert refusals[0].retry_after == 5.0
    assert len(said(caplog)) == 1  # one line, not one per request
    clock.advance(60.0)
    with pytest.raises(Backpressure):
        control.check_room()
    lines = said(caplog)
    assert len(lines) == 2 and "10 refused since the last line" in lines[1]

    control.done(first)
    control.check_room()  # nothing in hand: taken again


def test_check_room_takes_everything_with_the_bound_off(tmp_path: Path) -> None:
    clock = FakeClock()
    control = admission(tmp_path, clock, max_analysis_lag=0.0)
    first, second = released(30_000, 1), released(2_000, 2)
    control.taken(first)
    control.taken(second)
    clock.advance(1.0)
    control.done(second)

    assert control.backlog.lag() == pytest.approx(15.0)
    control.check_room()
