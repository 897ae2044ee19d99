"""An agent invocation that stands for its own model calls (its run records its model's usage, no model-call node
belongs to it: the Claude Agent SDK's ``query()`` span, corpus/NOTES-frameworks-ay.md): its failure is classed as a
model call's, its usage counts toward the budget; a forbidden tool's failed span is a policy matter, not a tool error."""

from __future__ import annotations

from otel_mapper.model import TokenUsage
from processor.detectors.budget import BudgetDetector
from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import FindingCategory, NodeStatus

from .support import TrajectoryBuilder, config, run

FAILED = NodeStatus.FAILED
API_500 = "ResultError: Claude Code returned an error result: API Error: 500 Internal server error."
TIMED_OUT = "ResultError: Claude Code returned an error result: Request timed out."


def _failures(trajectory: object) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector(), ToolErrorDetector())
    return [(f.category, f.node_id) for d in detectors for f in run(d, trajectory)]


def test_a_failed_run_standing_for_its_model_calls_is_a_model_error_or_a_timeout() -> None:
    for message, category in ((API_500, FindingCategory.MODEL_ERROR), (TIMED_OUT, FindingCategory.INFRA_TIMEOUT)):
        b = TrajectoryBuilder()
        agent = b.agent(status=FAILED, error_message=message, usage=TokenUsage(input_tokens=500, output_tokens=1))
        b.tool("mcp__support__get_weather", parent=agent)
        assert _failures(b.build()) == [(category, agent)]


def test_a_failed_run_with_model_calls_of_its_own_or_no_usage_is_not_read_so() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(status=FAILED, error_message=API_500, usage=TokenUsage(input_tokens=500, output_tokens=1))
    b.model(parent=agent)
    assert _failures(b.build()) == []
    b = TrajectoryBuilder()
    b.agent(status=FAILED, error_message=API_500)
    assert _failures(b.build()) == []


def test_the_usage_of_a_run_standing_for_its_model_calls_counts_toward_the_budget() -> None:
    b = TrajectoryBuilder()
    agent = b.agent(usage=TokenUsage(input_tokens=295_700, output_tokens=6))
    (finding,) = run(BudgetDetector(), b.build(), config({"budget": {"max_total_tokens": 200_000}}))
    assert finding.node_id == agent and "295706 > max_total_tokens 200000" in finding.evidence


def test_a_forbidden_tools_refused_span_is_no_tool_error() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    denied = b.tool("mcp__support__delete_file", parent=agent, status=FAILED, tool_local_name="delete_file",
                    error_message="DENIED: the tool 'delete_file' is forbidden by policy; nothing was deleted.")
    crashed = b.tool("mcp__support__delete_file", parent=agent, status=FAILED, tool_local_name="delete_file",
                     error_type="ValueError", error_message="boom")
    trajectory = b.build()
    policy = config({"policy": {"forbidden_tools": ["delete_*"]}})
    assert [f.node_id for f in run(ToolErrorDetector(), trajectory, policy)] == [crashed]
    assert sorted(f.node_id for f in run(ToolErrorDetector(), trajectory)) == sorted([denied, crashed])
