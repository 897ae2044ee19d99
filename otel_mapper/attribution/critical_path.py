"""The critical path: the heaviest chain of causally dependent nodes, the chain that bounds the run's duration.

Order comes only from the causal edges (DESIGN invariant 1); durations only weigh nodes. A node's weight is the
time it spent working: its own duration less the time covered by the spans that ran inside it (its span
children), since those children are nodes of their own on the same chain. Along root -> agent -> chat -> tool
-> chat the weights add up to the wall time of a sequential run; concurrent siblings (no edge between them)
contribute only the heavier branch. Nodes without timestamps (derived proposals) weigh nothing but still carry
the order.

Longest path in a DAG by dynamic programming over Kahn's order: iterative, O(nodes + edges), no recursion.
Ties go to the longer chain, then to the smaller node id, so the path is deterministic. Nodes left on a cycle (the mapper breaks cycles, so
none in practice) are not on the path.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from otel_mapper.model import Node, Trajectory
from semconv.trajectory import CAUSAL_EDGE_TYPES

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


def node_timing(trajectory: Trajectory, children: dict[str, list[str]]) -> dict[str, PathStep]:
    """Duration, working and waiting time of every node (``children``: span parent -> span children)."""
    timing: dict[str, PathStep] = {}
    for node in trajectory.nodes:
        duration = _duration(node)
        kids = [kid for kid in (trajectory.node(item) for item in children.get(node.id, ())) if kid is not None]
        waiting = min(_covered(node, kids), duration) if duration and kids else 0
        timing[node.id] = PathStep(
            node_id=node.id, duration_ns=duration, working_ns=duration - waiting, waiting_ns=waiting
        )
    return timing


def critical_path(trajectory: Trajectory, timing: dict[str, PathStep]) -> CriticalPath:
    ids = [node.id for node in trajectory.nodes]
    earlier: dict[str, set[str]] = {node_id: set() for node_id in ids}
    later: dict[str, list[str]] = {node_id: [] for node_id in ids}
    for edge in trajectory.edges:
        if edge.type in CAUSAL_EDGE_TYPES and edge.from_node in earlier and edge.to_node in earlier:
            if edge.to_node not in earlier[edge.from_node] and edge.to_node != edge.from_node:
                earlier[edge.from_node].add(edge.to_node)
                later[edge.to_node].append(edge.from_node)
    remaining = {node_id: len(targets) for node_id, targets in earlier.items()}
    best: dict[str, int] = {}
    length: dict[str, int] = {}
    via: dict[str, str | None] = {}
    queue = deque(sorted(node_id for node_id in ids if remaining[node_id] == 0))
    while queue:
        current = queue.popleft()
        previous = None
        heaviest = 0
        for candidate in sorted(earlier[current]):
            weight = best.get(candidate)
            if weight is not None and (
                previous is None or (weight, length[candidate]) > (heaviest, length[previous])
            ):
                previous, heaviest = candidate, weight
        best[current] = heaviest + timing[current].working_ns
        length[current] = 1 + (length[previous] if previous is not None else 0)
        via[current] = previous
        for successor in later[current]:
            remaining[successor] -= 1
            if remaining[successor] == 0:
                queue.append(successor)
    if not best:
        return CriticalPath(steps=(), duration_ns=0)
    # The heaviest chain; among equals the longest (zero-weight steps after it still belong to it), then by id.
    end = min(best, key=lambda node_id: (-best[node_id], -length[node_id], node_id))
    chain: list[PathStep] = []
    cursor: str | None = end
    while cursor is not None:  # each step goes to a strictly earlier node of a DAG: ends within len(ids) steps
        chain.append(timing[cursor])
        cursor = via[cursor]
    chain.reverse()
    return CriticalPath(steps=tuple(chain), duration_ns=best[end])
