"""Per-trace artifact files: ``<dir>/<trace_id_hex>/bundle.json`` and ``ledger.json`` for revision 1;
``bundle.r<N>.json`` / ``ledger.r<N>.json`` for later revisions (an earlier bundle is never rewritten, AT-6.2e).

:class:`ArtifactWriter` writes one trajectory's files now (``map``). :class:`BackgroundArtifactWriter` is what
``serve`` uses: analysis hands it the trajectory and diagnosis and goes on; one thread builds and writes the files
in batches, off the receive and analyse path.

Threading rules of :class:`BackgroundArtifactWriter`: ``offer`` is called from one thread (the analysis thread or
a worker's main thread) and never blocks: when :data:`ARTIFACT_QUEUE_SIZE` trajectories are already waiting, the
new one is dropped and counted (``dropped``): delivery of the spans never waits for artifacts. The writer thread
owns the files; counters are plain integers, each written by one thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import orjson

from otel_mapper.bundle.ledger import write_ledger
from otel_mapper.bundle.writer import BundleOptions, write_bundle
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from processor.config import Config, bundle_options

__all__ = [
    "ARTIFACT_QUEUE_SIZE",
    "ArtifactCounts",
    "ArtifactWriter",
    "BackgroundArtifactWriter",
    "DeferredArtifactWriter",
    "artifact_names",
    "artifact_writer",
    "indented",
    "is_artifact_name",
]

logger = logging.getLogger(__name__)

ARTIFACT_QUEUE_SIZE: Final = 256
"""Trajectories waiting for their files, per writer. A 9-span trajectory's bundle and ledger take about a
millisecond to build and write, so a full queue is a fraction of a second of work; beyond it the writer is
behind for good (a slow disk) and keeping more would only hold memory."""
WRITE_BATCH: Final = 32
"""Trajectories written per wake-up of the writer thread."""
STOP_TIMEOUT: Final = 10.0


def artifact_names(revision: int) -> tuple[str, str]:
    if revision <= 1:
        return "bundle.json", "ledger.json"
    return f"bundle.r{revision}.json", f"ledger.r{revision}.json"


def is_artifact_name(name: str) -> bool:
    """Whether a file name is one :func:`artifact_names` gives (what retention and deletion may remove)."""
    return name.endswith(".json") and name.startswith(("bundle.", "ledger."))


def _write_atomically(path: Path, data: bytes) -> None:
    """Write beside ``path`` under a name no other writer uses, then rename over it (readers never see half)."""
    # os-level calls: pathlib's per-call path handling and an unlink of a file already renamed away cost about as
    # much as the writes themselves for files of a few kilobytes.
    partial = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
        finally:
            os.close(descriptor)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def indented(data: bytes) -> bytes:
    """The same JSON document, two-space indented with a trailing newline; key order kept as written."""
    return orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2) + b"\n"


@dataclass(frozen=True, slots=True)
class ArtifactWriter:
    directory: Path
    options: BundleOptions
    pretty: bool = False
    """Indent bundle and ledger (``map --pretty``); the integrity digest is over canonical JSON, so it holds."""

    def write(self, trajectory: Trajectory, diagnosis: Diagnosis) -> int:
        """Write the trajectory's bundle and ledger; returns the bytes written."""
        target = self.directory / trajectory.trace_id
        target.mkdir(parents=True, exist_ok=True)
        options = self.options
        if trajectory.revision > 1:
            options = replace(options, derived_from=f"{trajectory.trajectory_id}@r{trajectory.revision - 1}")
        bundle_name, ledger_name = artifact_names(trajectory.revision)
        bundle = write_bundle(trajectory, diagnosis, options)
        ledger = write_ledger(trajectory, diagnosis, content_mode=options.content_mode, prices=options.prices)
        if self.pretty:
            bundle, ledger = indented(bundle), indented(ledger)
        _write_atomically(target / bundle_name, bundle)
        _write_atomically(target / ledger_name, ledger)
        return len(bundle) + len(ledger)


def artifact_writer(config: Config) -> ArtifactWriter:
    """The writer of ``config``'s output directory, content mode, rights statements and prices."""
    return ArtifactWriter(Path(config.output_dir), bundle_options(config))


@dataclass(slots=True)
class ArtifactCounts:
    """What a :class:`BackgroundArtifactWriter` did since it started."""

    queued: int = 0
    """Trajectories accepted for writing."""
    dropped: int = 0
    """Trajectories refused because the queue was full (the writer is behind)."""
    written: int = 0
    written_bytes: int = 0
    failed: int = 0
    """Trajectories whose files could not be built or written (logged)."""


