"""Persistent spool: an accepted request stays on disk until every export target acknowledged its spans.

Layout of the spool directory (``exporter.sending_queue.storage``)::

    spool-<first entry id, 20 digits>.seg   append-only records of accepted requests
    spool-<first entry id, 20 digits>.ack   append-only records of the acknowledged entry ids of that segment
    quarantine/                             damaged bytes moved aside at start-up, kept until an operator removes them
    LOCK                                    held (``flock``) while a process uses the directory

Every record is ``magic "OTSP" | version u8 | kind u8 | reserved u16 | entry id u64 | length u32 | crc32 u32 |
payload`` (little endian); the CRC covers the header bytes before it and the payload. Entry ids increase in file
order. A segment is deleted together with its ack file once all its entries are acknowledged and appends have
moved on to a newer segment (the newest one is also deleted at ``close`` or when its space is needed).

Threading: ``open``, ``append``, ``ack``, ``close`` and the properties belong to one event loop thread. One writer
thread owns every file descriptor of the spool: it takes all queued work at once, writes it, syncs each touched
segment once (group commit), then resolves the appends on the loop. Acks are written as they come but synced only
at ``close``: losing some to a crash means those entries are delivered twice, never that data is lost.
"""

from __future__ import annotations

import asyncio
import fcntl
import itertools
import logging
import os
import queue
import re
import struct
import threading
import weakref
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["KIND_LOGS", "KIND_TRACES", "Spool", "SpoolEntry", "SpoolFull", "SpoolRecovery", "SpoolStats"]

logger = logging.getLogger(__name__)

KIND_TRACES = 1
"""Entry kind of a serialized ``ExportTraceServiceRequest``."""
KIND_LOGS = 2
"""Entry kind of a serialized ``ExportLogsServiceRequest``."""
_ACK_KIND = 3
_ENTRY_KINDS = frozenset({KIND_TRACES, KIND_LOGS})

DEFAULT_MAX_BYTES = 1 << 30
DEFAULT_SEGMENT_BYTES = 32 << 20
DEFAULT_QUEUE_BYTES = 64 << 20
"""Payload bytes handed to the writer thread and not yet written; further appends wait (bounds memory)."""

_MAGIC = b"OTSP"
_VERSION = 1
_HEADER = struct.Struct("<4sBBHQII")
_CRC_AT = _HEADER.size - 4
_SEGMENT_NAME = re.compile(r"spool-(\d{20})\.seg")
_QUARANTINE = "quarantine"
_LOCK = "LOCK"


class SpoolFull(Exception):
    """The spool holds ``max_bytes``; the receiver answers with backpressure until exports catch up."""


@dataclass(frozen=True, slots=True)
class SpoolEntry:
    entry_id: int
    kind: int
    """:data:`KIND_TRACES` or :data:`KIND_LOGS`."""
    payload: bytes


@dataclass(frozen=True, slots=True)
class SpoolRecovery:
    """What :meth:`Spool.open` found: unacknowledged entries in append order, and what was damaged."""

    entries: list[SpoolEntry]
    quarantined: list[Path]
    problems: list[str]
    bytes_recovered: int
    """Payload bytes of ``entries``."""


@dataclass(frozen=True, slots=True)
class SpoolStats:
    appended: int = 0
    """Records written and synced since open."""
    syncs: int = 0
    """``fdatasync`` calls on segments: with group commit, far fewer than ``appended`` under load."""
    write_errors: int = 0


# --- record framing ------------------------------------------------------------------------------------


def _header(kind: int, entry_id: int, payload: bytes) -> bytes:
    head = _HEADER.pack(_MAGIC, _VERSION, kind, 0, entry_id, len(payload), 0)[:_CRC_AT]
    return head + struct.pack("<I", zlib.crc32(payload, zlib.crc32(head)))


@dataclass(frozen=True, slots=True)
class _Scan:
    records: list[tuple[int, int, memoryview]]
    """(entry id, kind, payload) of every good record before ``good_end``."""
    good_end: int
    problem: str | None


