from __future__ import annotations

from otel_mapper.model import TokenUsage
from processor.detectors.base import DetectorReport
from processor.detectors.budget import BudgetDetector
from semconv.trajectory import FindingStatus, NodeKind

from .support import TrajectoryBuilder, config, report, run


def _run_with(tokens: list[tuple[int, int] | None], tools: int = 0) -> tuple[object, str]:
    b = TrajectoryBuilder()
    root = b.node(NodeKind.WORKFLOW_STEP, "workflow", start_unix_nano=1_000_000_000, end_unix_nano=31_000_000_000)
    # Agent spans may carry aggregated usage: it must not be counted twice.
    agent = b.agent(parent=root, usage=TokenUsage(input_tokens=10**9, output_tokens=0))
    for pair in tokens:
        b.model(parent=agent, tokens=pair)
    for _ in range(tools):
        b.tool("t", parent=agent)
    return b.build(), agent


def test_tokens_over_budget_anchor_on_the_outermost_agent() -> None:
    trajectory, agent = _run_with([(90_000, 5_000), (110_000, 1_000)])
    (finding,) = run(BudgetDetector(), trajectory, config({"budget": {"max_total_tokens": 200_000}}))
    assert finding.node_id == agent and finding.status is FindingStatus.FAIL
    assert "206000 > max_total_tokens 200000" in finding.evidence


def test_every_exceeded_dimension_in_one_finding() -> None:
    trajectory, _ = _run_with([(10, 10)] * 3, tools=3)
    cfg = config({"budget": {"max_model_calls": 2, "max_tool_calls": 2, "max_duration_s": 10}})
    (finding,) = run(BudgetDetector(), trajectory, cfg)
    assert "model calls 3 > max_model_calls 2" in finding.evidence
    assert "tool calls 3 > max_tool_calls 2" in finding.evidence
    assert "duration 30.0s > max_duration_s 10" in finding.evidence


def test_cost_from_price_table() -> None:
    trajectory, _ = _run_with([(1_000_000, 1_000_000)])
    prices = {"gpt-4o-mini*": {"input_per_million": 0.15, "output_per_million": 0.6}}
    (finding,) = run(BudgetDetector(), trajectory, config({"budget": {"max_cost": 0.5, "prices": prices}}))
    assert "cost 0.7500 > max_cost 0.5" in finding.evidence
    assert run(BudgetDetector(), trajectory, config({"budget": {"max_cost": 1.0, "prices": prices}})) == []


def test_missing_usage_is_one_undecided_check_not_a_finding() -> None:
    trajectory, _ = _run_with([None, None, (10, 10)])
    result = report(BudgetDetector(), trajectory, config({"budget": {"max_total_tokens": 1000}}))
    assert isinstance(result, DetectorReport)
    assert result.findings == () and result.undecided == 1
    assert "token usage not recorded on 2 of 3 model calls" in result.note


def test_missing_usage_still_fails_when_what_was_recorded_is_over() -> None:
    trajectory, _ = _run_with([None, (900, 200)])
    (finding,) = run(BudgetDetector(), trajectory, config({"budget": {"max_total_tokens": 1000}}))
    assert finding.status is FindingStatus.FAIL and "lower bound: 1 model calls without usage" in finding.evidence


def test_within_budget_or_unconfigured_passes() -> None:
    trajectory, _ = _run_with([(10, 10)])
    assert run(BudgetDetector(), trajectory, config({"budget": {"max_total_tokens": 1000}})) == []
    assert run(BudgetDetector(), trajectory, config()) == []
