"""Persistent spool, damaged data: a truncated tail, a flipped byte, garbage named like a segment and a damaged ack file
keep the good records, quarantine the rest and say where."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from processor.pipeline.spool import KIND_TRACES, Spool
from tests.support.spool_files import FIRST_SEGMENT, HEADER, payload, reopen, spool_files, wait_until, write_entries

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
