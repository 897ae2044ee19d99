"""The spool's on-disk record format: framing (magic, version, kind, entry id, length, CRC32) and the scan that
reads records up to the first damaged one. See :mod:`processor.pipeline.spool` for the layout of a spool directory."""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ACK_KIND",
    "ENTRY_KINDS",
    "HEADER",
    "KIND_LOGS",
    "KIND_TRACES",
    "SEGMENT_NAME",
    "Scan",
    "header",
    "scan",
    "segment_path",
]

KIND_TRACES = 1
"""Entry kind of a serialized ``ExportTraceServiceRequest``."""
KIND_LOGS = 2
"""Entry kind of a serialized ``ExportLogsServiceRequest``."""
ACK_KIND = 3
ENTRY_KINDS = frozenset({KIND_TRACES, KIND_LOGS})


MAGIC = b"OTSP"
VERSION = 1
HEADER = struct.Struct("<4sBBHQII")
CRC_AT = HEADER.size - 4
SEGMENT_NAME = re.compile(r"spool-(\d{20})\.seg")
def header(kind: int, entry_id: int, payload: bytes) -> bytes:
    head = HEADER.pack(MAGIC, VERSION, kind, 0, entry_id, len(payload), 0)[:CRC_AT]
    return head + struct.pack("<I", zlib.crc32(payload, zlib.crc32(head)))


@dataclass(frozen=True, slots=True)
class Scan:
    records: list[tuple[int, int, memoryview]]
    """(entry id, kind, payload) of every good record before ``good_end``."""
    good_end: int
    problem: str | None


def scan(data: bytes, kinds: frozenset[int], after_id: int | None) -> Scan:
    """Parse records up to the first bad one. ``after_id``: ids must exceed it and increase (None: no check)."""
    view = memoryview(data)
    records: list[tuple[int, int, memoryview]] = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < HEADER.size:
            return Scan(records, offset, f"truncated record header ({len(data) - offset} bytes)")
        magic, version, kind, _reserved, entry_id, length, crc = HEADER.unpack_from(data, offset)
        if magic != MAGIC or version != VERSION:
            return Scan(records, offset, "not a spool record (bad magic or version)")
        if kind not in kinds:
            return Scan(records, offset, f"unexpected record kind {kind}")
        end = offset + HEADER.size + length
        if end > len(data):
            return Scan(records, offset, f"truncated record (length {length}, {len(data) - offset} bytes left)")
        payload = view[offset + HEADER.size : end]
        if zlib.crc32(payload, zlib.crc32(view[offset : offset + CRC_AT])) != crc:
            return Scan(records, offset, "checksum mismatch")
        if after_id is not None:
            if entry_id <= after_id:
                return Scan(records, offset, f"entry id {entry_id} out of order")
            after_id = entry_id
        records.append((entry_id, kind, payload))
        offset = end
    return Scan(records, offset, None)


def segment_path(directory: Path, key: int, suffix: str) -> Path:
    return directory / f"spool-{key:020d}{suffix}"
