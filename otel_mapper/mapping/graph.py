"""Graph queries over a trajectory's edges, built once per trajectory, all iterative and bounded.

Edges point from the later node to the earlier one (``from`` caused_by ``to``), so "A precedes B" means there
is a path of ordering edges from B to A. Nothing here reads timestamps.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from otel_mapper.model import Edge, Trajectory
from semconv.trajectory import ORDERING_EDGE_TYPES, EdgeType

__all__ = [
    "CausalIndex",
    "MAX_WALK",
    "causal_index",
    "seed_causal_index",
    "containment_intervals",
    "encloses",
    "find_cycle_nodes",
    "strongly_connected",
]

MAX_WALK: Final = 200_000
"""A single reachability walk visits at most this many nodes; beyond it the answer is "unknown"."""


@dataclass(slots=True)
class CausalIndex:
    """Adjacency of the ordering edges (causal + authoritative sequence) and the causal depth of each node."""

    node_ids: tuple[str, ...]
    earlier: dict[str, list[str]] = field(default_factory=dict)
    """node -> nodes it directly depends on (edge targets)."""
    later: dict[str, list[str]] = field(default_factory=dict)
    depth: dict[str, int] = field(default_factory=dict)
    """Longest ordering path from a node with no predecessors; 0 for those. Respects precedence."""

    @classmethod
    def build(
        cls, node_ids: Iterable[str], edges: Iterable[Edge], types: frozenset[EdgeType] = ORDERING_EDGE_TYPES
    ) -> CausalIndex:
        ids = tuple(node_ids)
        index = cls(node_ids=ids)
        earlier: dict[str, list[str]] = {node: [] for node in ids}
        later: dict[str, list[str]] = {node: [] for node in ids}
        for edge in edges:
            if edge.type in types and edge.from_node in earlier and edge.to_node in earlier:
                earlier[edge.from_node].append(edge.to_node)
                later[edge.to_node].append(edge.from_node)
        index.earlier = earlier
        index.later = later
        index.depth = _longest_depth(ids, earlier, later)
        return index

    def precedes(self, first: str, second: str, limit: int = MAX_WALK) -> bool | None:
        """True if ``first`` is on an ordering path before ``second``; False if not; None if the walk ran out."""
        if first == second:
            return False
        if self.depth.get(first, 0) >= self.depth.get(second, 0):
            # Depth respects precedence: a predecessor always has a strictly smaller depth.
            return False
        seen = {second}
        queue = deque([second])
        target_depth = self.depth.get(first, 0)
        while queue:
            if len(seen) > limit:
                return None
            current = queue.popleft()
            for previous in self.earlier.get(current, ()):
                if previous == first:
                    return True
                if previous not in seen and self.depth.get(previous, 0) > target_depth:
                    seen.add(previous)
                    queue.append(previous)
        return False

    def ordered(self, first: str, second: str) -> bool | None:
        """True if an ordering path joins the two nodes in either direction."""
        forward = self.precedes(first, second)
        if forward:
            return True
        backward = self.precedes(second, first)
        if backward:
            return True
        if forward is None or backward is None:
            return None
        return False

    def ancestors(self, node: str, limit: int = MAX_WALK) -> set[str]:
        """Every node that precedes ``node`` (bounded by ``limit`` visits)."""
        seen: set[str] = set()
        queue = deque([node])
        while queue and len(seen) < limit:
            current = queue.popleft()
            for previous in self.earlier.get(current, ()):
                if previous not in seen:
                    seen.add(previous)
                    queue.append(previous)
        return seen


_CAUSAL_INDEX: Final = "causal_index"


def _build_causal_index(trajectory: Trajectory) -> CausalIndex:
    return CausalIndex.build((node.id for node in trajectory.nodes), trajectory.edges)


def causal_index(trajectory: Trajectory) -> CausalIndex:
    """The trajectory's :class:`CausalIndex` over the ordering edges, built once per trajectory and shared."""
    return trajectory.derived(_CAUSAL_INDEX, _build_causal_index)


def seed_causal_index(trajectory: Trajectory, index: CausalIndex) -> None:
    """Hand an index built from exactly ``trajectory``'s nodes and edges to later readers (the mapper builds one
    for its declarations before the trajectory exists)."""
    trajectory.derived(_CAUSAL_INDEX, lambda _: index)


