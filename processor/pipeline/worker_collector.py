"""When an analysis worker runs Python's cyclic garbage collector: between calls, over the young objects only.

A worker keeps two kinds of objects alive: the run states of released traces (:mod:`processor.pipeline.run_store`:
the facts of every span, about 17 objects per span, kept until ``runs.horizon`` or the memory bound) and the
objects of the jobs it has in hand (a call's mapped traces live until the main process sends their drift results).
Neither holds garbage cycles worth a collection: analysis creates almost no reference cycles (none on synthetic
traces up to 100,000 spans, a few objects per trace on the corpus) and frees what it builds by reference counting.
The automatic collector walked them all the same: a young collection right after a job's first phase walked
that job's trajectories, and every twentieth collection walked the run states kept since the previous one
(about 300,000 objects, 190-220 ms). On 9-span agent traces that was 9-10 % of a worker's CPU time (measured
with ``gc.callbacks`` in ``bench/pipeline_shapes.py --shape agent``).

So a worker turns the automatic collector off (:meth:`WorkerCollector.start`) and collects itself between two
calls (:meth:`WorkerCollector.between_calls`):

- when at least ``young_objects`` objects were allocated since its last collection and it has no job in hand,
  or when ``overdue_factor`` times that many were, job in hand or not (a load that never leaves the worker idle
  does not grow memory without bound);
- the youngest generation only; what survives is frozen (``gc.freeze``): never walked again, and freed by
  reference counting as any object;
- everything, frozen objects included, once the frozen objects have grown ``full_growth`` times since the last
  such full collection and at least ``young_per_full`` young collections ran since: garbage cycles among objects
  frozen while they were alive (rare) are reclaimed then, so they never outgrow what is alive for long, and a
  worker filling its run store from empty does not walk all it holds at each doubling.

Process-wide state: only the process that owns it (an analysis worker) may start one.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Final

__all__ = ["FULL_COLLECTION_GROWTH", "OVERDUE_FACTOR", "YOUNG_OBJECTS", "YOUNG_PER_FULL", "WorkerCollector"]

YOUNG_OBJECTS: Final = 10_000
"""Allocations (net of deallocations) between two young collections, as the worker's threshold has long been."""
OVERDUE_FACTOR: Final = 20
"""With a job in hand, a young collection waits for this many times :data:`YOUNG_OBJECTS`."""
FULL_COLLECTION_GROWTH: Final = 2
"""A full collection runs when the frozen objects have grown by this factor since the last one..."""
YOUNG_PER_FULL: Final = 200
"""...and at least this many young collections ran since (a worker filling its run store from empty would
otherwise walk everything it holds at each doubling)."""


@dataclass(slots=True)
class WorkerCollector:
    """The cyclic collector of one analysis worker process (see the module docstring)."""

    young_objects: int = YOUNG_OBJECTS
    overdue_factor: int = OVERDUE_FACTOR
    young_per_full: int = YOUNG_PER_FULL
    full_growth: float = FULL_COLLECTION_GROWTH
    young_collections: int = 0
    full_collections: int = 0
    _frozen_after_full: int = 0
    _young_since_full: int = 0

    def start(self) -> None:
        """Take over from the automatic collector: what the process holds so far is collected once, frozen (the
        loaded modules never become garbage), and the automatic collector is turned off."""
        gc.disable()
        self._collect_all()

    def between_calls(self, jobs_in_hand: bool) -> None:
        """Collect if due (called after an answer is sent and its artifacts are written, before the next call)."""
        allocated = gc.get_count()[0]
        if allocated < self.young_objects:
            return
        if jobs_in_hand and allocated < self.young_objects * self.overdue_factor:
            return
        if self._young_since_full >= self.young_per_full and gc.get_freeze_count() >= (
            self.full_growth * max(self._frozen_after_full, self.young_objects)
        ):
            self._collect_all()
            self.full_collections += 1
            return
        gc.collect(0)
        gc.freeze()
        self.young_collections += 1
        self._young_since_full += 1

    def _collect_all(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._frozen_after_full = gc.get_freeze_count()
        self._young_since_full = 0
