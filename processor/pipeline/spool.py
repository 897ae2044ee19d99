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
thread owns every file descriptor of the spool: it takes all queued work at once, writes it, with ``fsync``
(``sending_queue.fsync``) syncs each touched segment once (group commit), then resolves the appends on the loop.
Without it an append is in the OS's page cache when it resolves: it survives the process being killed, not the
machine losing power. Acks are written as they come but synced only
at ``close``: losing some to a crash means those entries are delivered twice, never that data is lost.

The record format lives in :mod:`processor.pipeline.spool_format`, the writer thread in
:mod:`processor.pipeline.spool_writer`, the start-up scan and quarantine in :mod:`processor.pipeline.spool_recovery`.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import weakref
from dataclasses import dataclass
from pathlib import Path

from processor.pipeline.spool_format import ENTRY_KINDS, HEADER, KIND_LOGS, KIND_TRACES
from processor.pipeline.spool_recovery import QUARANTINE, Segment, SpoolEntry, SpoolRecovery, SpoolState, recover
from processor.pipeline.spool_writer import Ack, Append, Delete, Stop, Writer, release, resolve

__all__ = ["KIND_LOGS", "KIND_TRACES", "Spool", "SpoolEntry", "SpoolFull", "SpoolRecovery", "SpoolStats"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 1 << 30
DEFAULT_SEGMENT_BYTES = 32 << 20
DEFAULT_QUEUE_BYTES = 64 << 20
"""Payload bytes handed to the writer thread and not yet written; further appends wait (bounds memory)."""

_LOCK = "LOCK"


class SpoolFull(Exception):
    """The spool holds ``max_bytes``; the receiver answers with backpressure until exports catch up."""


@dataclass(frozen=True, slots=True)
class SpoolStats:
    appended: int = 0
    """Records written (and synced, with ``fsync``) since open."""
    syncs: int = 0
    """``fdatasync`` calls on segments: with group commit, far fewer than ``appended`` under load."""
    write_errors: int = 0


# --- the spool -----------------------------------------------------------------------------------------


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
        self._writer = Writer(self._directory, fsync)
        self._state = SpoolState()
        self._queued = 0
        self._room_waiters: list[asyncio.Future[None]] = []
        self._stats = SpoolStats()
        self._finalizer: weakref.finalize[..., Spool] | None = None
        self._phase = "new"

    @property
    def directory(self) -> Path:
        return self._directory

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
            (self._directory / QUARANTINE).mkdir(parents=True, exist_ok=True)
            lock_fd = os.open(self._directory / _LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OSError(
                exc.errno, f"{where} is not usable ({exc.strerror or exc}); choose a directory this process can "
                "create, read and write"
            ) from exc
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(lock_fd)
            raise OSError(
                exc.errno, f"{where} is in use by another process (another serve on the same directory?); give "
                "every processor its own spool directory"
            ) from exc
        try:
            recovery = recover(self._directory, self._state)
        except OSError as exc:
            os.close(lock_fd)
            raise OSError(exc.errno, f"{where} is not usable ({exc.strerror or exc}); check its permissions and disk") from exc
        self._writer.start()
        self._finalizer = weakref.finalize(self, release, self._writer, lock_fd)
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

    # --- running (event loop thread) -----------------------------------------------------------------
    async def append(self, kind: int, payload: bytes) -> int:
        """Store one request; returns its entry id once the record is written and synced to disk.

        Raises SpoolFull when it would exceed ``max_bytes``, OSError when the disk write fails. If the caller
        is cancelled the entry is dropped (acknowledged), as the client was never told it was accepted.
        """
        if kind not in ENTRY_KINDS:
            raise ValueError(f"unknown spool entry kind {kind}")
        self._check_room(len(payload))
        loop = asyncio.get_running_loop()
        while self._queued > 0 and self._queued + len(payload) > self._queue_bytes:
            waiter = loop.create_future()
            self._room_waiters.append(waiter)
            await waiter
            self._check_room(len(payload))
        state = self._state
        size = HEADER.size + len(payload)
        entry_id = state.next_id
        state.next_id += 1
        segment = state.active
        if segment is None or (segment.bytes > 0 and segment.bytes + size > self._segment_bytes):
            if segment is not None and segment.live == 0:
                self._drop(segment)
            segment = state.active = state.segments[entry_id] = Segment(entry_id)
        segment.bytes += size
        segment.live += 1
        state.bytes_held += size
        state.entries[entry_id] = segment.key
        self._queued += len(payload)
        future: asyncio.Future[None] = loop.create_future()
        self._writer.submit(Append(entry_id, kind, payload, size, segment.key, loop, self._written, future))
        try:
            await future
        except asyncio.CancelledError:
            self.ack(entry_id)
            raise
        return entry_id

    def _check_room(self, payload_bytes: int) -> None:
        if self._phase != "open":
            raise RuntimeError("the spool is not open: call open() first, and no append after close()")
        size = HEADER.size + payload_bytes
        active = self._state.active
        if self._state.bytes_held + size > self._max_bytes and active is not None and active.live == 0:
            self._drop(active)  # its entries are all delivered; the next append starts a new segment
        if self._state.bytes_held + size > self._max_bytes:
            raise SpoolFull(
                f"spool {self._directory} holds {self._state.bytes_held} of {self._max_bytes} bytes; a request of "
                f"{payload_bytes} bytes fits only after export targets acknowledge held data"
            )

    def _written(self, appends: list[Append], syncs: int) -> None:
        """On the loop: results of one writer batch."""
        failed = 0
        for op in appends:
            self._queued -= op.size - HEADER.size
            if op.error is None:
                resolve(op.future)
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
            resolve(waiter)

    def _forget(self, op: Append) -> None:
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
            self._writer.submit(Ack(key, entry_id))

    def _drop(self, segment: Segment) -> None:
        state = self._state
        del state.segments[segment.key]
        state.bytes_held -= segment.bytes
        if state.active is segment:
            state.active = None
        self._writer.submit(Delete(segment.key))

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
            resolve(waiter)
        loop = asyncio.get_running_loop()
        stopped: asyncio.Future[None] = loop.create_future()
        self._writer.submit(Stop(loop, stopped))
        await stopped
        await asyncio.to_thread(self._writer.join)
        if self._finalizer is not None:
            self._finalizer()


