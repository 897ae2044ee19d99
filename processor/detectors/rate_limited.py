"""``rate_limited``: a model call or tool execution was refused for rate or quota (HTTP 429, RateLimitError,
RESOURCE_EXHAUSTED)."""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.failures import FailureClass, failure_findings
from semconv.trajectory import FindingCategory, NodeKind


class RateLimitedDetector:
    name = "rate_limited"
    version = "1.3.0"
    checked_property = "no model call or tool execution was rate limited"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        return failure_findings(
            trajectory,
            context,
            (NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION),
            FailureClass.RATE_LIMITED,
            FindingCategory.RATE_LIMITED,
            stand_ins=True,
        )
