"""model_error, rate_limited, infra_timeout and tool_error: classification, anchor and recovery."""

from __future__ import annotations

import pytest

from processor.detectors.chain import DetectorChain
from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from processor.detectors.registry import load_detectors
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import FindingCategory, NodeKind, NodeStatus, TerminalStatus

from .support import TrajectoryBuilder, config, run

FAILED = NodeStatus.FAILED


@pytest.mark.parametrize(
    ("fields", "category"),
    [
        ({"http_status": 429, "error_type": "openai.RateLimitError"}, FindingCategory.RATE_LIMITED),
        ({"error_type": "grpc.StatusCode.RESOURCE_EXHAUSTED"}, FindingCategory.RATE_LIMITED),
        ({"error_type": "cohere.errors.too_many_requests_error.TooManyRequestsError",
          "error_message": "TooManyRequestsError: headers: {'content-type': 'application/json'}"},
         FindingCategory.RATE_LIMITED),
        ({"error_type": "TooManyRequestsError"}, FindingCategory.RATE_LIMITED),
        ({"error_type": "<class 'openai.APITimeoutError'>", "error_message": "Request timed out."}, FindingCategory.INFRA_TIMEOUT),
        ({"error_type": "httpx.ReadTimeout"}, FindingCategory.INFRA_TIMEOUT),
        ({"error_type": "DEADLINE_EXCEEDED"}, FindingCategory.INFRA_TIMEOUT),
        ({"http_status": 504}, FindingCategory.INFRA_TIMEOUT),
        ({"http_status": 500, "error_type": "openai.InternalServerError"}, FindingCategory.MODEL_ERROR),
        ({"http_status": 400}, FindingCategory.MODEL_ERROR),
    ],
)
def test_model_call_failures_get_exactly_one_category(fields: dict, category: FindingCategory) -> None:
    b = TrajectoryBuilder()
    agent = b.agent(status=FAILED)
    bad = b.model(parent=agent, status=FAILED, tokens=None, **fields)
    trajectory = b.build()

    found = [f for d in (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector(), ToolErrorDetector())
             for f in run(d, trajectory)]

    assert [(f.category, f.node_id) for f in found] == [(category, bad)]
    assert found[0].recovered is False


def test_tool_timeout_is_infra_timeout_not_tool_error() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    slow = b.tool("lookup_order", parent=agent, status=FAILED, error_type="requests.exceptions.ReadTimeout")
    plain = b.tool("lookup_order", parent=agent, status=FAILED, error_type="ValueError")
    trajectory = b.build()

    assert [f.node_id for f in run(InfraTimeoutDetector(), trajectory)] == [slow]
    assert [f.node_id for f in run(ToolErrorDetector(), trajectory)] == [plain]


def test_a_failed_run_of_a_tool_never_declared_is_left_to_hallucinated_tool() -> None:
    # Content not captured: no proposal and no result text say the runtime rejected the tool, but the model calls of
    # its invocation declared their tools and this one is not among them. One failure, one finding.
    from processor.detectors.hallucinated_tool import HallucinatedToolDetector

    b = TrajectoryBuilder()
    agent = b.agent()
    b.model(parent=agent, tools=("lookup_order",))
    unknown = b.tool("fetch_invoice", parent=agent, status=FAILED, error_type="ValueError")
    broken = b.tool("lookup_order", parent=agent, status=FAILED, error_type="ValueError")
    trajectory = b.build()

    assert [f.node_id for f in run(ToolErrorDetector(), trajectory)] == [broken]
    assert [f.node_id for f in run(HallucinatedToolDetector(), trajectory)] == [unknown]
    # With hallucinated_tool not run, the failure is still reported, as a tool error.
    alone = config({"enabled": ["tool_error"]})
    assert sorted(f.node_id for f in run(ToolErrorDetector(), trajectory, alone)) == sorted([unknown, broken])


def test_a_forbidden_tool_refused_by_a_permission_check_is_left_to_policy_violation() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    refused = b.tool("delete_file", parent=agent, status=FAILED, error_type="PermissionError",
                     error_message="Tool use denied by policy")
    trajectory = b.build()
    policy = {"policy": {"forbidden_tools": ["delete_*"]}}

    assert run(ToolErrorDetector(), trajectory, config(policy)) == []
    without_policy = config({**policy, "enabled": ["tool_error", "hallucinated_tool"]})
    assert [f.node_id for f in run(ToolErrorDetector(), trajectory, without_policy)] == [refused]


def test_a_dependent_success_marks_recovery() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    failed = b.tool("lookup_order", parent=agent, status=FAILED, error_type="KeyError")
    b.model(parent=agent, after=[failed])
    (finding,) = run(ToolErrorDetector(), b.build())
    assert finding.recovered is True and "succeeded" in finding.evidence


