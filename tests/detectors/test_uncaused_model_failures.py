"""A model call whose span records that it failed and nothing of why (a bare ERROR status: no error type, no message,
no HTTP status; OpenLLMetry's Writer instrumentation on a request that raised and that the app then retried,
corpus/NOTES-frameworks-dg.md): whether it was a rate limit, a timeout or another error is unknown, so each of the
three checks is undecided for it and none fails on it. A failure that says why is classified as before, and a tool run's
bare failure is still a tool error."""

from __future__ import annotations

from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import FindingCategory, FindingStatus, NodeStatus

from .support import TrajectoryBuilder, run

FAILED = NodeStatus.FAILED


def _failures(trajectory: object) -> list[tuple[FindingCategory, FindingStatus, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector(), ToolErrorDetector())
    return sorted((f.category, f.status, f.node_id) for d in detectors for f in run(d, trajectory))


def test_a_model_call_that_failed_without_a_recorded_cause_leaves_each_failure_check_undecided() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    failed = b.model(parent=agent, status=FAILED, tokens=None)
    b.model(parent=agent, after=[failed])  # the app's retry, which succeeded

    undecided = FindingStatus.INDETERMINATE
    assert _failures(b.build()) == sorted([(FindingCategory.MODEL_ERROR, undecided, failed),
                                           (FindingCategory.RATE_LIMITED, undecided, failed),
                                           (FindingCategory.INFRA_TIMEOUT, undecided, failed)])


def test_a_recorded_cause_is_classified_and_a_bare_tool_failure_is_still_a_tool_error() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    limited = b.model(parent=agent, status=FAILED, tokens=None, error_type="writerai.RateLimitError")
    served = b.model(parent=agent, status=FAILED, tokens=None, http_status=500)
    tool = b.tool("get_weather", parent=agent, status=FAILED)

    fail = FindingStatus.FAIL
    assert _failures(b.build()) == sorted([(FindingCategory.RATE_LIMITED, fail, limited),
                                           (FindingCategory.MODEL_ERROR, fail, served),
                                           (FindingCategory.TOOL_ERROR, fail, tool)])