def _longest_depth(ids: tuple[str, ...], earlier: dict[str, list[str]], later: dict[str, list[str]]) -> dict[str, int]:
    """Kahn's algorithm from the sources; nodes left on a cycle keep depth 0 (the builder removes cycles)."""
    # Two edge types can join the same pair: count each neighbour once (a set only where duplicates can occur).
    remaining = {node: len(targets) if len(targets) < 2 else len(set(targets)) for node, targets in earlier.items()}
    depth = dict.fromkeys(ids, 0)
    queue = deque(node for node in ids if remaining[node] == 0)
    while queue:
        current = queue.popleft()
        successors = later[current]
        for successor in successors if len(successors) < 2 else set(successors):
            if depth[successor] < depth[current] + 1:
                depth[successor] = depth[current] + 1
            remaining[successor] -= 1
            if remaining[successor] == 0:
                queue.append(successor)
    return depth


def find_cycle_nodes(node_ids: Iterable[str], edges: Iterable[Edge]) -> set[str]:
    """Nodes that Kahn's algorithm cannot order: on a cycle, or downstream of one."""
    ids = tuple(node_ids)
    earlier: dict[str, set[str]] = {node: set() for node in ids}
    later: dict[str, set[str]] = {node: set() for node in ids}
    for edge in edges:
        if edge.from_node in earlier and edge.to_node in earlier and edge.from_node != edge.to_node:
            earlier[edge.from_node].add(edge.to_node)
            later[edge.to_node].add(edge.from_node)
    remaining = {node: len(earlier[node]) for node in ids}
    queue = deque(node for node in ids if remaining[node] == 0)
    done: set[str] = set()
    while queue:
        current = queue.popleft()
        done.add(current)
        for successor in later[current]:
            remaining[successor] -= 1
            if remaining[successor] == 0:
                queue.append(successor)
    return set(ids) - done


def strongly_connected(node_ids: Iterable[str], edges: Iterable[Edge]) -> dict[str, int] | None:
    """Component label of every node on a cycle (components of two or more nodes); ``None`` when acyclic.

    Iterative Tarjan: input depth never reaches the Python stack (10,000-deep chains are routine).
    """
    ids = tuple(node_ids)
    known = set(ids)
    successors: dict[str, list[str]] = {node: [] for node in ids}
    for edge in edges:
        if edge.from_node in known and edge.to_node in known and edge.from_node != edge.to_node:
            successors[edge.from_node].append(edge.to_node)
    if _acyclic(ids, successors):
        return None  # the usual case, found at a fraction of Tarjan's cost
    index_of: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    labels: dict[str, int] = {}
    counter = 0
    component = 0
    for root in ids:
        if root in index_of:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index_of[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            children = successors[node]
            descended = False
            while position < len(children):
                child = children[position]
                position += 1
                if child not in index_of:
                    work.append((node, position))
                    work.append((child, 0))
                    descended = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index_of[child])
            if descended:
                continue
            if low[node] == index_of[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    for member in members:
                        labels[member] = component
                    component += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return labels or None


def _acyclic(ids: tuple[str, ...], successors: dict[str, list[str]]) -> bool:
    """Kahn's algorithm: whether every node can be ordered (no cycle anywhere)."""
    pending = dict.fromkeys(ids, 0)
    for targets in successors.values():
        for target in targets:
            pending[target] += 1
    ready = [node for node, count in pending.items() if not count]
    ordered = 0
    while ready:
        node = ready.pop()
        ordered += 1
        for target in successors[node]:
            pending[target] -= 1
            if not pending[target]:
                ready.append(target)
    return ordered == len(pending)


def containment_intervals(parents: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Pre/post numbers of each node in the containment forest: ``a`` is an ancestor of ``b`` exactly when
    ``a``'s interval encloses ``b``'s. One O(n) pass replaces an ancestor walk per query. ``parents`` must be
    acyclic (cycles are broken before this runs); nodes on a leftover cycle get no interval."""
    children: dict[str, list[str]] = {}
    nodes = set(parents)
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
        nodes.add(parent)
    roots = sorted(node for node in nodes if node not in parents)
    intervals: dict[str, tuple[int, int]] = {}
    enter: dict[str, int] = {}
    clock = 0
    for root in roots:
        work: list[tuple[str, bool]] = [(root, False)]
        while work:
            node, leaving = work.pop()
            if leaving:
                intervals[node] = (enter[node], clock)
                clock += 1
                continue
            enter[node] = clock
            clock += 1
            work.append((node, True))
            for child in children.get(node, ()):
                work.append((child, False))
    return intervals


def encloses(intervals: dict[str, tuple[int, int]], ancestor: str, node: str) -> bool:
    """Whether ``ancestor`` is a proper containment ancestor of ``node``."""
    outer = intervals.get(ancestor)
    inner = intervals.get(node)
    if outer is None or inner is None or ancestor == node:
        return False
    return outer[0] < inner[0] and inner[1] < outer[1]
