"""``infra_timeout``: a model call or tool execution timed out (APITimeoutError, ReadTimeout, TimeoutError,
DEADLINE_EXCEEDED, HTTP 408/504)."""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.failures import FailureClass, failure_findings
from semconv.trajectory import FindingCategory, NodeKind


class InfraTimeoutDetector:
    name = "infra_timeout"
    version = "1.3.0"
    checked_property = "no model call or tool execution timed out"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        return failure_findings(
            trajectory,
            context,
            (NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION),
            FailureClass.TIMEOUT,
            FindingCategory.INFRA_TIMEOUT,
            stand_ins=True,
        )
