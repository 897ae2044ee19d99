"""The run store: states of released traces in memory within a byte budget, spilled to disk past it, read back,
expired by the horizon, dropped (and counted) when memory and disk are both full. A fake clock; no sleeping."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from otel_mapper.mapping.build import MappingOptions, map_trace
from otel_mapper.mapping.run_state import RunState
from processor.pipeline.run_store import SPILL_SUFFIX, RunStore
from tests.support.clock import FakeClock
from tests.support.spans import envelopes, span


def state(trace: int, size: int = 1000, *, settled: bool = False) -> RunState:
    """A run's state of ``size`` estimated bytes; open (its top span not arrived) unless ``settled``."""
    trace_id = trace.to_bytes(16, "big")
    mapped = map_trace(envelopes([span(2, "step", parent=1, trace_id=trace_id)]), MappingOptions(keep_run=True)).state
    assert mapped is not None and not mapped.settled
    return dataclasses.replace(mapped, size_bytes=size, settled=settled)


def hex_of(trace: int) -> str:
    return trace.to_bytes(16, "big").hex()


def store(
    tmp_path: Path, clock: FakeClock, *, memory: int = 2500, storage: int = 1_000_000, horizon: float = 3600.0
) -> RunStore:
    return RunStore(
        memory_bytes=memory, storage_bytes=storage, horizon=horizon, directory=tmp_path / "runs", clock=clock
    )


def test_states_within_the_memory_budget_stay_in_memory(tmp_path: Path) -> None:
    runs = store(tmp_path, FakeClock(1000.0))
    runs.put(state(1))
    runs.put(state(2))
    assert runs.get(hex_of(1)) == state(1) and runs.get(hex_of(2)) == state(2)
    assert runs.counts.kept == 2 and runs.counts.kept_bytes == 2000 and runs.counts.spilled == 0
    assert not (tmp_path / "runs").exists()


