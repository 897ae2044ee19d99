"""The edges of one trajectory while they are derived: :class:`EdgeSet` keeps the first evidence found for each
(from, type, to), remembers each node's containment parent, and breaks cycles weakest evidence first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import fields as dataclass_fields

from otel_mapper.mapping.graph import strongly_connected
from otel_mapper.mapping.members import CAUSED_BY as _CAUSED_BY
from otel_mapper.model import Declaration, Edge
from semconv.trajectory import DeclarationCategory, DeclarationEffect, EdgeType

__all__ = ["EdgeSet"]

# Weakest evidence is removed first when a cycle must be broken.
_CYCLE_REMOVAL_ORDER = (
    EdgeType.LINKED,
    EdgeType.SEQUENCED_AFTER,
    EdgeType.DEPENDS_ON,
    EdgeType.HANDOFF_FROM,
    EdgeType.RETRIES,
    EdgeType.CAUSED_BY,
)


_SET_FROM, _SET_TYPE, _SET_TO, _SET_EVIDENCE = (
    Edge.__dict__[name].__set__ for name in ("from_node", "type", "to_node", "evidence")
)
if [f.name for f in dataclass_fields(Edge)] != ["from_node", "type", "to_node", "evidence"] or hasattr(Edge, "__post_init__"):
    raise TypeError("_new_edge sets Edge's four fields itself and skips Edge.__init__: keep it in step with Edge")


def _new_edge(from_node: str, edge_type: EdgeType, to_node: str, evidence: str) -> Edge:
    """``Edge(from_node=..., type=..., to_node=..., evidence=...)`` at less than half the cost (a trace has more
    edges than spans): the frozen ``__init__`` sets each field with ``object.__setattr__``, a generic attribute
    lookup; here each slot is set through its member descriptor, where that lookup ends."""
    edge = object.__new__(Edge)
    _SET_FROM(edge, from_node)
    _SET_TYPE(edge, edge_type)
    _SET_TO(edge, to_node)
    _SET_EVIDENCE(edge, evidence)
    return edge


class EdgeSet:
    """Edges keyed by (from, type, to): the first evidence found for a pair is kept."""

    def __init__(self) -> None:
        self._edges: dict[tuple[str, EdgeType, str], Edge] = {}
        self._parents: dict[str, str] = {}

    def add(self, from_node: str, edge_type: EdgeType, to_node: str, evidence: str) -> None:
        if from_node == to_node:
            return
        key = (from_node, edge_type, to_node)
        if key not in self._edges:
            self._edges[key] = _new_edge(from_node, edge_type, to_node, evidence)

    def add_parent(self, child: str, parent: str, evidence: str) -> None:
        if child == parent:
            return
        self.add(child, _CAUSED_BY, parent, evidence)
        self._parents.setdefault(child, parent)

    def pairs(self, edge_type: EdgeType) -> list[tuple[str, str]]:
        """(from, to) of every edge of ``edge_type``."""
        return [(from_node, to_node) for from_node, kind, to_node in self._edges if kind is edge_type]

    def containment_parents(self) -> dict[str, str]:
        return self._parents

    def sorted(self) -> tuple[Edge, ...]:
        # Keys are (from, type, to), unique per edge: sorting them gives the edges' own order without comparing
        # Edge objects field by field.
        return tuple(map(self._edges.__getitem__, sorted(self._edges)))

    def break_cycles(self, node_ids: Iterable[str], notes: list[Declaration]) -> None:
        """Remove the weakest edges inside each cycle until the graph is acyclic.

        Only edges whose two ends lie in the same strongly connected component are on a cycle; nodes merely
        downstream of a cycle keep their edges. Within a component every edge of its weakest present type is
        removed at once, so the result does not depend on which edge was found first.
        """
        ids = list(node_ids)
        removed = 0
        parent_cycle_nodes: set[str] = set()
        for _ in range(len(_CYCLE_REMOVAL_ORDER) + 1):
            component = strongly_connected(ids, self._edges.values())
            if component is None:
                break
            inside: dict[EdgeType, list[tuple[str, EdgeType, str]]] = defaultdict(list)
            for key, edge in self._edges.items():
                label = component.get(edge.from_node)
                if label is not None and label == component.get(edge.to_node):
                    inside[edge.type].append(key)
            # Per component, the weakest type present inside it.
            weakest: dict[int, EdgeType] = {}
            for edge_type in reversed(_CYCLE_REMOVAL_ORDER):
                for key in inside.get(edge_type, ()):
                    weakest[component[key[0]]] = edge_type
            for edge_type, keys in inside.items():
                for key in keys:
                    if weakest.get(component[key[0]]) is not edge_type:
                        continue
                    del self._edges[key]
                    removed += 1
                    if edge_type is _CAUSED_BY and self._parents.get(key[0]) == key[2]:
                        del self._parents[key[0]]
                        parent_cycle_nodes.add(key[0])
        if removed:
            notes.append(
                Declaration(
                    category=DeclarationCategory.PARENT_CYCLE,
                    effect=DeclarationEffect.DROPPED,
                    qualifier="cycle_broken",
                    reason="edges on a cycle were removed (weakest evidence first); the nodes are left unordered",
                    count=removed,
                    nodes=tuple(sorted(parent_cycle_nodes)[:32]),
                )
            )
