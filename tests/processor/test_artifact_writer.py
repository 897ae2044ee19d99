"""The background artifact writer never blocks the caller: when it is behind, trajectories are dropped and counted."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from otel_mapper.bundle.writer import BundleOptions
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from processor.pipeline.artifacts import ArtifactWriter, BackgroundArtifactWriter


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
