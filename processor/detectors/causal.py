"""Graph helpers shared by detectors: multi-source reachability, "required before" checks and recovery.

All walks are iterative, linear in nodes + edges, bounded by ``MAX_WALK`` and call ``context.check_budget()``.
Nothing here reads a timestamp: "before" means a path of ordering edges (DESIGN invariant 1). When no path decides,
the answer is ``INDETERMINATE``, never a guess.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from otel_mapper.mapping.edges import CONTAINMENT_CHILDREN, containment_children
from otel_mapper.mapping.graph import MAX_WALK
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext
from semconv.trajectory import NodeKind, NodeStatus

__all__ = [
    "Precedence",
    "PrecedenceAnswer",
    "carried_on",
    "forward_closure",
    "outermost_anchor",
    "recovered",
    "required_before",
    "retried_agents",
]

MAX_DESCENDANT_CHECKS = 1_000
"""Targets whose "is every qualifier after me?" question needs a forward walk; the rest are answered undecided."""


class Precedence(StrEnum):
    SATISFIED = "satisfied"
    """A qualifier causally precedes the target."""
    VIOLATED = "violated"
    """No qualifier precedes the target, and none is unordered with it (none exists, or all come after)."""
    UNDECIDED = "undecided"
    """No qualifier precedes the target, but one exists that no causal path orders against it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PrecedenceAnswer:
    outcome: Precedence
    detail: str
    witness: str | None = None
    """A qualifier node that decided or left the question open."""


def forward_closure(context: DetectorContext, sources: Iterable[str], limit: int = MAX_WALK) -> set[str]:
    """Every node reachable from ``sources`` along later-pointing ordering edges (sources excluded unless reached)."""
    seen: set[str] = set()
    queue = deque(sources)
    later = context.index.later
    while queue and len(seen) < limit:
        context.check_budget()
        current = queue.popleft()
        for successor in later.get(current, ()):
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return seen


def _after_target(context: DetectorContext, target: str, wanted: set[str]) -> int:
    """How many of ``wanted`` are reachable forward from ``target`` (bounded walk)."""
    found = 0
    seen = {target}
    queue = deque([target])
    later = context.index.later
    while queue and len(seen) < MAX_WALK:
        context.check_budget()
        for successor in later.get(queue.popleft(), ()):
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
                if successor in wanted:
                    found += 1
    return found


def required_before(
    context: DetectorContext, targets: Sequence[Node], qualifiers: Sequence[Node]
) -> dict[str, PrecedenceAnswer]:
    """For each target: does some qualifier causally precede it? Linear for the common case.

    One multi-source walk marks everything after any qualifier. A target not marked is ``VIOLATED`` when no
    qualifier exists or every qualifier is after it, else ``UNDECIDED`` (a qualifier exists that no path orders
    against the target). Depth prunes the second question: a qualifier at depth <= the target's can't be after it.
    """
    if not targets:
        return {}
    qualifier_ids = {node.id for node in qualifiers}
    after_qualifier = forward_closure(context, sorted(qualifier_ids))
    depth = context.index.depth
    by_depth = heapq.nsmallest(2, ((depth.get(q, 0), q) for q in qualifier_ids))
    answers: dict[str, PrecedenceAnswer] = {}
    walks = 0
    for target in targets:
        context.check_budget()
        if target.id in after_qualifier:
            answers[target.id] = PrecedenceAnswer(outcome=Precedence.SATISFIED, detail="a qualifying node precedes it")
            continue
        others = len(qualifier_ids) - (1 if target.id in qualifier_ids else 0)
        if not others:
            answers[target.id] = PrecedenceAnswer(outcome=Precedence.VIOLATED, detail="no qualifying node exists in the trajectory")
            continue
        min_depth, shallowest = next(item for item in by_depth if item[1] != target.id)
        if min_depth <= depth.get(target.id, 0) or walks >= MAX_DESCENDANT_CHECKS:
            answers[target.id] = PrecedenceAnswer(
                outcome=Precedence.UNDECIDED,
                detail="a qualifying node exists but no causal path orders it before or after this one",
                witness=shallowest,
            )
            continue
        walks += 1
        if _after_target(context, target.id, qualifier_ids) >= others:
            answers[target.id] = PrecedenceAnswer(
                outcome=Precedence.VIOLATED,
                detail=f"every qualifying node ({others}) comes causally after it",
                witness=shallowest,
            )
        else:
            answers[target.id] = PrecedenceAnswer(
                outcome=Precedence.UNDECIDED,
                detail="a qualifying node exists but no causal path orders it before or after this one",
                witness=shallowest,
            )
    return answers


