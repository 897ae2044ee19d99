"""``tool_error``: a tool execution failed. Marks whether a later, causally dependent call recovered."""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, NodeStatus, Severity


class ToolErrorDetector:
    name = "tool_error"
    version = "1.0.0"
    checked_property = "every tool execution completed without error"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        findings: list[Finding] = []
        for node in context.of_kind(NodeKind.TOOL_EXECUTION):
            if node.status is not NodeStatus.FAILED:
                continue
            recovered = self._recovered(node.id, context)
            what = node.error_type or "error status"
            evidence = f"tool {node.tool_name or node.name} failed: {what}"
            if node.error_message:
                evidence += f" ({node.error_message[:120]})"
            evidence += "; a later dependent call succeeded" if recovered else "; no dependent call succeeded"
            findings.append(
                Finding(
                    category=FindingCategory.TOOL_ERROR,
                    severity=Severity.MEDIUM if recovered else Severity.HIGH,
                    status=FindingStatus.FAIL,
                    node_id=node.id,
                    evidence=evidence,
                    recovered=recovered,
                )
            )
        return findings

    @staticmethod
    def _recovered(node_id: str, context: DetectorContext) -> bool:
        """Recovered when a model call or tool execution that causally follows the failure succeeded."""
        queue = [node_id]
        seen = {node_id}
        kinds = {NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION}
        statuses = {node.id: node for kind in kinds for node in context.of_kind(kind)}
        while queue and len(seen) < 100_000:
            current = queue.pop()
            for successor in context.index.later.get(current, ()):
                if successor in seen:
                    continue
                seen.add(successor)
                node = statuses.get(successor)
                if node is not None and node.status is NodeStatus.COMMITTED:
                    return True
                queue.append(successor)
        return False