def _scan(data: bytes, kinds: frozenset[int], after_id: int | None) -> _Scan:
    """Parse records up to the first bad one. ``after_id``: ids must exceed it and increase (None: no check)."""
    view = memoryview(data)
    records: list[tuple[int, int, memoryview]] = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < _HEADER.size:
            return _Scan(records, offset, f"truncated record header ({len(data) - offset} bytes)")
        magic, version, kind, _reserved, entry_id, length, crc = _HEADER.unpack_from(data, offset)
        if magic != _MAGIC or version != _VERSION:
            return _Scan(records, offset, "not a spool record (bad magic or version)")
        if kind not in kinds:
            return _Scan(records, offset, f"unexpected record kind {kind}")
        end = offset + _HEADER.size + length
        if end > len(data):
            return _Scan(records, offset, f"truncated record (length {length}, {len(data) - offset} bytes left)")
        payload = view[offset + _HEADER.size : end]
        if zlib.crc32(payload, zlib.crc32(view[offset : offset + _CRC_AT])) != crc:
            return _Scan(records, offset, "checksum mismatch")
        if after_id is not None:
            if entry_id <= after_id:
                return _Scan(records, offset, f"entry id {entry_id} out of order")
            after_id = entry_id
        records.append((entry_id, kind, payload))
        offset = end
    return _Scan(records, offset, None)


# --- writer thread -------------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Append:
    entry_id: int
    kind: int
    payload: bytes
    size: int
    """Record size on disk."""
    segment: int
    loop: asyncio.AbstractEventLoop
    done: Callable[[list[_Append], int], None]
    future: asyncio.Future[None]
    error: OSError | None = None


@dataclass(frozen=True, slots=True)
class _Ack:
    segment: int
    entry_id: int


@dataclass(frozen=True, slots=True)
class _Delete:
    segment: int


@dataclass(frozen=True, slots=True)
class _Stop:
    loop: asyncio.AbstractEventLoop | None = None
    future: asyncio.Future[None] | None = None


_Op = _Append | _Ack | _Delete | _Stop


def _segment_path(directory: Path, key: int, suffix: str) -> Path:
    return directory / f"spool-{key:020d}{suffix}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _sync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _Writer:
    """Owns the spool's file descriptors; runs in its own thread and never touches the Spool's state."""

    def __init__(self, directory: Path, fsync: bool) -> None:
        self._directory = directory
        self._fsync = fsync
        self._ops: queue.SimpleQueue[_Op] = queue.SimpleQueue()
        self._segments: dict[int, int] = {}  # key -> fd of the segment being appended to
        self._acks: dict[int, int] = {}  # key -> fd of its ack file
        self._broken: set[int] = set()
        self._thread = threading.Thread(target=self._run, name="otel-trajectory-spool", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, op: _Op) -> None:
        self._ops.put(op)

    def join(self) -> None:
        self._thread.join()

    def _run(self) -> None:
        while self._process(self._take()):
            pass

    def _take(self) -> list[_Op]:
        batch = [self._ops.get()]
        try:  # everything already queued joins this batch: that is the group commit
            while True:
                batch.append(self._ops.get_nowait())
        except queue.Empty:
            pass
        return batch

    def _process(self, batch: list[_Op]) -> bool:
        """Write one batch; False once stopped. Holds no reference to the batch afterwards (lets a dropped
        Spool be collected)."""
        appends = [op for op in batch if isinstance(op, _Append)]
        deleted = {op.segment for op in batch if isinstance(op, _Delete)}
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
        self._write_acks([op for op in batch if isinstance(op, _Ack) and op.segment not in deleted])
        for key in sorted(deleted):
            self._delete(key)
        stops = [op for op in batch if isinstance(op, _Stop)]
        if stops:
            self._close_all()
            for stop in stops:
                if stop.loop is not None and stop.future is not None:
                    try:
                        stop.loop.call_soon_threadsafe(_resolve, stop.future)
                    except RuntimeError:
                        pass
            return False
        return True

    def _write(self, appends: list[_Append]) -> int:
        syncs = 0
        for key, group in itertools.groupby(appends, key=lambda op: op.segment):
            ops = list(group)
            fd = -1
            start = 0
            try:
                fd = self._segment_fd(key)
                start = os.fstat(fd).st_size
                for op in ops:
                    _write_all(fd, _header(op.kind, op.entry_id, op.payload))
                    _write_all(fd, op.payload)
                if self._fsync:
                    os.fdatasync(fd)
                    syncs += 1
            except OSError as exc:
                name = _segment_path(self._directory, key, ".seg").name
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
            _segment_path(self._directory, key, ".seg"), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644
        )
        self._segments[key] = fd
        if self._fsync:  # the new file's directory entry must be durable too
            _sync_directory(self._directory)
        return fd

    def _roll_back(self, key: int, fd: int, size: int) -> None:
        """Cut a failed batch off so later records stay readable; if that fails, never write here again."""
        try:
            os.ftruncate(fd, size)
        except OSError:
            logger.exception("cannot truncate spool segment %d after a write error; it is sealed", key)
            self._broken.add(key)
            os.close(self._segments.pop(key))

    def _write_acks(self, acks: list[_Ack]) -> None:
        by_segment: dict[int, list[int]] = {}
        for ack in acks:
            by_segment.setdefault(ack.segment, []).append(ack.entry_id)
        for key, ids in by_segment.items():
            payload = struct.pack(f"<{len(ids)}Q", *ids)
            try:
                fd = self._acks.get(key)
                if fd is None:
                    path = _segment_path(self._directory, key, ".ack")
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
                    self._acks[key] = fd
                _write_all(fd, _header(_ACK_KIND, 0, payload) + payload)
            except OSError as exc:  # only costs duplicates after a crash
                logger.warning("cannot record %d acknowledgement(s) of spool segment %d: %s", len(ids), key, exc)

    def _delete(self, key: int) -> None:
        for fds in (self._segments, self._acks):
            fd = fds.pop(key, None)
            if fd is not None:
                os.close(fd)
        self._broken.discard(key)
        for suffix in (".seg", ".ack"):
            path = _segment_path(self._directory, key, suffix)
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


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _release(writer: _Writer, lock_fd: int) -> None:
    """Runs when a Spool is closed or dropped without close: stop the writer, release the directory."""
    writer.submit(_Stop())
    os.close(lock_fd)