def retried_agents(trajectory: Trajectory, context: DetectorContext) -> set[tuple[str | None, str]]:
    """(enclosing invocation, agent name) pairs with at least one committed agent invocation.

    A failed invocation with a committed sibling invocation of the same agent was retried by the caller (e.g. an
    app-level retry after HTTP 429); without an ordering edge we can't say which came last, only that the run
    carried on."""
    cached = context.memo.get("retried_agents")
    if isinstance(cached, set):
        return cached
    found = {
        (node.invocation, node.agent_name)
        for node in context.of_kind(NodeKind.AGENT_INVOCATION)
        if node.agent_name and node.status is NodeStatus.COMMITTED
    }
    context.memo["retried_agents"] = found
    return found


def carried_on(invocation: Node | None, trajectory: Trajectory, context: DetectorContext) -> bool:
    """The enclosing invocation committed, or a sibling invocation of the same agent did."""
    if invocation is None:
        return False
    if invocation.status is NodeStatus.COMMITTED:
        return True
    return bool(invocation.agent_name) and (invocation.invocation, invocation.agent_name) in retried_agents(trajectory, context)


def recovered(node: Node, trajectory: Trajectory, context: DetectorContext, limit: int = 100_000) -> bool | None:
    """Whether the run recovered from a failed node.

    ``True``: a model call or tool execution that causally follows the failure committed. ``False``: none did and
    the enclosing agent invocation did not carry on. ``None``: no causal evidence either way, but the enclosing
    invocation committed or was retried successfully (e.g. a retry that is a concurrent sibling of the failure).
    A failure inside no agent invocation is enclosed by the outermost node whose span contains it (a pipeline or
    workflow run with no agent span inside, as OpenLLMetry records a Haystack pipeline): that node committing is the
    run carrying on.
    """
    queue = [node.id]
    seen = {node.id}
    kinds = {NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION}
    while queue and len(seen) < limit:
        context.check_budget()
        current = queue.pop()
        for successor in context.index.later.get(current, ()):
            if successor in seen:
                continue
            seen.add(successor)
            later = trajectory.node(successor)
            if later is not None and later.kind in kinds and later.status is NodeStatus.COMMITTED:
                return True
            queue.append(successor)
    if node.invocation:
        enclosing = trajectory.node(node.invocation)
    else:
        enclosing = _outermost_container(node, trajectory, context)
    return None if carried_on(enclosing, trajectory, context) else False


MAX_CONTAINER_DEPTH = 10_000
"""Span parent links followed up from a failure to the outermost node containing it."""


def _outermost_container(node: Node, trajectory: Trajectory, context: DetectorContext) -> Node | None:
    """The outermost node whose span contains ``node``'s (span parent links only); ``None`` for a root."""
    parents = context.memo.get("containment_parents")
    if not isinstance(parents, dict):
        children = trajectory.derived(CONTAINMENT_CHILDREN, containment_children)
        parents = {child: parent for parent, below in sorted(children.items()) for child in below}
        context.memo["containment_parents"] = parents
    current, outermost = node.id, None
    for _ in range(MAX_CONTAINER_DEPTH):
        parent = parents.get(current)
        if parent is None or parent == node.id:
            break
        current = outermost = parent
    return trajectory.node(outermost) if outermost is not None else None


def outermost_anchor(trajectory: Trajectory, context: DetectorContext) -> Node | None:
    """The outermost agent invocation (smallest depth, then id), else a root node, else the shallowest node."""
    depth = context.index.depth
    top = [node for node in context.of_kind(NodeKind.AGENT_INVOCATION) if node.invocation is None]
    if top:
        return min(top, key=lambda node: (depth.get(node.id, 0), node.id))
    roots = [node for node in (trajectory.node(i) for i in trajectory.root_node_ids) if node is not None]
    if roots:
        return min(roots, key=lambda node: node.id)
    if trajectory.nodes:
        return min(trajectory.nodes, key=lambda node: (depth.get(node.id, 0), node.id))
    return None
