"""An agent invocation that failed with a model client's error that no span of a model call records (OpenInference's
Anthropic instrumentation 0.1.20 never ends the span of a request that raised; CrewAI's agent span carries the error,
corpus/NOTES-frameworks-bp.md): the failure is read as its model call's, anchored on the agent invocation."""

from __future__ import annotations

from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import FindingCategory, NodeStatus

from .support import TrajectoryBuilder, run

FAILED = NodeStatus.FAILED
API_500 = "Error code: 500 - {'type': 'error', 'error': {'type': 'api_error', 'message': 'Internal server error'}}"
TIMED_OUT = "Request timed out or interrupted."


def _failures(trajectory: object) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector(), ToolErrorDetector())
    return [(f.category, f.node_id) for d in detectors for f in run(d, trajectory)]


def test_a_failed_agent_whose_model_client_error_no_call_records_stands_for_the_call() -> None:
    for error_type, message, category in (
        ("anthropic.InternalServerError", API_500, FindingCategory.MODEL_ERROR),
        ("anthropic.APITimeoutError", TIMED_OUT, FindingCategory.INFRA_TIMEOUT),
    ):
        b = TrajectoryBuilder()
        agent = b.agent(status=FAILED, error_type=error_type, error_message=message)
        model = b.model(parent=agent)  # the request that succeeded before the failed one
        b.tool("get_weather", parent=agent, after=[model])
        findings = run(ModelErrorDetector(), b.build()) + run(InfraTimeoutDetector(), b.build())
        assert [(f.category, f.node_id) for f in findings] == [(category, agent)]
        assert findings[0].recovered is False


def test_an_error_a_model_call_or_an_inner_agent_records_is_not_read_again() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(status=FAILED, error_type="anthropic.InternalServerError", error_message=API_500)
    # the call's span names the class alone (OpenLLMetry's error.type), the agent's with its module
    model = b.model(parent=agent, status=FAILED, error_type="InternalServerError", error_message=API_500)
    assert _failures(b.build()) == [(FindingCategory.MODEL_ERROR, model)]
    b = TrajectoryBuilder()
    outer = b.agent("triage_agent", status=FAILED, error_type="anthropic.APITimeoutError", error_message=TIMED_OUT)
    inner = b.agent("billing_agent", parent=outer, status=FAILED, error_type="anthropic.APITimeoutError",
                    error_message=TIMED_OUT)
    assert _failures(b.build()) == [(FindingCategory.INFRA_TIMEOUT, inner)]


def test_an_agent_failing_with_an_error_of_no_model_client_is_not_a_model_error() -> None:
    b = TrajectoryBuilder()
    b.agent(status=FAILED, error_type="ValueError", error_message="Invalid response from LLM call - None or empty.")
    b.agent(status=FAILED, error_type="openai_helpers.Timeout", error_message=TIMED_OUT)
    assert _failures(b.build()) == []