def test_a_retry_the_graph_cannot_order_is_not_claimed_as_recovery() -> None:
    # App-level retry: the 429'd invocation failed; a sibling invocation of the same agent committed. No edge
    # orders them, so recovery is "not assessed" and the run did not end rate limited.
    b = TrajectoryBuilder()
    root = b.agent("workflow")
    first = b.agent("support_agent", parent=root, status=FAILED, http_status=429)
    limited = b.model(parent=first, status=FAILED, http_status=429, tokens=None)
    retry = b.agent("support_agent", parent=root)
    b.model(parent=retry)
    trajectory = b.build()

    (finding,) = run(RateLimitedDetector(), trajectory)
    diagnosis = DetectorChain(load_detectors(config()), config()).run(trajectory)

    assert finding.node_id == limited and finding.recovered is None
    assert diagnosis.terminal_status is TerminalStatus.SUCCESS


def test_unretried_failure_inside_an_ok_workflow_ends_the_run_in_error() -> None:
    b = TrajectoryBuilder()
    root = b.agent(None)  # an unnamed SDK workflow span that stays OK
    agent = b.agent("support_agent", parent=root, status=FAILED, http_status=500)
    b.model(parent=agent, status=FAILED, http_status=500, tokens=None)
    diagnosis = DetectorChain(load_detectors(config()), config()).run(b.build())
    assert diagnosis.root_cause == "model_error"
    assert diagnosis.terminal_status is TerminalStatus.ERROR


def test_timeout_that_ends_the_run_is_the_terminal_status() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(status=FAILED, error_type="openai.APITimeoutError")
    b.model(parent=agent, status=FAILED, error_type="openai.APITimeoutError")
    diagnosis = DetectorChain(load_detectors(config()), config()).run(b.build())
    assert diagnosis.terminal_status is TerminalStatus.INFRA_TIMEOUT


def test_a_failed_run_whose_own_error_is_a_timeout_ended_in_a_timeout() -> None:
    # One model-call span records several requests (OpenInference's Google ADK spans): a tool the first answer asked
    # for hangs under the span that then timed out, so the graph reads the timeout as carried on. The agent run
    # failed with the timeout: that is how it ended.
    b = TrajectoryBuilder()
    agent = b.agent(status=FAILED, error_type="Timeout", error_message="litellm.Timeout: Request timed out.")
    call = b.model(parent=agent, status=FAILED, error_type="litellm.exceptions.Timeout")
    b.tool("get_weather", parent=call, after=[call])
    diagnosis = DetectorChain(load_detectors(config()), config()).run(b.build())
    (finding,) = [r.finding for r in diagnosis.chain if r.finding.category is FindingCategory.INFRA_TIMEOUT]
    assert finding.recovered is True
    assert diagnosis.terminal_status is TerminalStatus.INFRA_TIMEOUT


def test_a_failed_run_whose_own_error_names_no_class_ended_in_error() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(status=FAILED, error_type="ValueError", error_message="bad state")
    call = b.model(parent=agent, status=FAILED, error_type="litellm.exceptions.Timeout")
    b.tool("get_weather", parent=call, after=[call])
    assert DetectorChain(load_detectors(config()), config()).run(b.build()).terminal_status is TerminalStatus.ERROR


def test_a_failure_inside_no_agent_but_a_committed_pipeline_run_is_not_the_end() -> None:
    # A pipeline or workflow run with no agent span inside (OpenLLMetry's Haystack pipeline span around the model
    # calls): the app retried the 429'd call, and the enclosing run committed.
    b = TrajectoryBuilder()
    pipeline = b.node(NodeKind.WORKFLOW_STEP, "haystack_pipeline.workflow")
    limited = b.model(parent=pipeline, status=FAILED, http_status=429, tokens=None)
    b.model(parent=pipeline)
    trajectory = b.build()

    (finding,) = run(RateLimitedDetector(), trajectory)
    diagnosis = DetectorChain(load_detectors(config()), config()).run(trajectory)

    assert finding.node_id == limited and finding.recovered is None
    assert diagnosis.terminal_status is TerminalStatus.SUCCESS


def test_a_failure_inside_no_agent_and_a_failed_pipeline_run_ends_it() -> None:
    b = TrajectoryBuilder()
    pipeline = b.node(NodeKind.WORKFLOW_STEP, "haystack_pipeline.workflow", status=FAILED)
    limited = b.model(parent=pipeline, status=FAILED, http_status=429, tokens=None)
    trajectory = b.build()

    (finding,) = run(RateLimitedDetector(), trajectory)
    diagnosis = DetectorChain(load_detectors(config()), config()).run(trajectory)

    assert finding.node_id == limited and finding.recovered is False
    assert diagnosis.terminal_status is TerminalStatus.RATE_LIMITED
