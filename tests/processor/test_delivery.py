"""Delivery tracker: a spool entry is acknowledged once every span it carried was delivered."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from processor.pipeline.delivery import DeliveryTracker
from processor.pipeline.spool import KIND_TRACES, Spool


def tracker() -> tuple[DeliveryTracker, list[int]]:
    acked: list[int] = []
    return DeliveryTracker(acked.append), acked


def test_an_entry_is_acknowledged_when_its_last_span_is_delivered() -> None:
    delivery, acked = tracker()
    delivery.register(1, 3)
    delivery.register(2, 1)

    delivery.delivered([1, 1])
    assert (acked, delivery.pending_entries) == ([], 2)
    delivery.delivered([2])
    assert acked == [2]
    delivery.delivered(iter([1]))
    assert (acked, delivery.pending_entries) == ([2, 1], 0)


def test_spans_that_were_not_spooled_are_ignored() -> None:
    delivery, acked = tracker()
    delivery.register(4, 1)

    delivery.delivered([-1, -1, -1])

    assert (acked, delivery.pending_entries) == ([], 1)


def test_delivering_more_than_registered_acknowledges_once() -> None:
    delivery, acked = tracker()
    delivery.register(5, 2)

    delivery.delivered([5, 5, 5])
    delivery.delivered([5, 99])

    assert (acked, delivery.pending_entries) == ([5], 0)


def test_an_entry_without_accepted_spans_is_acknowledged_at_once() -> None:
    delivery, acked = tracker()

    delivery.register(6, 0)

    assert (acked, delivery.pending_entries) == ([6], 0)


def test_registering_an_entry_twice_adds_the_counts() -> None:
    delivery, acked = tracker()
    delivery.register(7, 1)
    delivery.register(7, 2)

    delivery.delivered([7, 7])
    assert acked == []
    delivery.delivered([7])
    assert acked == [7]


def test_a_negative_entry_id_is_refused() -> None:
    delivery, _ = tracker()

    with pytest.raises(ValueError, match="non-negative"):
        delivery.register(-1, 3)


def test_delivered_spans_release_their_spool_entry(tmp_path: Path) -> None:
    async def act() -> tuple[int, int]:
        spool = Spool(tmp_path, fsync=False)
        spool.open()
        delivery = DeliveryTracker(spool.ack)
        first = await spool.append(KIND_TRACES, b"a")
        second = await spool.append(KIND_TRACES, b"b")
        delivery.register(first, 2)
        delivery.register(second, 1)

        delivery.delivered([first, second, -1])
        held = spool.entries_held
        await spool.close()
        return held, first

    held, first = asyncio.run(act())

    assert held == 1
    recovery = Spool(tmp_path, fsync=False)
    assert [entry.entry_id for entry in recovery.open().entries] == [first]
    asyncio.run(recovery.close())