class BackgroundArtifactWriter:
    """A bounded queue of trajectories and one daemon thread that writes their files, in order, in batches."""

    def __init__(self, writer: ArtifactWriter, capacity: int = ARTIFACT_QUEUE_SIZE) -> None:
        self._writer = writer
        self._capacity = capacity
        self._queue: deque[tuple[Trajectory, Diagnosis]] = deque()
        self._ready = threading.Condition()
        self._idle = threading.Event()
        self._idle.set()
        self._closed = False
        self.counts = ArtifactCounts()
        self._thread: threading.Thread | None = None

    @property
    def queued(self) -> int:
        """Trajectories waiting now."""
        return len(self._queue)

    def offer(self, trajectory: Trajectory, diagnosis: Diagnosis) -> bool:
        """Queue one trajectory's files; ``False`` (and counted as dropped) when the queue is full or closed."""
        with self._ready:
            if self._closed or len(self._queue) >= self._capacity:
                self.counts.dropped += 1
                return False
            self._queue.append((trajectory, diagnosis))
            self.counts.queued += 1
            self._idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="otel-trajectory-artifacts", daemon=True)
                self._thread.start()
            self._ready.notify()
        return True

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._idle.set()
                    self._ready.wait()
                if not self._queue:  # closed and drained
                    self._idle.set()
                    return
                batch = [self._queue.popleft() for _ in range(min(WRITE_BATCH, len(self._queue)))]
            for trajectory, diagnosis in batch:
                self._write(trajectory, diagnosis)

    def _write(self, trajectory: Trajectory, diagnosis: Diagnosis) -> None:
        _write_counted(self._writer, self.counts, trajectory, diagnosis)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until everything queued so far is written (tests, ``flush``)."""
        return self._idle.wait(timeout)

    def close(self, timeout: float = STOP_TIMEOUT) -> None:
        """Write what is queued (within ``timeout``), then stop the thread. Safe twice."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                logger.warning("artifact writer still has %d trajectories after %.0fs; they are not written",
                               len(self._queue), timeout)


class DeferredArtifactWriter:
    """A bounded queue of trajectories whose files are written when the owner calls :meth:`write_queued`, in the
    owner's thread. An analysis worker calls it after answering the call that queued them and before reading the
    next: the files never delay the spans, and no second thread contends for the interpreter lock (with a writer
    thread, 9-span agent traces of which a tenth get files cost 2.9 ms of CPU per file pair in the pipeline
    against 1.8 ms written alone). ``offer`` never blocks: beyond ``capacity`` waiting, a trajectory is dropped
    and counted."""

    def __init__(self, writer: ArtifactWriter, capacity: int = ARTIFACT_QUEUE_SIZE) -> None:
        self._writer = writer
        self._capacity = capacity
        self._queue: deque[tuple[Trajectory, Diagnosis]] = deque()
        self.counts = ArtifactCounts()

    @property
    def queued(self) -> int:
        """Trajectories waiting now."""
        return len(self._queue)

    def offer(self, trajectory: Trajectory, diagnosis: Diagnosis) -> bool:
        """Queue one trajectory's files; ``False`` (and counted as dropped) when the queue is full."""
        if len(self._queue) >= self._capacity:
            self.counts.dropped += 1
            return False
        self._queue.append((trajectory, diagnosis))
        self.counts.queued += 1
        return True

    def write_queued(self, deadline: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        """Write every queued trajectory's files, in order; with ``deadline`` (a ``clock`` reading), stop there
        and count what is left as dropped."""
        while self._queue:
            if deadline is not None and clock() >= deadline:
                left = len(self._queue)
                self._queue.clear()
                self.counts.dropped += left
                logger.warning("%d trajectories' artifacts were not written before the deadline", left)
                return
            trajectory, diagnosis = self._queue.popleft()
            _write_counted(self._writer, self.counts, trajectory, diagnosis)


def _write_counted(writer: ArtifactWriter, counts: ArtifactCounts, trajectory: Trajectory, diagnosis: Diagnosis) -> None:
    try:
        counts.written_bytes += writer.write(trajectory, diagnosis)
        counts.written += 1
    except Exception:  # artifacts are a by-product: failing to write them never blocks delivery
        counts.failed += 1
        logger.exception("writing artifacts for trace %s failed", trajectory.trace_id)
