"""A spool on disk for its tests: the record header size and first segment name of the format, the files a spool
directory holds, numbered payloads, entries written and a directory reopened (recovery), a wait on a condition the
writer thread makes true."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from processor.pipeline.spool import KIND_TRACES, Spool

__all__ = ["FIRST_SEGMENT", "HEADER", "payload", "reopen", "spool_files", "wait_until", "write_entries"]


HEADER = 24
"""Record header size of the spool format (magic, version, kind, reserved, id, length, crc)."""
FIRST_SEGMENT = "spool-00000000000000000001.seg"


def spool_files(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.glob("spool-*"))


def payload(number: int, size: int = 100) -> bytes:
    return bytes((number + offset) % 256 for offset in range(size))


async def wait_until(condition: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


async def write_entries(directory: Path, payloads: list[bytes], **options: int) -> list[int]:
    spool = Spool(directory, fsync=False, **options)
    spool.open()
    ids = [await spool.append(KIND_TRACES, data) for data in payloads]
    await spool.close()
    return ids


def reopen(directory: Path, **options: int):  # type: ignore[no-untyped-def]
    """Open, return the recovery, close again."""
    spool = Spool(directory, fsync=False, **options)
    recovery = spool.open()
    asyncio.run(spool.close())
    return recovery
