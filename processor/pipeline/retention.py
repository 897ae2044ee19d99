"""How long artifact files are kept (``output.retention``, the Collector ``fileexporter``'s names), and deletion
of one trace's artifacts by id.

Artifacts live in ``<output.directory>/<trace id hex>/`` (:mod:`processor.pipeline.artifacts`). A trace's files
are kept or deleted together, and a trace's age is that of its newest artifact file (a later revision keeps
the earlier ones). A sweep deletes, oldest trace first:

- every trace older than ``max_days``;
- then, while the artifacts add up to more than ``max_megabytes``, the oldest remaining traces.

Only artifact files are touched (``bundle*.json``, ``ledger*.json``); a trace directory left empty is removed.
Other files in the output directory (spans written by the file exporter, the spool, drift baselines) are not.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from processor.config import Config
from processor.pipeline.artifacts import is_artifact_name
from processor.pipeline.run_store import RUNS_DIRECTORY, SPILL_SUFFIX
from processor.telemetry.counters import ProcessorCounters

__all__ = ["RetentionSweeper", "TraceArtifacts", "delete_trace_artifacts", "plan_retention", "scan_artifacts"]

logger = logging.getLogger(__name__)

SWEEP_INTERVAL: Final = 30.0
"""Seconds between sweeps: at the default policy a few hundred files are written in that time."""
MiB: Final = 1024 * 1024
DAY: Final = 86_400.0
_TRACE_DIR = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True, slots=True)
class TraceArtifacts:
    trace_id: str
    """Hex trace id (the directory's name)."""
    newest: float
    """Modification time of the newest artifact file (seconds since the epoch)."""
    size: int
    """Bytes of its artifact files."""


def scan_artifacts(directory: Path) -> list[TraceArtifacts]:
    """Every trace directory with artifact files under ``directory`` (missing directory: none)."""
    found: list[TraceArtifacts] = []
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return found
    for entry in entries:
        if not _TRACE_DIR.match(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        newest, size = 0.0, 0
        try:
            for item in os.scandir(entry.path):
                if is_artifact_name(item.name) and item.is_file(follow_symlinks=False):
                    stat = item.stat(follow_symlinks=False)
                    newest, size = max(newest, stat.st_mtime), size + stat.st_size
        except FileNotFoundError:  # deleted meanwhile
            continue
        if size:
            found.append(TraceArtifacts(entry.name, newest, size))
    return found


def plan_retention(
    traces: Sequence[TraceArtifacts], now: float, max_bytes: int, max_age: float
) -> list[TraceArtifacts]:
    """The traces to delete, oldest first (``max_bytes``/``max_age`` of 0: that bound is off). Pure."""
    ordered = sorted(traces, key=lambda trace: (trace.newest, trace.trace_id))
    doomed: list[TraceArtifacts] = []
    total = sum(trace.size for trace in ordered)
    for trace in ordered:
        too_old = max_age > 0 and now - trace.newest > max_age
        too_big = max_bytes > 0 and total > max_bytes
        if not (too_old or too_big):
            break  # the rest are newer, and the total fits
        doomed.append(trace)
        total -= trace.size
    return doomed


def delete_trace_artifacts(directory: Path, trace_id: str) -> tuple[int, int]:
    """Delete one trace's artifact files (every revision) and its spilled run state; returns (files, bytes)
    deleted. ``trace_id`` must be 32 hex digits (a :class:`ValueError` says so otherwise). A run state still in a
    running processor's memory is not reached: it expires with ``processor.run_horizon``."""
    trace_id = trace_id.strip().lower()
    if not _TRACE_DIR.match(trace_id):
        raise ValueError(f"{trace_id!r} is not a trace id (32 hex digits, as in Jaeger or Tempo)")
    target = directory / trace_id
    files = deleted_bytes = 0
    for spilled in (directory / RUNS_DIRECTORY).glob(f"*/{trace_id}{SPILL_SUFFIX}"):  # the facts its run state kept
        try:
            size = spilled.stat().st_size
            spilled.unlink()
        except FileNotFoundError:
            continue
        files, deleted_bytes = files + 1, deleted_bytes + size
    try:
        entries = list(os.scandir(target))
    except FileNotFoundError:
        return files, deleted_bytes
    for item in entries:
        if is_artifact_name(item.name) and item.is_file(follow_symlinks=False):
            size = item.stat(follow_symlinks=False).st_size
            try:
                os.unlink(item.path)
            except FileNotFoundError:
                continue
            files, deleted_bytes = files + 1, deleted_bytes + size
    try:
        target.rmdir()  # only when nothing else is left in it
    except OSError:
        pass
    return files, deleted_bytes


class RetentionSweeper:
    """Applies ``output.retention`` to one output directory. ``sweep()`` runs in a thread; ``run()`` sweeps every
    :data:`SWEEP_INTERVAL` seconds until cancelled, counting what it deletes."""

    def __init__(
        self, directory: Path, max_megabytes: int, max_days: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.directory = directory
        self.max_bytes = max_megabytes * MiB
        self.max_age = max_days * DAY
        self._clock = clock

    @classmethod
    def from_config(cls, config: Config) -> RetentionSweeper | None:
        """``None`` when neither bound is set."""
        artifacts = config.artifacts
        if not artifacts.max_megabytes and not artifacts.max_days:
            return None
        return cls(Path(config.output_dir), artifacts.max_megabytes, artifacts.max_days)

    def sweep(self) -> tuple[int, int]:
        """Delete what the bounds no longer allow; returns (traces, bytes) deleted."""
        doomed = plan_retention(scan_artifacts(self.directory), self._clock(), self.max_bytes, self.max_age)
        traces = deleted = 0
        for trace in doomed:
            files, size = delete_trace_artifacts(self.directory, trace.trace_id)
            if files:
                traces, deleted = traces + 1, deleted + size
        if traces:
            logger.info("retention: deleted the artifacts of %d trace(s), %.1f MiB (output.retention)",
                        traces, deleted / MiB)
        return traces, deleted

    async def run(self, counters: ProcessorCounters, interval: float = SWEEP_INTERVAL) -> None:
        while True:
            try:
                traces, deleted = await asyncio.to_thread(self.sweep)
            except OSError as exc:
                logger.error("retention: sweeping %s failed (%s); trying again in %.0fs", self.directory, exc, interval)
            else:
                counters.artifacts_retention_deleted_traces += traces
                counters.artifacts_retention_deleted_bytes += deleted
            await asyncio.sleep(interval)
