"""``policy_violation``: forbidden tools, approvals, tripped guardrails.

- A tool matching ``policy.forbidden_tools`` executed (high) or only proposed (medium; a proposal whose execution
  is in the trajectory is reported once, on the execution).
- A tool matching ``policy.approval_required_tools`` executed without a causally preceding approval: a guardrail
  node that passed, a node named like ``policy.approval_nodes``, or an ``authorized`` proposal. ``fail`` when no
  approval exists or all come after; ``indeterminate`` when an approval exists that no causal path orders.
- A guardrail node tripped (failed, or reported a tripwire).

With a tool rule configured, tool calls the trace cannot show by name (:func:`~processor.detectors.tool_runs.hidden_calls`)
leave the check undecided, beside whatever it found.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from processor.detectors.causal import Precedence, required_before
from processor.detectors.tool_runs import hidden_calls
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, Severity

_TRIP_MARKERS: Final = ("tripwire", "guardrail", "blocked", "denied", "violation")


def tripped(node: Node) -> bool:
    """A guardrail that stopped something: failed, or its error names a trip."""
    if node.kind is not NodeKind.GUARDRAIL:
        return False
    if node.status in (NodeStatus.FAILED, NodeStatus.CANCELLED):
        return True
    text = f"{node.error_type or ''} {node.error_message or ''}".lower()
    return any(marker in text for marker in _TRIP_MARKERS)


def _executed_proposals(context: DetectorContext, executions: Sequence[Node]) -> set[str]:
    """Proposal nodes that an execution in the trajectory carried out (direct causal edge)."""
    proposals = {node.id for node in context.of_kind(NodeKind.TOOL_PROPOSAL)}
    done: set[str] = set()
    for execution in executions:
        context.check_budget()
        done.update(p for p in context.index.earlier.get(execution.id, ()) if p in proposals)
    return done


class PolicyDetector:
    name = "policy_violation"
    version = "1.2.0"
    checked_property = "no forbidden tool, no unapproved approval-required tool, no tripped guardrail"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding] | DetectorReport:
        policy = context.config.policy
        findings: list[Finding] = []
        executions = context.of_kind(NodeKind.TOOL_EXECUTION)
        if policy.forbidden_tools:
            executed = _executed_proposals(context, executions)
            for node in executions:
                context.check_budget()
                pattern = policy.forbidden_tools.match_tool(node)
                if pattern:
                    findings.append(self._finding(node, Severity.CRITICAL, f"forbidden tool {node.tool_name} executed (policy.forbidden_tools {pattern!r})"))
            for node in context.of_kind(NodeKind.TOOL_PROPOSAL):
                context.check_budget()
                pattern = policy.forbidden_tools.match_tool(node)
                if pattern and node.id not in executed:
                    findings.append(self._finding(node, Severity.MEDIUM, f"forbidden tool {node.tool_name} proposed, no execution seen (policy.forbidden_tools {pattern!r})"))
        if policy.approval_required_tools:
            findings.extend(self._approvals(trajectory, context, executions))
        for node in context.of_kind(NodeKind.GUARDRAIL):
            context.check_budget()
            if tripped(node):
                why = node.error_type or node.status.value
                findings.append(self._finding(node, Severity.HIGH, f"guardrail {node.name} tripped ({why[:120]})"))
        if policy.forbidden_tools or policy.approval_required_tools:
            hidden = hidden_calls(trajectory, context)
            if hidden:
                return DetectorReport(findings=tuple(findings), undecided=1, note=hidden.note())
        return findings

    def _approvals(self, trajectory: Trajectory, context: DetectorContext, executions: Sequence[Node]) -> list[Finding]:
        policy = context.config.policy
        targets = [node for node in executions if policy.approval_required_tools.match_tool(node)]
        if not targets:
            return []
        approvals = [
            node
            for node in trajectory.nodes
            if (node.kind is NodeKind.GUARDRAIL and not tripped(node) and node.status is NodeStatus.COMMITTED)
            or (node.kind is NodeKind.TOOL_PROPOSAL and node.status is NodeStatus.AUTHORIZED)
            or (node.kind is not NodeKind.TOOL_EXECUTION and policy.approval_nodes.match(node.name))
        ]
        findings: list[Finding] = []
        for target, answer in sorted(required_before(context, targets, approvals).items()):
            node = trajectory.node(target)
            if node is None or answer.outcome is Precedence.SATISFIED:
                continue
            pattern = policy.approval_required_tools.match_tool(node)
            violated = answer.outcome is Precedence.VIOLATED
            evidence = f"{node.tool_name} needs approval (policy.approval_required_tools {pattern!r}): {answer.detail}"
            if answer.witness and not violated:
                evidence += f" ({answer.witness})"
            findings.append(
                Finding(
                    category=FindingCategory.POLICY_VIOLATION,
                    severity=Severity.HIGH,
                    status=FindingStatus.FAIL if violated else FindingStatus.INDETERMINATE,
                    node_id=node.id,
                    evidence=evidence,
                    related_nodes=(answer.witness,) if answer.witness else (),
                )
            )
        return findings

    @staticmethod
    def _finding(node: Node, severity: Severity, evidence: str) -> Finding:
        return Finding(
            category=FindingCategory.POLICY_VIOLATION,
            severity=severity,
            status=FindingStatus.FAIL,
            node_id=node.id,
            evidence=evidence,
        )