# --- the spool -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Segment:
    key: int
    bytes: int = 0
    live: int = 0
    """Entries not yet acknowledged (including appends still being written)."""


@dataclass(slots=True)
class _State:
    segments: dict[int, _Segment] = field(default_factory=dict)
    entries: dict[int, int] = field(default_factory=dict)  # entry id -> segment key
    active: _Segment | None = None
    bytes_held: int = 0
    next_id: int = 1


class Spool:
    """Append-only, crash-safe store of accepted requests (see the module docstring for layout and threading).

    ``bytes_held`` is the disk use of the segment files (those holding an unacknowledged entry, and the one being
    appended to), including appends being written; ``append`` raises :class:`SpoolFull` rather than exceed
    ``max_bytes``. A segment is deleted once all its entries are acknowledged and it is no longer appended to.
    """

    def __init__(
        self,
        directory: Path,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        segment_bytes: int = DEFAULT_SEGMENT_BYTES,
        fsync: bool = True,
        queue_bytes: int = DEFAULT_QUEUE_BYTES,
    ) -> None:
        if max_bytes <= 0 or segment_bytes <= 0 or queue_bytes <= 0:
            raise ValueError("max_bytes, segment_bytes and queue_bytes must be positive")
        self._directory = Path(directory)
        self._max_bytes = max_bytes
        self._segment_bytes = segment_bytes
        self._queue_bytes = queue_bytes
        self._writer = _Writer(self._directory, fsync)
        self._state = _State()
        self._queued = 0
        self._room_waiters: list[asyncio.Future[None]] = []
        self._stats = SpoolStats()
        self._finalizer: weakref.finalize[..., None] | None = None
        self._phase = "new"

    @property
    def bytes_held(self) -> int:
        return self._state.bytes_held

    @property
    def entries_held(self) -> int:
        return len(self._state.entries)

    @property
    def stats(self) -> SpoolStats:
        return self._stats

    # --- start-up ------------------------------------------------------------------------------------
    def open(self) -> SpoolRecovery:
        """Lock the directory, validate every segment, quarantine damage; returns what must be replayed.

        Raises OSError only when the directory cannot be used (not creatable, not readable, locked by another
        process); damaged or truncated data is quarantined and reported in ``problems`` instead.
        """
        if self._phase != "new":
            raise RuntimeError("Spool.open() may be called once")
        where = f"spool directory {self._directory}"
        try:
            (self._directory / _QUARANTINE).mkdir(parents=True, exist_ok=True)
            lock_fd = os.open(self._directory / _LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OSError(
                exc.errno, f"{where} is not usable ({exc.strerror or exc}); set exporter.sending_queue.storage "
                "to a writable directory"
            ) from exc
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(lock_fd)
            raise OSError(
                exc.errno, f"{where} is in use by another process; give every processor its own "
                "exporter.sending_queue.storage"
            ) from exc
        try:
            recovery = self._recover()
        except OSError as exc:
            os.close(lock_fd)
            raise OSError(exc.errno, f"{where} is not usable: {exc}; check its permissions and disk") from exc
        self._writer.start()
        self._finalizer = weakref.finalize(self, _release, self._writer, lock_fd)
        self._phase = "open"
        for problem in recovery.problems:
            logger.warning("spool recovery: %s", problem)
        if recovery.entries:
            logger.info(
                "spool recovery: replaying %d request(s), %d byte(s); they may be delivered twice",
                len(recovery.entries),
                recovery.bytes_recovered,
            )
        return recovery

    def _recover(self) -> SpoolRecovery:
        state = self._state
        entries: list[SpoolEntry] = []
        quarantined: list[Path] = []
        problems: list[str] = []
        segments: list[tuple[int, Path]] = []
        for path in sorted(self._directory.glob("spool-*.seg")):
            match = _SEGMENT_NAME.fullmatch(path.name)
            if match is None:
                quarantined.append(self._quarantine(path, b"", 0))
                problems.append(f"{path.name}: not a spool segment name; moved to {_QUARANTINE}/")
                continue
            segments.append((int(match.group(1)), path))
        segments.sort()
        last_id = 0
        for key, path in segments:
            last_id = max(last_id, key - 1)
            data = path.read_bytes()
            found = _scan(data, _ENTRY_KINDS, after_id=last_id)
            if found.problem is not None:
                target = self._quarantine(path, data, found.good_end)
                quarantined.append(target)
                problems.append(
                    f"{path.name}: {found.problem} at offset {found.good_end}; "
                    f"{len(data) - found.good_end} byte(s) moved to {_QUARANTINE}/{target.name}"
                )
            if found.records:
                last_id = found.records[-1][0]
            acked = self._read_acks(_segment_path(self._directory, key, ".ack"), quarantined, problems)
            live = [(entry_id, kind, payload) for entry_id, kind, payload in found.records if entry_id not in acked]
            if not live:
                path.unlink(missing_ok=True)
                _segment_path(self._directory, key, ".ack").unlink(missing_ok=True)
                continue
            state.segments[key] = _Segment(key, bytes=found.good_end, live=len(live))
            state.bytes_held += found.good_end
            for entry_id, kind, payload in live:
                state.entries[entry_id] = key
                entries.append(SpoolEntry(entry_id, kind, bytes(payload)))
            last_id = max(last_id, key)
        for path in self._directory.glob("spool-*.ack"):  # acks of segments that no longer exist
            if not path.with_suffix(".seg").exists():
                path.unlink()
        state.next_id = last_id + 1
        return SpoolRecovery(entries, quarantined, problems, sum(len(entry.payload) for entry in entries))

    def _read_acks(self, path: Path, quarantined: list[Path], problems: list[str]) -> set[int]:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return set()
        found = _scan(data, frozenset({_ACK_KIND}), after_id=None)
        acked: set[int] = set()
        for _entry_id, _kind, payload in found.records:
            if len(payload) % 8 == 0:
                acked.update(entry_id for (entry_id,) in struct.iter_unpack("<Q", payload))
        if found.problem is not None:
            target = self._quarantine(path, data, found.good_end)
            quarantined.append(target)
            problems.append(
                f"{path.name}: {found.problem} at offset {found.good_end}; moved to {_QUARANTINE}/{target.name}; "
                "entries it acknowledged will be delivered again"
            )
        return acked

    def _quarantine(self, path: Path, data: bytes, good_end: int) -> Path:
        """Move ``path`` from ``good_end`` on into the quarantine directory; keep the good prefix in place."""
        directory = self._directory / _QUARANTINE
        target = directory / f"{path.name}.{good_end}.bad"
        number = 0
        while target.exists():
            number += 1
            target = directory / f"{path.name}.{good_end}.{number}.bad"
        if good_end == 0:
            os.replace(path, target)
            return target
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:  # copy first: a crash before the truncation just quarantines the same bytes again
            _write_all(fd, data[good_end:])
            os.fsync(fd)
        finally:
            os.close(fd)
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.ftruncate(fd, good_end)
            os.fsync(fd)
        finally:
            os.close(fd)
        return target

    # --- running (event loop thread) -----------------------------------------------------------------
    async def append(self, kind: int, payload: bytes) -> int:
        """Store one request; returns its entry id once the record is written and synced to disk.

        Raises SpoolFull when it would exceed ``max_bytes``, OSError when the disk write fails. If the caller
        is cancelled the entry is dropped (acknowledged), as the client was never told it was accepted.
        """
        if kind not in _ENTRY_KINDS:
            raise ValueError(f"unknown spool entry kind {kind}")
        self._check_room(len(payload))
        loop = asyncio.get_running_loop()
        while self._queued > 0 and self._queued + len(payload) > self._queue_bytes:
            waiter = loop.create_future()
            self._room_waiters.append(waiter)
            await waiter
            self._check_room(len(payload))
        state = self._state
        size = _HEADER.size + len(payload)
        entry_id = state.next_id
        state.next_id += 1
        segment = state.active
        if segment is None or (segment.bytes > 0 and segment.bytes + size > self._segment_bytes):
            if segment is not None and segment.live == 0:
                self._drop(segment)
            segment = state.active = state.segments[entry_id] = _Segment(entry_id)
        segment.bytes += size
        segment.live += 1
        state.bytes_held += size
        state.entries[entry_id] = segment.key
        self._queued += len(payload)
        future: asyncio.Future[None] = loop.create_future()
        self._writer.submit(_Append(entry_id, kind, payload, size, segment.key, loop, self._written, future))
        try:
            await future
        except asyncio.CancelledError:
            self.ack(entry_id)
            raise
        return entry_id

    def _check_room(self, payload_bytes: int) -> None:
        if self._phase != "open":
            raise RuntimeError("the spool is not open: call open() first, and no append after close()")
        size = _HEADER.size + payload_bytes
        active = self._state.active
        if self._state.bytes_held + size > self._max_bytes and active is not None and active.live == 0:
            self._drop(active)  # its entries are all delivered; the next append starts a new segment
        if self._state.bytes_held + size > self._max_bytes:
            raise SpoolFull(
                f"spool {self._directory} holds {self._state.bytes_held} of {self._max_bytes} bytes; a request of "
                f"{payload_bytes} bytes fits only after export targets acknowledge held data"
            )

    def _written(self, appends: list[_Append], syncs: int) -> None:
        """On the loop: results of one writer batch."""
        failed = 0
        for op in appends:
            self._queued -= op.size - _HEADER.size
            if op.error is None:
                _resolve(op.future)
                continue
            failed += 1
            self._forget(op)
            if not op.future.done():
                op.future.set_exception(op.error)
        stats = self._stats
        self._stats = SpoolStats(
            appended=stats.appended + len(appends) - failed,
            syncs=stats.syncs + syncs,
            write_errors=stats.write_errors + failed,
        )
        waiters, self._room_waiters = self._room_waiters, []
        for waiter in waiters:
            _resolve(waiter)

    def _forget(self, op: _Append) -> None:
        """A failed write: the entry never existed, and its segment takes no more appends."""
        state = self._state
        segment = state.segments.get(op.segment)
        if segment is None:
            return
        if state.active is segment:
            state.active = None
        segment.bytes -= op.size  # rolled back by the writer
        state.bytes_held -= op.size
        if state.entries.pop(op.entry_id, None) is not None:
            segment.live -= 1
            if segment.live == 0:
                self._drop(segment)

    def ack(self, entry_id: int) -> None:
        """Every export target has the entry's data. Idempotent; unknown ids are ignored."""
        if self._phase != "open":
            return
        state = self._state
        key = state.entries.pop(entry_id, None)
        if key is None:
            return
        segment = state.segments[key]
        segment.live -= 1
        if segment.live == 0 and segment is not state.active:
            self._drop(segment)
        else:  # the segment being appended to stays until it is full: no file churn when traffic is light
            self._writer.submit(_Ack(key, entry_id))

    def _drop(self, segment: _Segment) -> None:
        state = self._state
        del state.segments[segment.key]
        state.bytes_held -= segment.bytes
        if state.active is segment:
            state.active = None
        self._writer.submit(_Delete(segment.key))

    async def close(self) -> None:
        """Write everything queued, sync acknowledgements, stop the writer. Safe before open and twice."""
        if self._phase != "open":
            self._phase = "closed"
            return
        self._phase = "closed"
        active = self._state.active
        if active is not None and active.live == 0:
            self._drop(active)
        waiters, self._room_waiters = self._room_waiters, []
        for waiter in waiters:
            _resolve(waiter)
        loop = asyncio.get_running_loop()
        stopped: asyncio.Future[None] = loop.create_future()
        self._writer.submit(_Stop(loop, stopped))
        await stopped
        await asyncio.to_thread(self._writer.join)
        if self._finalizer is not None:
            self._finalizer()
