"""Persistent spool, round trip: every entry replayed in append order, ids continued, acknowledged entries and fully
acknowledged segments gone, payloads read from disk, a spool dropped without close."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from pathlib import Path

import pytest

from processor.pipeline.spool import KIND_LOGS, KIND_TRACES, Spool
from tests.support.spool_files import FIRST_SEGMENT, HEADER, payload, reopen, spool_files, wait_until, write_entries


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
