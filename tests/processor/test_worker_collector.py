"""The analysis worker's cyclic collector: off during jobs, young objects collected between calls, everything once
the frozen objects have grown."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from processor.pipeline.worker_collector import WorkerCollector


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _garbage_cycle() -> weakref.ref[_Node]:
    """Two objects that refer to each other and to nothing else: only the cyclic collector frees them."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def _allocate(objects: int) -> list[list[int]]:
    """``objects`` objects the collector tracks, kept alive by the caller."""
    return [[] for _ in range(objects)]


@pytest.fixture
def own_collector() -> Iterator[None]:
    """The test process's collector as it was, after a test that took it over."""
    was_enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if was_enabled:
        gc.enable()
    gc.collect()


def test_start_turns_the_automatic_collector_off_and_freezes_what_is_loaded(own_collector: None) -> None:
    WorkerCollector().start()
    assert not gc.isenabled()
    assert gc.get_freeze_count() > 0
    dead = _garbage_cycle()
    _allocate(50_000)  # far past the automatic threshold: nothing collects
    assert dead() is not None


def test_a_cycle_is_collected_between_calls_once_enough_was_allocated(own_collector: None) -> None:
    collector = WorkerCollector(young_objects=1_000)
    collector.start()
    dead = _garbage_cycle()
    collector.between_calls(jobs_in_hand=False)
    assert dead() is not None  # too little allocated since the last collection
    held = _allocate(2_000)
    collector.between_calls(jobs_in_hand=False)
    assert dead() is None
    assert (collector.young_collections, collector.full_collections) == (1, 0)
    assert held


def test_a_job_in_hand_delays_the_collection_until_it_is_overdue(own_collector: None) -> None:
    collector = WorkerCollector(young_objects=1_000, overdue_factor=5)
    collector.start()
    dead = _garbage_cycle()
    held = _allocate(2_000)
    collector.between_calls(jobs_in_hand=True)
    assert dead() is not None  # a job's objects are not walked while it is in hand...
    held += _allocate(4_000)
    collector.between_calls(jobs_in_hand=True)
    assert dead() is None  # ...unless five times the young threshold was allocated meanwhile
    assert collector.young_collections == 1


def test_survivors_are_frozen_and_a_full_collection_reclaims_cycles_frozen_alive(own_collector: None) -> None:
    collector = WorkerCollector(young_objects=1_000, young_per_full=2, full_growth=1.0)
    collector.start()
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    dead = weakref.ref(first)
    held = _allocate(2_000)
    frozen_before = gc.get_freeze_count()
    collector.between_calls(jobs_in_hand=False)
    assert gc.get_freeze_count() >= frozen_before + 2_000  # the survivors, the cycle among them
    del first, second  # garbage now, but frozen: young collections do not see it
    held += _allocate(2_000)
    collector.between_calls(jobs_in_hand=False)
    assert dead() is not None
    assert (collector.young_collections, collector.full_collections) == (2, 0)
    held += _allocate(2_000)
    collector.between_calls(jobs_in_hand=False)  # two young collections since the last full one, grown enough
    assert dead() is None
    assert collector.full_collections == 1


def test_no_full_collection_before_the_frozen_objects_grew(own_collector: None) -> None:
    collector = WorkerCollector(young_objects=1_000, young_per_full=1)  # grown twice over: not with 3,000 objects
    collector.start()
    held = _allocate(1_500)
    for _ in range(3):
        held += _allocate(1_000)
        collector.between_calls(jobs_in_hand=False)
    assert (collector.young_collections, collector.full_collections) == (3, 0)