def test_past_the_budget_the_least_recently_updated_spill_and_come_back(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    runs = store(tmp_path, clock)
    for trace in (1, 2, 3):
        clock.advance(1.0)
        runs.put(state(trace))
    assert runs.counts.kept == 2 and runs.counts.spilled == 1 and runs.counts.spilled_now == 1
    assert (tmp_path / "runs" / f"{hex_of(1)}{SPILL_SUFFIX}").is_file()
    assert runs.get(hex_of(1)) == state(1)  # read back from disk, and its file removed
    assert runs.counts.restored == 1 and runs.counts.spilled_now == 0
    assert not (tmp_path / "runs" / f"{hex_of(1)}{SPILL_SUFFIX}").exists()


def test_a_later_process_finds_what_an_earlier_one_spilled(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    first = store(tmp_path, clock, memory=0)
    first.put(state(7))
    second = store(tmp_path, clock)
    assert second.get(hex_of(7)) == state(7)


def test_states_idle_past_the_horizon_are_forgotten_in_memory_and_on_disk(tmp_path: Path) -> None:
    clock = FakeClock(10_000.0)
    runs = store(tmp_path, clock, memory=1000, horizon=100.0)
    runs.put(state(1))
    runs.put(state(2))  # 1 spills
    spilled = tmp_path / "runs" / f"{hex_of(1)}{SPILL_SUFFIX}"
    os.utime(spilled, (clock.now, clock.now))
    clock.advance(101.0)
    assert runs.get(hex_of(2)) is None
    assert runs.get(hex_of(1)) is None and not spilled.exists()
    assert runs.counts.expired == 2 and runs.counts.kept == 0 and runs.counts.spilled_now == 0


def test_the_sweep_removes_expired_files_nobody_asks_for(tmp_path: Path) -> None:
    clock = FakeClock(10_000.0)
    runs = store(tmp_path, clock, memory=0, horizon=100.0)
    runs.put(state(1))
    spilled = tmp_path / "runs" / f"{hex_of(1)}{SPILL_SUFFIX}"
    os.utime(spilled, (clock.now, clock.now))
    clock.advance(50.0)
    runs.sweep()
    assert spilled.exists()
    clock.advance(51.0)
    runs.sweep()
    assert not spilled.exists() and runs.counts.expired == 1


def test_with_memory_and_disk_full_the_oldest_are_dropped_and_counted(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    one_file = len(_pickled(state(1)))
    runs = store(tmp_path, clock, memory=1000, storage=2 * one_file + 10)
    for trace in range(1, 6):
        clock.advance(1.0)
        runs.put(state(trace))
    assert runs.counts.kept == 1 and runs.counts.spilled_now == 2
    assert runs.counts.evicted == 2
    assert runs.get(hex_of(1)) is None and runs.get(hex_of(2)) is None
    assert runs.counts.spilled_bytes <= 2 * one_file + 10


def test_without_spilling_states_past_memory_are_dropped(tmp_path: Path) -> None:
    runs = store(tmp_path, FakeClock(1000.0), memory=1500, storage=0)
    runs.put(state(1))
    runs.put(state(2))
    assert runs.counts.kept == 1 and runs.counts.evicted == 1 and runs.get(hex_of(1)) is None
    assert not (tmp_path / "runs").exists()


def test_a_damaged_spilled_file_costs_that_run_its_history_only(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    runs = store(tmp_path, clock, memory=0)
    runs.put(state(1))
    runs.put(state(2))
    (tmp_path / "runs" / f"{hex_of(1)}{SPILL_SUFFIX}").write_bytes(b"not a pickle")
    assert runs.get(hex_of(1)) is None
    assert runs.counts.failed == 1 and not (tmp_path / "runs" / f"{hex_of(1)}{SPILL_SUFFIX}").exists()
    assert runs.get(hex_of(2)) == state(2)


def test_a_file_holding_another_traces_state_is_refused(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    runs = store(tmp_path, clock, memory=0)
    runs.put(state(1))
    runs.put(state(2))
    directory = tmp_path / "runs"
    (directory / f"{hex_of(1)}{SPILL_SUFFIX}").write_bytes((directory / f"{hex_of(2)}{SPILL_SUFFIX}").read_bytes())
    assert runs.get(hex_of(1)) is None and runs.counts.failed == 1


def test_a_disk_that_refuses_writes_is_counted_and_the_state_dropped(tmp_path: Path) -> None:
    blocker = tmp_path / "runs"
    blocker.write_text("a file where the directory should be")
    runs = RunStore(
        memory_bytes=0, storage_bytes=1_000_000, horizon=60.0, directory=blocker / "0", clock=FakeClock(1000.0)
    )
    runs.put(state(1))
    assert runs.counts.failed == 1 and runs.counts.evicted == 1 and runs.get(hex_of(1)) is None


def test_settled_runs_make_room_before_open_ones_spill(tmp_path: Path) -> None:
    """A settled run (top span in) rarely continues: its state goes first, and is never written to disk."""
    clock = FakeClock(1000.0)
    runs = store(tmp_path, clock, memory=2500)
    runs.put(state(1, settled=True))
    clock.advance(1.0)
    runs.put(state(2))
    clock.advance(1.0)
    runs.put(state(3))
    assert runs.get(hex_of(1)) is None and runs.get(hex_of(2)) is not None and runs.get(hex_of(3)) is not None
    assert runs.counts.settled_dropped == 1 and runs.counts.spilled == 0 and runs.counts.evicted == 0
    runs.put(state(4, settled=True))
    runs.close()
    assert runs.counts.spilled_now == 2  # the open runs, for the next start; the settled one is let go
    assert store(tmp_path, clock).get(hex_of(4)) is None


def test_putting_a_run_again_replaces_its_state(tmp_path: Path) -> None:
    runs = store(tmp_path, FakeClock(1000.0))
    runs.put(state(1, size=400))
    runs.put(dataclasses.replace(state(1, size=700), revision=2))
    kept = runs.get(hex_of(1))
    assert kept is not None and kept.revision == 2
    assert runs.counts.kept == 1 and runs.counts.kept_bytes == 700


def _pickled(run: RunState) -> bytes:
    import pickle

    return pickle.dumps(run, protocol=pickle.HIGHEST_PROTOCOL)


def test_closing_spills_what_memory_holds_so_a_restart_goes_on(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    runs = store(tmp_path, clock)
    runs.put(state(1))
    runs.put(state(2))
    runs.close()
    runs.close()
    assert runs.counts.kept == 0 and runs.counts.spilled_now == 2
    restarted = store(tmp_path, clock)
    assert restarted.get(hex_of(1)) == state(1) and restarted.get(hex_of(2)) == state(2)
