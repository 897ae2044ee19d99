"""``model_error``: a model call failed for a reason other than a rate limit or a timeout (HTTP 5xx, 4xx, ...)."""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.failures import FailureClass, failure_findings
from semconv.trajectory import FindingCategory, NodeKind


class ModelErrorDetector:
    name = "model_error"
    version = "1.3.0"
    checked_property = "every model call completed without error"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        return failure_findings(
            trajectory, context, (NodeKind.MODEL_CALL,), FailureClass.OTHER, FindingCategory.MODEL_ERROR, stand_ins=True
        )
