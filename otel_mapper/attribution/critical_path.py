"""The critical path: the heaviest chain of causally dependent nodes, the chain that bounds the run's duration.

Order comes only from the causal edges (DESIGN invariant 1); durations only weigh nodes. A node's weight is the
time it spent working: its own duration less the time covered by the spans that ran inside it (its span
children), since those children are nodes of their own on the same chain. Along root -> agent -> chat -> tool
-> chat the weights add up to the wall time of a sequential run; concurrent siblings (no edge between them)
contribute only the heavier branch. Nodes without timestamps (derived proposals) weigh nothing but still carry
the order.

The edges are the trajectory's ordering edges (the causal ones and authoritative runtime sequence numbers, which
order steps without claiming causation): the shared :func:`otel_mapper.mapping.graph.causal_index`. Longest
path in a DAG by dynamic programming in causal-depth order: iterative, O(nodes log nodes + edges), no recursion.
Ties go to the longer chain, then to the smaller node id, so the path is deterministic. Nodes left on a cycle
(the mapper breaks cycles, so none in practice) are not extended.
"""

from __future__ import annotations

from dataclasses import dataclass

from otel_mapper.mapping.graph import CausalIndex
from otel_mapper.model import Node, Trajectory

__all__ = ["CriticalPath", "PathStep", "critical_path", "node_timing"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PathStep:
    node_id: str
    duration_ns: int
    working_ns: int
    """Time not covered by the node's span children: its own work (the weight on the path)."""
    waiting_ns: int
    """Time covered by its span children: waiting on the steps inside it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CriticalPath:
    steps: tuple[PathStep, ...]
    """Earliest first."""
    duration_ns: int

    @property
    def node_ids(self) -> tuple[str, ...]:
        return tuple(step.node_id for step in self.steps)

    def share(self, step: PathStep) -> float:
        return step.working_ns / self.duration_ns if self.duration_ns > 0 else 0.0


def _duration(node: Node) -> int:
    if node.start_unix_nano <= 0 or node.end_unix_nano <= node.start_unix_nano:
        return 0
    return node.end_unix_nano - node.start_unix_nano


def _covered(node: Node, children: list[Node]) -> int:
    """Nanoseconds of ``node``'s interval covered by the union of its children's intervals."""
    start, end = node.start_unix_nano, node.end_unix_nano
    spans = sorted(
        (max(child.start_unix_nano, start), min(child.end_unix_nano, end))
        for child in children
        if _duration(child) > 0
    )
    covered = 0
    current_start = current_end = None
    for child_start, child_end in spans:
        if child_end <= child_start:
            continue
        if current_end is None or child_start > current_end:
            if current_end is not None and current_start is not None:
                covered += current_end - current_start
            current_start, current_end = child_start, child_end
        elif child_end > current_end:
            current_end = child_end
    if current_end is not None and current_start is not None:
        covered += current_end - current_start
    return covered


def node_timing(trajectory: Trajectory, children: dict[str, list[str]]) -> dict[str, tuple[int, int]]:
    """``(duration, working)`` nanoseconds of every node (``children``: span parent -> span children); the rest of
    its duration it waited on the steps inside it."""
    timing: dict[str, tuple[int, int]] = {}
    lookup = trajectory.node
    for node in trajectory.nodes:
        start, end = node.start_unix_nano, node.end_unix_nano
        duration = end - start if 0 < start < end else 0
        kids = children.get(node.id)
        if not kids or not duration:
            timing[node.id] = (duration, duration)
            continue
        covered = _covered(node, [kid for kid in map(lookup, kids) if kid is not None])
        timing[node.id] = (duration, duration - min(covered, duration))
    return timing


def _step(node_id: str, timing: dict[str, tuple[int, int]]) -> PathStep:
    duration, working = timing.get(node_id, (0, 0))
    return PathStep(node_id=node_id, duration_ns=duration, working_ns=working, waiting_ns=duration - working)


def critical_path(index: CausalIndex, timing: dict[str, tuple[int, int]]) -> CriticalPath:
    """The heaviest chain over the trajectory's ordering edges (shared :class:`CausalIndex`). Nodes are taken in
    causal-depth order, which respects precedence (a predecessor always has a smaller depth): one pass."""
    depth = index.depth
    best: dict[str, int] = {}
    length: dict[str, int] = {}
    via: dict[str, str | None] = {}
    for current in sorted(index.node_ids, key=depth.__getitem__):
        previous: str | None = None
        heaviest = previous_length = 0
        for candidate in index.earlier.get(current, ()):
            weight = best.get(candidate)
            if weight is None:
                continue  # left on a cycle (the mapper breaks cycles first)
            size = length[candidate]
            if previous is None or (weight, size) > (heaviest, previous_length) or (
                (weight, size) == (heaviest, previous_length) and candidate < previous
            ):
                previous, heaviest, previous_length = candidate, weight, size
        best[current] = heaviest + timing.get(current, (0, 0))[1]
        length[current] = previous_length + 1
        via[current] = previous
    if not best:
        return CriticalPath(steps=(), duration_ns=0)
    # The heaviest chain; among equals the longest (zero-weight steps after it still belong to it), then by id.
    end = min(best, key=lambda node_id: (-best[node_id], -length[node_id], node_id))
    chain: list[PathStep] = []
    cursor: str | None = end
    while cursor is not None:  # each step goes to a node of smaller depth: ends within len(node_ids) steps
        chain.append(_step(cursor, timing))
        cursor = via[cursor]
    chain.reverse()
    return CriticalPath(steps=tuple(chain), duration_ns=best[end])
