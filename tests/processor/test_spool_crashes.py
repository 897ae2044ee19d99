"""Persistent spool in a child process that fails: every acknowledged entry survives SIGKILL, and a write the disk
refuses is rolled back so later appends stay readable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.spool_files import reopen

REPO = Path(__file__).resolve().parents[2]
CRASHING_CHILD = """
import asyncio, os, signal, sys
from pathlib import Path
from processor.pipeline.spool import Spool

async def main() -> None:
    spool = Spool(Path(sys.argv[1]), segment_bytes=64 * 1024, fsync=True)
    spool.open()
    acknowledged = 0

    async def one(number: int) -> None:
        nonlocal acknowledged
        entry = await spool.append(1, number.to_bytes(4, "big") * 5000)
        print(entry, number, flush=True)
        acknowledged += 1
        if acknowledged == 60:  # die while the other appends are still being written
            os.kill(os.getpid(), signal.SIGKILL)

    await asyncio.gather(*(one(number) for number in range(300)))

asyncio.run(main())
"""


@pytest.mark.slow
def test_every_acknowledged_entry_survives_sigkill(tmp_path: Path) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CRASHING_CHILD, str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    acknowledged = [tuple(map(int, line.split())) for line in child.stdout.splitlines()]
    assert len(acknowledged) == 60

    recovery = reopen(tmp_path)

    found = {entry.entry_id: entry.payload for entry in recovery.entries}
    for entry_id, number in acknowledged:
        assert found.get(entry_id) == number.to_bytes(4, "big") * 5000, f"entry {entry_id} lost"
    assert [entry.entry_id for entry in recovery.entries] == sorted(found)


FAILING_DISK_CHILD = """
import asyncio, resource, signal, sys
from pathlib import Path
from processor.pipeline.spool import Spool

async def main() -> None:
    spool = Spool(Path(sys.argv[1]), segment_bytes=10_000, fsync=True)
    spool.open()
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))  # files beyond 1000 bytes cannot grow
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    first = await spool.append(1, b"a" * 300)
    try:
        await spool.append(1, b"b" * 900)
    except OSError as exc:
        print("failed", exc.errno, exc, flush=True)
    third = await spool.append(1, b"c" * 300)
    print("stored", first, third, spool.stats.write_errors, flush=True)
    await spool.close()

asyncio.run(main())
"""


@pytest.mark.slow
def test_a_failed_write_is_rolled_back_and_later_appends_stay_readable(tmp_path: Path) -> None:
    child = subprocess.run(
        [sys.executable, "-c", FAILING_DISK_CHILD, str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    failed, stored = child.stdout.splitlines()
    assert failed.startswith("failed ") and "cannot write spool segment" in failed
    _, first, third, write_errors = stored.split()

    recovery = reopen(tmp_path)

    assert [(entry.entry_id, entry.payload) for entry in recovery.entries] == [
        (int(first), b"a" * 300),
        (int(third), b"c" * 300),
    ]
    assert (recovery.problems, write_errors) == ([], "1")
