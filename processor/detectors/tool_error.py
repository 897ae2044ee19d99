"""``tool_error``: a tool execution failed. Marks whether a later, causally dependent call recovered.

Rate limits and timeouts of tools are left to ``rate_limited`` and ``infra_timeout`` (one finding per failure,
under its most specific category).
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.failures import FailureClass, failure_findings
from semconv.trajectory import FindingCategory, NodeKind


class ToolErrorDetector:
    name = "tool_error"
    version = "1.1.0"
    checked_property = "every tool execution completed without error"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        return failure_findings(
            trajectory, context, (NodeKind.TOOL_EXECUTION,), FailureClass.OTHER, FindingCategory.TOOL_ERROR
        )
