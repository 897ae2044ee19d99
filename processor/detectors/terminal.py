"""How the run ended (the Forensic Ledger's ``terminal_status``), from the outermost nodes and the findings.

The run's end is read from the outermost nodes (local roots, top agent invocations, and the outermost invocations
that name an agent, since frameworks such as the Agents SDK wrap the agent in an unnamed workflow span that stays
OK when the agent fails), never from the latest timestamp: a failure the run recovered from does not end it. A
failed agent invocation with a committed sibling invocation of the same agent was retried by its caller and does
not end the run either.
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.causal import carried_on
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, TerminalStatus

_MAX_TURNS_MARKERS = ("max turns", "max_turns", "maxturns", "recursion limit", "usagelimitexceeded")
_CANCEL_MARKERS = ("cancel", "aborterror", "aborted")

_BY_CATEGORY = {
    FindingCategory.INFRA_TIMEOUT: TerminalStatus.INFRA_TIMEOUT,
    FindingCategory.RATE_LIMITED: TerminalStatus.RATE_LIMITED,
    FindingCategory.POLICY_VIOLATION: TerminalStatus.POLICY_VIOLATION,
}


def _text(node: Node) -> str:
    return f"{node.error_type or ''} {node.error_message or ''}".lower()


def _outer(trajectory: Trajectory, context: DetectorContext) -> list[Node]:
    outer = {node.id: node for node in (trajectory.node(i) for i in trajectory.root_node_ids) if node is not None}
    invocations = context.of_kind(NodeKind.AGENT_INVOCATION)
    outer.update((node.id, node) for node in invocations if node.invocation is None)
    named = {node.id for node in invocations if node.agent_name}
    for node in invocations:
        context.check_budget()
        if node.agent_name and not _inside_named(node, trajectory, named):
            outer[node.id] = node
    return [outer[key] for key in sorted(outer)]


def _inside_named(node: Node, trajectory: Trajectory, named: set[str]) -> bool:
    """Whether an enclosing invocation names an agent (bounded walk up the invocation chain)."""
    current = node.invocation
    for _ in range(10_000):
        if current is None:
            return False
        if current in named:
            return True
        parent = trajectory.node(current)
        current = parent.invocation if parent is not None else None
    return False


def terminal_status(trajectory: Trajectory, findings: Sequence[Finding], context: DetectorContext) -> TerminalStatus:
    if not trajectory.nodes:
        return TerminalStatus.UNKNOWN
    outer = _outer(trajectory, context)
    if not outer:
        return TerminalStatus.UNKNOWN
    failed_outer = [
        node
        for node in outer
        if node.status is NodeStatus.FAILED
        and not (node.kind is NodeKind.AGENT_INVOCATION and node.agent_name and carried_on(node, trajectory, context))
    ]
    if failed_outer:
        for node in failed_outer:
            text = _text(node)
            if any(marker in text for marker in _MAX_TURNS_MARKERS):
                return TerminalStatus.MAX_TURNS
            if any(marker in text for marker in _CANCEL_MARKERS):
                return TerminalStatus.CANCELLED
        for finding in findings:  # ranked order: the primary cause names the end
            if finding.status is FindingStatus.FAIL and finding.recovered is not True:
                mapped = _BY_CATEGORY.get(finding.category)
                if mapped is not None:
                    return mapped
        return TerminalStatus.ERROR
    if any(node.status is NodeStatus.OUTCOME_UNKNOWN for node in outer):
        return TerminalStatus.UNKNOWN
    unrecovered = [f for f in findings if f.status is FindingStatus.FAIL and f.recovered is False]
    for finding in unrecovered:
        mapped = _BY_CATEGORY.get(finding.category)
        if mapped is not None:
            return mapped
    if any(f.category is FindingCategory.POLICY_VIOLATION and f.status is FindingStatus.FAIL for f in findings):
        return TerminalStatus.POLICY_VIOLATION
    return TerminalStatus.SUCCESS
