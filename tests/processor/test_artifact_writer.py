"""The artifact writers never block the caller: when one is behind, trajectories are dropped and counted; the
worker's deferred writer writes only when told, in order."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

from otel_mapper.bundle.writer import BundleOptions
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from processor.pipeline.artifacts import ArtifactWriter, BackgroundArtifactWriter, DeferredArtifactWriter


class BlockedWriter(ArtifactWriter):
    """Writes nothing until released (a disk that stalls)."""

    release: threading.Event

    def write(self, trajectory: Trajectory, diagnosis: Diagnosis) -> int:
        assert self.release.wait(30)
        return 10


def test_offer_never_waits_for_the_disk_and_counts_what_it_drops(tmp_path: Path) -> None:
    writer = object.__new__(BlockedWriter)
    object.__setattr__(writer, "directory", tmp_path)
    object.__setattr__(writer, "options", BundleOptions())
    release = threading.Event()
    BlockedWriter.release = release
    capacity = 4
    background = BackgroundArtifactWriter(writer, capacity=capacity)
    trajectory, diagnosis = object(), object()
    try:
        started = time.monotonic()
        accepted = [background.offer(trajectory, diagnosis) for _ in range(20)]  # type: ignore[arg-type]
        elapsed = time.monotonic() - started
        assert elapsed < 1.0  # the stalled disk never held the caller
        # The queue bound, plus the batch the thread took off the queue before it stalled (at most a full queue).
        assert capacity <= accepted.count(True) <= 2 * capacity
        assert background.counts.dropped == accepted.count(False) >= 20 - 2 * capacity
    finally:
        release.set()
        background.close()
    assert background.counts.written == accepted.count(True)
    assert background.counts.written_bytes == 10 * accepted.count(True)
    assert not background.offer(trajectory, diagnosis)  # type: ignore[arg-type]  # closed


class RecordingWriter(ArtifactWriter):
    """Records what it is asked to write; fails on the trajectory named ``broken``."""

    written: list[object]

    def write(self, trajectory: Trajectory, diagnosis: Diagnosis) -> int:
        if trajectory.trace_id == "broken":
            raise OSError("disk full")
        self.written.append(trajectory.trace_id)
        return 7


def _trajectory(trace_id: str) -> Trajectory:
    return SimpleNamespace(trace_id=trace_id)  # type: ignore[return-value]  # all a writer's bookkeeping reads


def _recording_writer(tmp_path: Path) -> RecordingWriter:
    writer = object.__new__(RecordingWriter)
    object.__setattr__(writer, "directory", tmp_path)
    object.__setattr__(writer, "options", BundleOptions())
    RecordingWriter.written = []
    return writer


def test_deferred_writer_writes_nothing_until_told_then_all_in_order(tmp_path: Path) -> None:
    writer = _recording_writer(tmp_path)
    deferred = DeferredArtifactWriter(writer, capacity=3)
    accepted = [deferred.offer(_trajectory(name), object()) for name in ("a", "broken", "c", "d")]  # type: ignore[arg-type]
    assert accepted == [True, True, True, False]
    assert writer.written == [] and deferred.queued == 3  # offering writes nothing
    deferred.write_queued()
    assert writer.written == ["a", "c"] and deferred.queued == 0
    counts = deferred.counts
    assert (counts.queued, counts.dropped, counts.written, counts.written_bytes, counts.failed) == (3, 1, 2, 14, 1)


def test_deferred_writer_past_its_deadline_drops_and_counts_the_rest(tmp_path: Path) -> None:
    writer = _recording_writer(tmp_path)
    deferred = DeferredArtifactWriter(writer)
    for name in ("a", "b", "c"):
        deferred.offer(_trajectory(name), object())  # type: ignore[arg-type]
    readings = iter([0.0, 1.0, 2.0])  # the deadline (1.5) passes before the third
    deferred.write_queued(deadline=1.5, clock=lambda: next(readings))
    assert writer.written == ["a", "b"]
    assert deferred.counts.dropped == 1 and deferred.queued == 0
