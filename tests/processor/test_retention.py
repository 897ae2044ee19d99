"""output.retention (oldest first, both bounds, a fake clock) and deleting one trace's artifacts by id."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from processor.cli.main import main as cli_main
from processor.pipeline.retention import (
    DAY,
    MiB,
    RetentionSweeper,
    TraceArtifacts,
    delete_trace_artifacts,
    plan_retention,
    scan_artifacts,
)

NOW = 1_800_000_000.0


def trace_hex(number: int) -> str:
    return f"{number:032x}"


def make_trace(directory: Path, number: int, age_days: float, size: int, *, revisions: int = 1) -> Path:
    target = directory / trace_hex(number)
    target.mkdir(parents=True)
    names = ["bundle.json", "ledger.json"] + [n for r in range(2, revisions + 1) for n in (f"bundle.r{r}.json", f"ledger.r{r}.json")]
    for name in names:
        path = target / name
        path.write_bytes(b"x" * (size // len(names)))
        os.utime(path, (NOW - age_days * DAY, NOW - age_days * DAY))
    return target


def test_plan_deletes_the_oldest_first_until_the_total_fits() -> None:
    traces = [TraceArtifacts(trace_hex(n), NOW - n * 10, 100) for n in range(1, 6)]  # 5 is the oldest
    doomed = plan_retention(traces, NOW, max_bytes=250, max_age=0)
    assert [t.trace_id for t in doomed] == [trace_hex(5), trace_hex(4), trace_hex(3)]
    assert plan_retention(traces, NOW, max_bytes=0, max_age=0) == []


def test_plan_deletes_every_trace_past_max_age_whatever_the_size() -> None:
    traces = [TraceArtifacts(trace_hex(n), NOW - n * DAY, 10) for n in range(1, 6)]
    doomed = plan_retention(traces, NOW, max_bytes=10_000, max_age=2.5 * DAY)
    assert sorted(t.trace_id for t in doomed) == [trace_hex(3), trace_hex(4), trace_hex(5)]


def test_both_bounds_together() -> None:
    traces = [TraceArtifacts(trace_hex(n), NOW - n * DAY, 100) for n in range(1, 6)]
    doomed = plan_retention(traces, NOW, max_bytes=150, max_age=3.5 * DAY)  # age takes 4, 5; size then 3, 2
    assert [t.trace_id for t in doomed] == [trace_hex(5), trace_hex(4), trace_hex(3), trace_hex(2)]


def test_sweep_with_a_fake_clock_deletes_artifacts_only(tmp_path: Path) -> None:
    old = make_trace(tmp_path, 1, age_days=10, size=600_000, revisions=2)
    (old / "spans.otlp.json").write_text("{}")  # the file exporter's spans are not artifacts
    make_trace(tmp_path, 2, age_days=5, size=600_000)
    young = make_trace(tmp_path, 3, age_days=0.5, size=600_000)
    (tmp_path / "drift").mkdir()
    (tmp_path / "drift" / "bundle.json").write_text("not a trace directory")
    clock = [NOW]
    sweeper = RetentionSweeper(tmp_path, max_megabytes=1, max_days=7, clock=lambda: clock[0])
    assert scan_artifacts(tmp_path) and len(scan_artifacts(tmp_path)) == 3

    traces, size = sweeper.sweep()

    assert traces == 2 and size > MiB  # 1 for its age; 2 because 2 + 3 exceed 1 MiB; 3 is the newest and stays
    assert sorted(p.name for p in old.iterdir()) == ["spans.otlp.json"]
    assert not (tmp_path / trace_hex(2)).exists()
    assert young.exists() and (tmp_path / "drift" / "bundle.json").exists()
    clock[0] = NOW + 7 * DAY  # a week later the last one is too old
    assert sweeper.sweep()[0] == 1 and not young.exists()


def test_delete_one_trace_by_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = make_trace(tmp_path, 1, age_days=0, size=100)
    make_trace(tmp_path, 2, age_days=0, size=100, revisions=3)

    assert cli_main(["delete", trace_hex(2).upper(), "--output-dir", str(tmp_path)]) == 0

    assert "6 artifact file(s) deleted" in capsys.readouterr().out
    assert not (tmp_path / trace_hex(2)).exists() and kept.exists()
    assert delete_trace_artifacts(tmp_path, trace_hex(2)) == (0, 0)  # already gone: nothing to do
    assert cli_main(["delete", "not-a-trace-id", "--output-dir", str(tmp_path)]) == 2
    assert "32 hex digits" in capsys.readouterr().err


def test_delete_also_removes_the_traces_spilled_run_state(tmp_path: Path) -> None:
    make_trace(tmp_path, 3, age_days=0, size=100)
    spilled = tmp_path / "runs" / "1" / f"{trace_hex(3)}.run"
    other = tmp_path / "runs" / "0" / f"{trace_hex(4)}.run"
    for path in (spilled, other):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"state")
    assert delete_trace_artifacts(tmp_path, trace_hex(3)) == (3, 100 - 100 % 2 + 5)
    assert not spilled.exists() and other.exists()


def test_the_periodic_sweep_counts_what_it_deletes_in_self_metrics(tmp_path: Path) -> None:
    import asyncio

    from processor.telemetry.counters import ProcessorCounters, Telemetry

    make_trace(tmp_path, 1, age_days=3, size=100)
    make_trace(tmp_path, 2, age_days=0, size=100)
    telemetry = Telemetry()
    sweeper = RetentionSweeper(tmp_path, max_megabytes=0, max_days=1, clock=lambda: NOW)

    async def run() -> ProcessorCounters:
        task = asyncio.create_task(sweeper.run(telemetry.processor, interval=3600))
        try:
            for _ in range(1000):  # the first sweep runs at once, in a thread
                if telemetry.processor.artifacts_retention_deleted_traces:
                    break
                await asyncio.sleep(0.01)
        finally:
            task.cancel()
        return telemetry.processor

    counters = asyncio.run(run())
    assert counters.artifacts_retention_deleted_traces == 1 and counters.artifacts_retention_deleted_bytes == 100
    assert telemetry.snapshot()["otel_trajectory_processor_artifacts_retention_deleted_traces"] == 1
    assert (tmp_path / trace_hex(2)).exists() and not (tmp_path / trace_hex(1)).exists()
