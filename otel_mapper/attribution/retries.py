"""Retries and cancellations, each attributed to the step that caused it.

- A ``retries`` edge (``B retries A``): one retry, attributed to ``A``, the attempt that had to be repeated.
- Re-executions of one tool call (several executions joined to one proposal, or sharing one tool-call id):
  executions beyond the first are retries, attributed to the proposal (the model's call), else to the span that
  ran them all. Which execution came first is not asked: the count does not need an order.
- A cancelled node: attributed to its span parent, the step that owned it and stopped it, else to itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from otel_mapper.model import Trajectory
from semconv.trajectory import EdgeType, NodeKind, NodeStatus

__all__ = ["Attributed", "RetryReport", "retries_and_cancellations"]

_EXECUTIONS = frozenset({NodeKind.TOOL_EXECUTION, NodeKind.HANDOFF})


@dataclass(frozen=True, slots=True, kw_only=True)
class Attributed:
    node_id: str
    """The retry or the cancelled node."""
    attributed_to: str
    """The step that caused it."""
    basis: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryReport:
    retries: tuple[Attributed, ...]
    cancellations: tuple[Attributed, ...]

    def count_by_step(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.retries:
            counts[item.attributed_to] = counts.get(item.attributed_to, 0) + 1
        return counts


def retries_and_cancellations(trajectory: Trajectory, parent_of: dict[str, str]) -> RetryReport:
    """``parent_of``: span child -> span parent (containment)."""
    retries: list[Attributed] = []
    retrying: set[str] = set()
    for edge in trajectory.edges:
        if edge.type is EdgeType.RETRIES and edge.from_node not in retrying:
            retrying.add(edge.from_node)
            retries.append(Attributed(node_id=edge.from_node, attributed_to=edge.to_node, basis="retries edge"))

    proposal_of: dict[str, str] = {}
    for edge in trajectory.edges:
        if edge.type is EdgeType.CAUSED_BY:
            target = trajectory.node(edge.to_node)
            if target is not None and target.kind is NodeKind.TOOL_PROPOSAL:
                proposal_of.setdefault(edge.from_node, edge.to_node)
    groups: dict[tuple[str, str], list[str]] = {}
    for node in trajectory.nodes:
        if node.kind not in _EXECUTIONS:
            continue
        proposal = proposal_of.get(node.id)
        if proposal is not None:
            groups.setdefault(("proposal", proposal), []).append(node.id)
        elif node.tool_call_id:
            groups.setdefault(("call", f"{parent_of.get(node.id, '')}|{node.tool_call_id}"), []).append(node.id)
    for (how, key), members in sorted(groups.items()):
        if len(members) < 2:
            continue
        members.sort()
        if how == "proposal":
            cause, basis = key, "re-execution of one proposed tool call"
        else:
            cause = parent_of.get(members[0]) or members[0]
            basis = "re-execution of one tool call id"
        extra = len(members) - 1 - sum(1 for member in members if member in retrying)
        for member in [member for member in members[1:] if member not in retrying][: max(extra, 0)]:
            retries.append(Attributed(node_id=member, attributed_to=cause, basis=basis))

    cancellations = tuple(
        Attributed(
            node_id=node.id,
            attributed_to=parent_of.get(node.id, node.id),
            basis="span parent of the cancelled step" if node.id in parent_of else "the cancelled step itself",
        )
        for node in trajectory.nodes
        if node.status is NodeStatus.CANCELLED
    )
    retries.sort(key=lambda item: item.node_id)
    return RetryReport(retries=tuple(retries), cancellations=cancellations)
