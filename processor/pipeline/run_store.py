"""The run states of released traces, kept so that a trace's next revision is analysed over the whole run.

After a trace is analysed, its :class:`~otel_mapper.mapping.run_state.RunState` (the facts of every span mapped
so far, not the spans) is put here; when later spans of the same trace are released, the analysis takes the state
back and maps the new spans together with it. Bounds:

- ``memory_bytes``: estimated size of the states held in memory; beyond it, the least recently updated states of
  *settled* runs (top span arrived: late spans are rare) are forgotten first, then those of *open* runs (still
  expected to go on) spill to ``directory`` (one file per trace), or are dropped when spilling is off;
- ``storage_bytes``: size of the spilled files; beyond it the oldest files are deleted;
- ``horizon``: a state not updated for this long is forgotten, in memory and on disk (a run that idle is over).

A state that is dropped, deleted or expired is counted; a later revision of its trace is then analysed over its
own spans, and says so (:func:`otel_mapper.mapping.build.map_trace` without ``prior`` declares the earlier
revisions missing). Spilled files are this process's own pickles, written atomically under the output directory
(the spool's trust model): they are read back only by trace id, and a file that does not load is deleted.

Threading: one owner, the thread or worker process that analyses (a store is never shared between processes;
with several workers the main process sends a run's revisions to the worker that holds its state). Time comes
from an injected clock; nothing here sleeps.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from otel_mapper.mapping.run_state import RunState
from processor.config import Config
from processor.telemetry.counters import RunStateCounters

__all__ = ["RUNS_DIRECTORY", "SPILL_SUFFIX", "RunStore", "run_store"]

logger = logging.getLogger(__name__)

SPILL_SUFFIX: Final = ".run"
RUNS_DIRECTORY: Final = "runs"
"""Under ``output.directory``: one folder per analysing process (``0``, ``1``...) of spilled run states."""
SWEEP_EVERY: Final = 256
"""Puts between two sweeps of the spill directory for expired files (a sweep lists the directory)."""


def run_store(config: Config, number: int = 0) -> RunStore:
    """The store of one analysing process (``number``: its worker number), spilling under
    ``<output.directory>/runs/<number>``."""
    runs = config.runs
    return RunStore(
        memory_bytes=runs.memory_bytes,
        storage_bytes=runs.storage_bytes,
        horizon=runs.horizon,
        directory=Path(config.output_dir) / RUNS_DIRECTORY / str(number),
    )


@dataclass(slots=True)
class _Kept:
    state: RunState
    touched: float


@dataclass(slots=True)
class RunStore:
    memory_bytes: int
    storage_bytes: int
    horizon: float
    directory: Path | None
    """Where states spill; ``None`` (or ``storage_bytes == 0``): no spilling, states beyond memory are dropped."""
    clock: Callable[[], float] = time.time
    """Wall-clock seconds: spilled files are aged by their modification time, so the clock must be the same."""
    counts: RunStateCounters = field(default_factory=RunStateCounters)
    _memory: OrderedDict[str, _Kept] = field(default_factory=OrderedDict)
    """Every state in memory, least recently updated first."""
    _settled: OrderedDict[str, None] = field(default_factory=OrderedDict)
    """The settled ones among them, in the same order (the first to go when memory is full)."""
    _files: OrderedDict[str, int] | None = None
    """Spilled trace ids, oldest first, with their file sizes (listed from disk on first use)."""
    _puts: int = 0
    _spill_failed_said: bool = False

    def get(self, trace_id: str) -> RunState | None:
        """The state of ``trace_id``'s run, or ``None`` (never seen, expired, dropped). A spilled state is read
        back (and its file removed: it is in memory again)."""
        now = self.clock()
        kept = self._memory.get(trace_id)
        if kept is not None:
            if now - kept.touched > self.horizon:
                self._forget(trace_id)
                self.counts.expired += 1
                return None
            return kept.state
        return self._restore(trace_id, now)

    def put(self, state: RunState) -> None:
        """Keep ``state`` (replacing its run's earlier one), then bring memory and disk within their bounds."""
        now = self.clock()
        self._forget(state.trace_id)
        self._drop_file(state.trace_id)
        self._keep(state, now)
        self._expire_memory(now)
        while self.counts.kept_bytes > self.memory_bytes and self._settled:
            self._forget(next(iter(self._settled)))
            self.counts.settled_dropped += 1
        while self.counts.kept_bytes > self.memory_bytes and len(self._memory) > 1:
            self._spill_oldest()
        if self.counts.kept_bytes > self.memory_bytes:  # one state larger than the whole budget
            self._spill_oldest()
        self._puts += 1
        if self._puts % SWEEP_EVERY == 0:
            self.sweep()

    def close(self) -> None:
        """Spill the states of open runs held in memory (oldest first, within ``storage_bytes``), so runs still
        under way go on after a restart; settled ones are let go. Safe twice."""
        while self._settled:
            self._forget(next(iter(self._settled)))
        while self._memory:
            self._spill_oldest()

    def discard(self, trace_id: str) -> None:
        """Forget a run (its trace is done with for good, or its artifacts were deleted)."""
        self._forget(trace_id)
        self._drop_file(trace_id)

    def sweep(self) -> None:
        """Forget what idled past the horizon, in memory and on disk."""
        now = self.clock()
        self._expire_memory(now)
        directory = self._spill_directory()
        if directory is None:
            return
        for trace_id in list(self._spilled()):
            path = directory / f"{trace_id}{SPILL_SUFFIX}"
            try:
                age = now - path.stat().st_mtime
            except FileNotFoundError:
                self._untrack(trace_id)
                continue
            if age > self.horizon:
                self._drop_file(trace_id)
                self.counts.expired += 1

    # --- memory -----------------------------------------------------------------------------------------------

    def _keep(self, state: RunState, now: float) -> None:
        self._memory[state.trace_id] = _Kept(state, now)
        if state.settled:
            self._settled[state.trace_id] = None
        self.counts.kept += 1
        self.counts.kept_bytes += state.size_bytes

    def _forget(self, trace_id: str) -> None:
        kept = self._memory.pop(trace_id, None)
        if kept is not None:
            self._settled.pop(trace_id, None)
            self.counts.kept -= 1
            self.counts.kept_bytes -= kept.state.size_bytes

    def _expire_memory(self, now: float) -> None:
        while self._memory:
            trace_id, kept = next(iter(self._memory.items()))
            if now - kept.touched <= self.horizon:
                return
            self._forget(trace_id)
            self.counts.expired += 1

    def _spill_oldest(self) -> None:
        trace_id, kept = next(iter(self._memory.items()))
        self._forget(trace_id)
        if not self._spill(kept.state):
            self.counts.evicted += 1

    # --- disk -------------------------------------------------------------------------------------------------

    def _spill_directory(self) -> Path | None:
        if self.directory is None or self.storage_bytes <= 0:
            return None
        return self.directory

    def _spilled(self) -> OrderedDict[str, int]:
        """Spilled files by trace id, oldest first; listed from the directory once (files a previous process left
        are this run's too: their traces may go on)."""
        if self._files is None:
            self._files = OrderedDict()
            directory = self._spill_directory()
            if directory is not None and directory.is_dir():
                found = []
                for entry in os.scandir(directory):
                    if entry.name.endswith(SPILL_SUFFIX) and entry.is_file(follow_symlinks=False):
                        stat = entry.stat()
                        found.append((stat.st_mtime, entry.name[: -len(SPILL_SUFFIX)], stat.st_size))
                for _, trace_id, size in sorted(found):
                    self._files[trace_id] = size
                    self.counts.spilled_now += 1
                    self.counts.spilled_bytes += size
        return self._files

    def _spill(self, state: RunState) -> bool:
        directory = self._spill_directory()
        if directory is None:
            return False
        data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > self.storage_bytes:
            return False
        files = self._spilled()
        while files and self.counts.spilled_bytes + len(data) > self.storage_bytes:
            oldest = next(iter(files))
            self._drop_file(oldest)
            self.counts.evicted += 1
        path = directory / f"{state.trace_id}{SPILL_SUFFIX}"
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            directory.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(data)
            os.replace(partial, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
            self.counts.failed += 1
            if not self._spill_failed_said:  # once: the counter tells how often since
                self._spill_failed_said = True
                logger.warning(
                    "could not spill a run state to %s (%s); runs that do not fit in memory lose their earlier "
                    "revisions: free disk space, fix the directory, or raise processor.run_state_memory_mib "
                    "(counted in otel_trajectory_processor_run_state_failures_total; said once)",
                    directory,
                    exc.strerror or exc,
                )
            return False
        files[state.trace_id] = len(data)
        self.counts.spilled_now += 1
        self.counts.spilled_bytes += len(data)
        self.counts.spilled += 1
        return True

    def _restore(self, trace_id: str, now: float) -> RunState | None:
        directory = self._spill_directory()
        if directory is None or trace_id not in self._spilled():
            return None
        path = directory / f"{trace_id}{SPILL_SUFFIX}"
        try:
            if now - path.stat().st_mtime > self.horizon:
                self._drop_file(trace_id)
                self.counts.expired += 1
                return None
            state = pickle.loads(path.read_bytes())  # noqa: S301  (our own file, see the module docstring)
        except FileNotFoundError:
            self._untrack(trace_id)
            return None
        except Exception as exc:  # a damaged file costs that run its history, nothing else
            self.counts.failed += 1
            logger.warning("the spilled run state of trace %s does not load (%s); deleted", trace_id, exc)
            self._drop_file(trace_id)
            return None
        if not isinstance(state, RunState) or state.trace_id != trace_id:
            self.counts.failed += 1
            self._drop_file(trace_id)
            return None
        self._drop_file(trace_id)
        self.counts.restored += 1
        self._keep(state, now)
        return state

    def _drop_file(self, trace_id: str) -> None:
        files = self._files
        if files is None or trace_id not in files:
            return
        directory = self._spill_directory()
        if directory is not None:
            (directory / f"{trace_id}{SPILL_SUFFIX}").unlink(missing_ok=True)
        self._untrack(trace_id)

    def _untrack(self, trace_id: str) -> None:
        files = self._files
        if files is not None and trace_id in files:
            self.counts.spilled_now -= 1
            self.counts.spilled_bytes -= files.pop(trace_id)
