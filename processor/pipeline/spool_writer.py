"""The spool's writer thread: it owns every file descriptor of a spool directory, takes all queued work at once,
writes it, syncs each touched segment once (group commit) and resolves the waiting appends on their event loop."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import queue
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from processor.pipeline.spool_format import ACK_KIND, header, segment_path

__all__ = ["Ack", "Append", "Delete", "Op", "Stop", "Writer", "release", "resolve", "sync_directory", "write_all"]

logger = logging.getLogger("processor.pipeline.spool")


@dataclass(slots=True, eq=False)
class Append:
    entry_id: int
    kind: int
    payload: bytes
    size: int
    """Record size on disk."""
    segment: int
    loop: asyncio.AbstractEventLoop
    done: Callable[[list[Append], int], None]
    future: asyncio.Future[None]
    error: OSError | None = None


@dataclass(frozen=True, slots=True)
class Ack:
    segment: int
    entry_id: int


@dataclass(frozen=True, slots=True)
class Delete:
    segment: int


@dataclass(frozen=True, slots=True)
class Stop:
    loop: asyncio.AbstractEventLoop | None = None
    future: asyncio.Future[None] | None = None


Op = Append | Ack | Delete | Stop


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def sync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Writer:
    """Owns the spool's file descriptors; runs in its own thread and never touches the Spool's state."""

    def __init__(self, directory: Path, fsync: bool) -> None:
        self._directory = directory
        self._fsync = fsync
        self._ops: queue.SimpleQueue[Op] = queue.SimpleQueue()
        self._segments: dict[int, int] = {}  # key -> fd of the segment being appended to
        self._acks: dict[int, int] = {}  # key -> fd of its ack file
        self._broken: set[int] = set()
        self._thread = threading.Thread(target=self._run, name="otel-trajectory-spool", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, op: Op) -> None:
        self._ops.put(op)

    def join(self) -> None:
        self._thread.join()

    def _run(self) -> None:
        while self._process(self._take()):
            pass

    def _take(self) -> list[Op]:
        batch = [self._ops.get()]
        try:  # everything already queued joins this batch: that is the group commit
            while True:
                batch.append(self._ops.get_nowait())
        except queue.Empty:
            pass
        return batch

    def _process(self, batch: list[Op]) -> bool:
        """Write one batch; False once stopped. Holds no reference to the batch afterwards (lets a dropped
        Spool be collected)."""
        appends = [op for op in batch if isinstance(op, Append)]
        deleted = {op.segment for op in batch if isinstance(op, Delete)}
        if appends:
            syncs = 0
            try:
                syncs = self._write(appends)
            except Exception as exc:  # never leave an append waiting forever
                logger.exception("spool writer failed")
                for op in appends:
                    op.error = op.error or OSError(0, f"spool writer failed: {exc!r}")
            finally:
                try:
                    appends[0].loop.call_soon_threadsafe(appends[0].done, appends, syncs)
                except RuntimeError:  # the loop is gone: nobody waits for these results any more
                    pass
        self._write_acks([op for op in batch if isinstance(op, Ack) and op.segment not in deleted])
        for key in sorted(deleted):
            self._delete(key)
        stops = [op for op in batch if isinstance(op, Stop)]
        if stops:
            self._close_all()
            for stop in stops:
                if stop.loop is not None and stop.future is not None:
                    try:
                        stop.loop.call_soon_threadsafe(resolve, stop.future)
                    except RuntimeError:
                        pass
            return False
        return True

    def _write(self, appends: list[Append]) -> int:
        syncs = 0
        for key, group in itertools.groupby(appends, key=lambda op: op.segment):
            ops = list(group)
            fd = -1
            start = 0
            try:
                fd = self._segment_fd(key)
                start = os.fstat(fd).st_size
                for op in ops:
                    write_all(fd, header(op.kind, op.entry_id, op.payload))
                    write_all(fd, op.payload)
                if self._fsync:
                    os.fdatasync(fd)
                    syncs += 1
            except OSError as exc:
                name = segment_path(self._directory, key, ".seg").name
                error = OSError(exc.errno, f"cannot write spool segment {name}: {exc.strerror or exc}")
                for op in ops:
                    op.error = error
                if fd >= 0:
                    self._roll_back(key, fd, start)
            for op in ops:
                op.payload = b""  # written (or failed): the payload is not kept in memory
        return syncs

    def _segment_fd(self, key: int) -> int:
        fd = self._segments.get(key)
        if fd is not None:
            return fd
        if key in self._broken:
            raise OSError(0, "segment left unusable by an earlier write error")
        for old in list(self._segments):  # appends only ever go to the newest segment
            os.close(self._segments.pop(old))
        fd = os.open(
            segment_path(self._directory, key, ".seg"), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644
        )
        self._segments[key] = fd
        if self._fsync:  # the new file's directory entry must be durable too
            sync_directory(self._directory)
        return fd

    def _roll_back(self, key: int, fd: int, size: int) -> None:
        """Cut a failed batch off so later records stay readable; if that fails, never write here again."""
        try:
            os.ftruncate(fd, size)
        except OSError:
            logger.exception("cannot truncate spool segment %d after a write error; it is sealed", key)
            self._broken.add(key)
            os.close(self._segments.pop(key))

    def _write_acks(self, acks: list[Ack]) -> None:
        by_segment: dict[int, list[int]] = {}
        for ack in acks:
            by_segment.setdefault(ack.segment, []).append(ack.entry_id)
        for key, ids in by_segment.items():
            payload = struct.pack(f"<{len(ids)}Q", *ids)
            try:
                fd = self._acks.get(key)
                if fd is None:
                    path = segment_path(self._directory, key, ".ack")
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
                    self._acks[key] = fd
                write_all(fd, header(ACK_KIND, 0, payload) + payload)
            except OSError as exc:  # only costs duplicates after a crash
                logger.warning("cannot record %d acknowledgement(s) of spool segment %d: %s", len(ids), key, exc)

    def _delete(self, key: int) -> None:
        for fds in (self._segments, self._acks):
            fd = fds.pop(key, None)
            if fd is not None:
                os.close(fd)
        self._broken.discard(key)
        for suffix in (".seg", ".ack"):
            path = segment_path(self._directory, key, suffix)
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:  # bytes are released already; at worst its entries are replayed after a restart
                logger.warning("cannot delete delivered spool file %s: %s", path, exc)

    def _close_all(self) -> None:
        for fd in self._acks.values():
            try:
                if self._fsync:
                    os.fsync(fd)
            except OSError as exc:
                logger.warning("cannot sync spool acknowledgements: %s", exc)
            os.close(fd)
        for fd in self._segments.values():
            os.close(fd)
        self._acks.clear()
        self._segments.clear()


def resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def release(writer: Writer, lock_fd: int) -> None:
    """Runs when a Spool is closed or dropped without close: stop the writer, release the directory."""
    writer.submit(Stop())
    os.close(lock_fd)
