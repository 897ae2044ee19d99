"""Persistent spool: durability before acknowledgement, replay, deletion, damage detection, group commit."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from processor.pipeline.spool import KIND_LOGS, KIND_TRACES, Spool, SpoolFull

HEADER = 24
"""Record header size of the spool format (magic, version, kind, reserved, id, length, crc)."""
FIRST_SEGMENT = "spool-00000000000000000001.seg"
REPO = Path(__file__).resolve().parents[2]


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


# --- round trip and replay -------------------------------------------------------------------------------


def test_round_trip_returns_every_entry_in_append_order(tmp_path: Path) -> None:
    async def act() -> list[int]:
        spool = Spool(tmp_path, fsync=False)
        assert spool.open().entries == []
        ids = [
            await spool.append(KIND_TRACES, b"traces-1"),
            await spool.append(KIND_LOGS, b"logs-2"),
            await spool.append(KIND_TRACES, b""),
        ]
        assert (spool.entries_held, spool.bytes_held) == (3, 3 * HEADER + 14)
        await spool.close()
        return ids

    ids = asyncio.run(act())

    recovery = reopen(tmp_path)
    assert [(entry.entry_id, entry.kind, entry.payload) for entry in recovery.entries] == [
        (ids[0], KIND_TRACES, b"traces-1"),
        (ids[1], KIND_LOGS, b"logs-2"),
        (ids[2], KIND_TRACES, b""),
    ]
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert (recovery.problems, recovery.quarantined, recovery.bytes_recovered) == ([], [], 14)


def test_ids_continue_after_the_highest_id_seen(tmp_path: Path) -> None:
    first = asyncio.run(write_entries(tmp_path, [payload(1), payload(2)]))
    second = asyncio.run(write_entries(tmp_path, [payload(3)]))

    assert second[0] > max(first)
    assert [entry.entry_id for entry in reopen(tmp_path).entries] == first + second


def test_close_persists_acks_and_replay_returns_only_unacked_entries(tmp_path: Path) -> None:
    async def act() -> list[int]:
        spool = Spool(tmp_path, fsync=False, segment_bytes=3 * (HEADER + 100))
        spool.open()
        ids = [await spool.append(KIND_TRACES, payload(number)) for number in range(7)]
        for entry_id in ids[::2]:
            spool.ack(entry_id)
        spool.ack(ids[0])  # idempotent
        spool.ack(10_000)  # unknown
        await spool.close()
        return ids

    ids = asyncio.run(act())

    recovery = reopen(tmp_path)
    assert [entry.entry_id for entry in recovery.entries] == ids[1::2]
    assert [entry.payload for entry in recovery.entries] == [payload(number) for number in (1, 3, 5)]


def test_recovered_payloads_stay_on_disk_until_read(tmp_path: Path) -> None:
    asyncio.run(write_entries(tmp_path, [payload(1, 300), payload(2, 500)]))

    first, second = reopen(tmp_path).entries

    assert (first.length, second.length) == (300, 500)  # recovery holds where they are, not their bytes
    assert (first.payload, second.payload) == (payload(1, 300), payload(2, 500))
    with first.segment.open("r+b") as segment:  # the segment loses its tail after start-up
        segment.truncate(second.offset + 10)
    assert first.payload == payload(1, 300)
    with pytest.raises(OSError, match="shorter"):
        _ = second.payload


def test_a_spool_dropped_without_close_replays_everything_it_acknowledged(tmp_path: Path) -> None:
    async def act() -> list[int]:
        spool = Spool(tmp_path, fsync=True)
        spool.open()
        return [await spool.append(KIND_TRACES, payload(number)) for number in range(5)]

    ids = asyncio.run(act())  # the Spool object is abandoned here, as in a crash
    gc.collect()

    recovery = reopen(tmp_path)
    assert [(entry.entry_id, entry.payload) for entry in recovery.entries] == [
        (entry_id, payload(number)) for number, entry_id in enumerate(ids)
    ]
    assert recovery.problems == []
    deadline = time.monotonic() + 5.0
    while any(thread.name == "otel-trajectory-spool" for thread in threading.enumerate()):
        assert time.monotonic() < deadline, "the writer thread of a dropped spool kept running"
        time.sleep(0.005)


def test_fully_acknowledged_segments_are_deleted_with_their_ack_files(tmp_path: Path) -> None:
    async def act() -> None:
        spool = Spool(tmp_path, fsync=False, segment_bytes=2 * (HEADER + 100))
        spool.open()
        ids = [await spool.append(KIND_TRACES, payload(number)) for number in range(6)]
        assert len(spool_files(tmp_path)) == 3
        held = spool.bytes_held

        spool.ack(ids[0])
        spool.ack(ids[1])
        spool.ack(ids[2])
        middle, last = f"spool-{ids[2]:020d}", f"spool-{ids[4]:020d}"
        # One listing per check: the writer deletes the first segment and writes the ack file in either order.
        expected = [f"{middle}.ack", f"{middle}.seg", f"{last}.seg"]
        await wait_until(lambda: spool_files(tmp_path) == expected, "first segment deleted, ack file written")
        assert (spool.entries_held, spool.bytes_held) == (3, held - 2 * (HEADER + 100))

        for entry_id in ids[3:]:
            spool.ack(entry_id)
        await wait_until(lambda: spool_files(tmp_path) == [f"{last}.ack", f"{last}.seg"], "older segments deleted")
        assert (spool.entries_held, spool.bytes_held) == (0, 2 * (HEADER + 100))
        await spool.close()

    asyncio.run(act())
    assert spool_files(tmp_path) == []
    assert reopen(tmp_path).entries == []


def test_light_traffic_keeps_appending_to_one_segment(tmp_path: Path) -> None:
    async def act() -> list[str]:
        spool = Spool(tmp_path, fsync=False)
        spool.open()
        for number in range(5):
            spool.ack(await spool.append(KIND_TRACES, payload(number)))
        files = spool_files(tmp_path)
        await spool.close()
        return files

    assert asyncio.run(act()) == [FIRST_SEGMENT.replace(".seg", ".ack"), FIRST_SEGMENT]
    assert spool_files(tmp_path) == []


# --- damaged data --------------------------------------------------------------------------------------

RECORD_SIZES = [0, 7, 100, 1, 300, 40]


@pytest.fixture(scope="module")
def one_segment(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    directory = tmp_path_factory.mktemp("segment")
    asyncio.run(write_entries(directory, [payload(number, size) for number, size in enumerate(RECORD_SIZES)]))
    assert spool_files(directory) == [FIRST_SEGMENT]
    return (directory / FIRST_SEGMENT).read_bytes()


def record_ends() -> list[int]:
    ends, offset = [], 0
    for size in RECORD_SIZES:
        offset += HEADER + size
        ends.append(offset)
    return ends


@settings(max_examples=60, deadline=None)
@given(cut_fraction=st.floats(min_value=0.0, max_value=1.0))
def test_a_truncated_tail_keeps_the_good_records_and_quarantines_the_rest(
    one_segment: bytes, cut_fraction: float
) -> None:
    cut = int(len(one_segment) * cut_fraction)
    ends = record_ends()
    complete = [index for index, end in enumerate(ends) if end <= cut]
    boundary = ends[complete[-1]] if complete else 0
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        (directory / FIRST_SEGMENT).write_bytes(one_segment[:cut])

        recovery = reopen(directory)

        assert [entry.payload for entry in recovery.entries] == [
            payload(index, RECORD_SIZES[index]) for index in complete
        ]
        if cut == boundary:
            assert (recovery.problems, recovery.quarantined) == ([], [])
        else:
            assert len(recovery.problems) == 1 and len(recovery.quarantined) == 1
            assert FIRST_SEGMENT in recovery.problems[0] and f"offset {boundary}" in recovery.problems[0]
            assert recovery.quarantined[0].parent == directory / "quarantine"
            assert recovery.quarantined[0].read_bytes() == one_segment[boundary:cut]
        if complete:
            assert (directory / FIRST_SEGMENT).read_bytes() == one_segment[:boundary]
        else:
            assert spool_files(directory) == []
        again = reopen(directory)
        assert (again.entries, again.problems) == (recovery.entries, [])


@pytest.mark.parametrize(
    ("field", "offset_in_record"),
    [("magic", 0), ("kind", 5), ("entry id", 8), ("length", 17), ("crc", 21), ("payload", HEADER + 3)],
)
def test_a_flipped_byte_quarantines_from_the_damaged_record_on(
    one_segment: bytes, tmp_path: Path, field: str, offset_in_record: int
) -> None:
    damaged_index = 2
    start = record_ends()[damaged_index - 1]
    data = bytearray(one_segment)
    data[start + offset_in_record] ^= 0x5A
    (tmp_path / FIRST_SEGMENT).write_bytes(bytes(data))

    recovery = reopen(tmp_path)

    assert [entry.payload for entry in recovery.entries] == [payload(0, 0), payload(1, 7)], field
    assert len(recovery.problems) == 1 and f"offset {start}" in recovery.problems[0]
    assert recovery.quarantined[0].read_bytes() == bytes(data[start:])
    assert (tmp_path / FIRST_SEGMENT).stat().st_size == start


def test_garbage_files_named_like_segments_are_quarantined(tmp_path: Path) -> None:
    ids = asyncio.run(write_entries(tmp_path, [payload(1), payload(2)]))
    garbage = tmp_path / "spool-00000000000000000100.seg"
    garbage.write_bytes(b"this is not a spool segment at all" * 10)
    (tmp_path / "spool-junk.seg").write_bytes(b"x")

    recovery = reopen(tmp_path)

    assert [entry.entry_id for entry in recovery.entries] == ids
    assert sorted(path.name for path in recovery.quarantined) == [
        "spool-00000000000000000100.seg.0.bad",
        "spool-junk.seg.0.bad",
    ]
    assert len(recovery.problems) == 2
    assert any("00000000000000000100.seg" in problem and "offset 0" in problem for problem in recovery.problems)
    assert spool_files(tmp_path) == [FIRST_SEGMENT]


def test_a_damaged_ack_file_is_reported_and_only_causes_redelivery(tmp_path: Path) -> None:
    async def act() -> list[int]:
        spool = Spool(tmp_path, fsync=False)
        spool.open()
        ids = [await spool.append(KIND_TRACES, payload(number)) for number in range(4)]
        spool.ack(ids[0])
        await wait_until(lambda: (tmp_path / "spool-00000000000000000001.ack").exists(), "first ack record")
        spool.ack(ids[1])
        await spool.close()
        return ids

    ids = asyncio.run(act())
    ack_file = tmp_path / "spool-00000000000000000001.ack"
    data = ack_file.read_bytes()
    ack_file.write_bytes(data[:-3])  # the second ack record is cut short

    recovery = reopen(tmp_path)

    assert [entry.entry_id for entry in recovery.entries] == ids[1:]
    assert len(recovery.problems) == 1 and "delivered again" in recovery.problems[0]


# --- limits, group commit, lifecycle ---------------------------------------------------------------------


def test_append_raises_spool_full_until_held_entries_are_acknowledged(tmp_path: Path) -> None:
    async def act() -> None:
        spool = Spool(tmp_path, fsync=False, max_bytes=3 * (HEADER + 100))
        spool.open()
        ids = [await spool.append(KIND_TRACES, payload(number)) for number in range(3)]
        with pytest.raises(SpoolFull, match="acknowledge"):
            await spool.append(KIND_TRACES, payload(3))
        with pytest.raises(SpoolFull):
            await spool.append(KIND_TRACES, b"")
        for entry_id in ids:
            spool.ack(entry_id)
        await spool.append(KIND_TRACES, payload(3))
        assert (spool.entries_held, spool.bytes_held) == (1, HEADER + 100)
        with pytest.raises(SpoolFull):
            await spool.append(KIND_TRACES, bytes(3 * (HEADER + 100)))
        await spool.close()

    asyncio.run(act())


def test_concurrent_appends_share_fsyncs(tmp_path: Path) -> None:
    async def act() -> tuple[list[int], int, int]:
        spool = Spool(tmp_path, fsync=True)
        spool.open()
        ids = await asyncio.gather(*(spool.append(KIND_TRACES, payload(number, 2000)) for number in range(200)))
        stats = spool.stats
        await spool.close()
        return list(ids), stats.appended, stats.syncs

    ids, appended, syncs = asyncio.run(act())

    assert appended == 200 and len(set(ids)) == 200
    assert 0 < syncs < appended // 4


def test_close_writes_every_queued_append(tmp_path: Path) -> None:
    async def act() -> list[int]:
        spool = Spool(tmp_path, fsync=False)
        spool.open()
        tasks = [asyncio.create_task(spool.append(KIND_TRACES, payload(number))) for number in range(50)]
        await asyncio.sleep(0)  # let every task hand its append to the writer
        await spool.close()
        ids = list(await asyncio.gather(*tasks))
        with pytest.raises(RuntimeError, match="not open"):
            await spool.append(KIND_TRACES, b"late")
        await spool.close()
        return ids

    ids = asyncio.run(act())

    assert [entry.entry_id for entry in reopen(tmp_path).entries] == ids


def test_a_cancelled_append_is_not_replayed(tmp_path: Path) -> None:
    async def act() -> int:
        spool = Spool(tmp_path, fsync=False)
        spool.open()
        kept = await spool.append(KIND_TRACES, payload(1))
        task = asyncio.create_task(spool.append(KIND_TRACES, payload(2)))
        await asyncio.sleep(0)  # the append is now waiting for the writer
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert spool.entries_held == 1
        await spool.close()
        return kept

    kept = asyncio.run(act())

    assert [entry.entry_id for entry in reopen(tmp_path).entries] == [kept]


def test_an_unusable_directory_raises_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")

    with pytest.raises(OSError, match="spool directory .*/file/spool is not usable .*choose a directory"):
        Spool(blocker / "spool").open()


def test_a_directory_in_use_is_refused(tmp_path: Path) -> None:
    first = Spool(tmp_path, fsync=False)
    first.open()
    try:
        with pytest.raises(OSError, match="in use by another process"):
            Spool(tmp_path, fsync=False).open()
    finally:
        asyncio.run(first.close())


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
