"""Opening a spool directory: scan its segments and ack files, quarantine damage, find what must be replayed.

Runs once, on the thread that opens the spool, before the writer thread starts; see :mod:`processor.pipeline.spool`
for the layout. Damaged or truncated bytes are moved to ``quarantine/`` (the good prefix stays in place) and
reported; they never make start-up fail.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

from processor.pipeline.spool_format import ACK_KIND, ENTRY_KINDS, HEADER, SEGMENT_NAME, scan, segment_path
from processor.pipeline.spool_writer import write_all

__all__ = ["QUARANTINE", "Segment", "SpoolEntry", "SpoolRecovery", "SpoolState", "recover"]

QUARANTINE = "quarantine"


@dataclass(frozen=True, slots=True)
class SpoolEntry:
    """An entry found at start-up. Its payload stays in its segment until :attr:`payload` is read (recovery does
    not hold every undelivered request in memory at once); the segment is kept until the entry is acknowledged."""

    entry_id: int
    kind: int
    """:data:`KIND_TRACES` or :data:`KIND_LOGS`."""
    segment: Path
    offset: int
    length: int

    @property
    def payload(self) -> bytes:
        """Read from the segment (checksummed when the spool was opened)."""
        with self.segment.open("rb") as segment:
            segment.seek(self.offset)
            data = segment.read(self.length)
        if len(data) != self.length:
            raise OSError(f"{self.segment.name}: entry {self.entry_id} is shorter than when the spool was opened")
        return data


@dataclass(frozen=True, slots=True)
class SpoolRecovery:
    """What :meth:`Spool.open` found: unacknowledged entries in append order, and what was damaged."""

    entries: list[SpoolEntry]
    quarantined: list[Path]
    problems: list[str]
    bytes_recovered: int
    """Payload bytes of ``entries``."""


@dataclass(slots=True)
class Segment:
    """One segment file as the spool accounts for it (event loop thread)."""

    key: int
    bytes: int = 0
    live: int = 0
    """Entries not yet acknowledged (including appends still being written)."""


@dataclass(slots=True)
class SpoolState:
    """What the spool holds: filled by :func:`recover`, then kept by the spool on the event loop thread."""

    segments: dict[int, Segment] = field(default_factory=dict)
    entries: dict[int, int] = field(default_factory=dict)  # entry id -> segment key
    active: Segment | None = None
    bytes_held: int = 0
    next_id: int = 1


def recover(directory: Path, state: SpoolState) -> SpoolRecovery:
    """Scan every segment of ``directory`` into ``state``; quarantine damage; return what must be replayed."""
    entries: list[SpoolEntry] = []
    quarantined: list[Path] = []
    problems: list[str] = []
    segments: list[tuple[int, Path]] = []
    for path in sorted(directory.glob("spool-*.seg")):
        match = SEGMENT_NAME.fullmatch(path.name)
        if match is None:
            quarantined.append(_quarantine(directory, path, b"", 0))
            problems.append(f"{path.name}: not a spool segment name; moved to {QUARANTINE}/")
            continue
        segments.append((int(match.group(1)), path))
    segments.sort()
    last_id = 0
    for key, path in segments:
        last_id = max(last_id, key - 1)
        data = path.read_bytes()
        found = scan(data, ENTRY_KINDS, after_id=last_id)
        if found.problem is not None:
            target = _quarantine(directory, path, data, found.good_end)
            quarantined.append(target)
            problems.append(
                f"{path.name}: {found.problem} at offset {found.good_end}; "
                f"{len(data) - found.good_end} byte(s) moved to {QUARANTINE}/{target.name}"
            )
        if found.records:
            last_id = found.records[-1][0]
        acked = _read_acks(directory, segment_path(directory, key, ".ack"), quarantined, problems)
        live = [(entry_id, kind, payload) for entry_id, kind, payload in found.records if entry_id not in acked]
        if not live:
            path.unlink(missing_ok=True)
            segment_path(directory, key, ".ack").unlink(missing_ok=True)
            continue
        state.segments[key] = Segment(key, bytes=found.good_end, live=len(live))
        state.bytes_held += found.good_end
        offsets = _payload_offsets(found.records)
        for entry_id, kind, payload in live:
            state.entries[entry_id] = key
            entries.append(SpoolEntry(entry_id, kind, path, offsets[entry_id], len(payload)))
        last_id = max(last_id, key)
    for path in directory.glob("spool-*.ack"):  # acks of segments that no longer exist
        if not path.with_suffix(".seg").exists():
            path.unlink()
    state.next_id = last_id + 1
    return SpoolRecovery(entries, quarantined, problems, sum(entry.length for entry in entries))


def _read_acks(directory: Path, path: Path, quarantined: list[Path], problems: list[str]) -> set[int]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return set()
    found = scan(data, frozenset({ACK_KIND}), after_id=None)
    acked: set[int] = set()
    for _entry_id, _kind, payload in found.records:
        if len(payload) % 8 == 0:
            acked.update(entry_id for (entry_id,) in struct.iter_unpack("<Q", payload))
    if found.problem is not None:
        target = _quarantine(directory, path, data, found.good_end)
        quarantined.append(target)
        problems.append(
            f"{path.name}: {found.problem} at offset {found.good_end}; moved to {QUARANTINE}/{target.name}; "
            "entries it acknowledged will be delivered again"
        )
    return acked


def _quarantine(directory: Path, path: Path, data: bytes, good_end: int) -> Path:
    """Move ``path`` from ``good_end`` on into the quarantine directory; keep the good prefix in place."""
    folder = directory / QUARANTINE
    target = folder / f"{path.name}.{good_end}.bad"
    number = 0
    while target.exists():
        number += 1
        target = folder / f"{path.name}.{good_end}.{number}.bad"
    if good_end == 0:
        os.replace(path, target)
        return target
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:  # copy first: a crash before the truncation just quarantines the same bytes again
        write_all(fd, data[good_end:])
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


def _payload_offsets(records: list[tuple[int, int, memoryview]]) -> dict[int, int]:
    """Where each record's payload starts in its segment (records are contiguous from the segment's start)."""
    offsets: dict[int, int] = {}
    end = 0
    for entry_id, _kind, payload in records:
        offsets[entry_id] = end + HEADER.size
        end += HEADER.size + len(payload)
    return offsets
