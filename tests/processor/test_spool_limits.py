"""Persistent spool, limits and lifecycle: SpoolFull until entries are acknowledged, group commit (appends share
fsyncs), close writes what is queued, a cancelled append is not replayed, unusable and in-use directories."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from processor.config import parse_config
from processor.pipeline.signal_pipeline import spool_for
from processor.pipeline.spool import KIND_TRACES, Spool, SpoolFull
from tests.support.spool_files import HEADER, payload, reopen


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


@pytest.mark.parametrize(("queue", "synced"), [({}, True), ({"fsync": False}, False)])
def test_the_spool_flushes_to_disk_unless_sending_queue_fsync_is_off(
    tmp_path: Path, queue: dict[str, object], synced: bool
) -> None:
    config = parse_config({"output": {"directory": str(tmp_path)},
                           "exporter": {"endpoint": "127.0.0.1:1", "sending_queue": queue}})
    spool, setting = spool_for(config, "exporter")
    assert spool is not None and setting

    async def act() -> tuple[int, int]:
        spool.open()
        await spool.append(KIND_TRACES, payload(0))
        stats = spool.stats
        await spool.close()
        return stats.appended, stats.syncs

    appended, syncs = asyncio.run(act())
    assert appended == 1 and (syncs > 0) is synced
