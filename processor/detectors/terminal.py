"""How the run ended (the Forensic Ledger's ``terminal_status``), from the root nodes and the findings.

The run's end is read from the outermost nodes (local roots and top agent invocations), not from the latest
timestamp: a failure that the run recovered from does not end it.
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext
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


def terminal_status(trajectory: Trajectory, findings: Sequence[Finding], context: DetectorContext) -> TerminalStatus:
    if not trajectory.nodes:
        return TerminalStatus.UNKNOWN
    outer = [node for node in (trajectory.node(node_id) for node_id in trajectory.root_node_ids) if node is not None]
    outer += [node for node in context.of_kind(NodeKind.AGENT_INVOCATION) if node.invocation is None]
    if not outer:
        return TerminalStatus.UNKNOWN
    failed_outer = [node for node in outer if node.status is NodeStatus.FAILED]
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
