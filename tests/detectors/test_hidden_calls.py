"""Tool calls a trace holds but cannot show by name leave the checks of tools undecided, never passed.

With content capture off, a library that records no tool span (OpenLIT's and OpenLLMetry's framework
instrumentations on CrewAI, AG2, Haystack...) shows a model call that finished to call tools and nothing of the
calls; one that names a tool only in content (a span named after the tool's class) shows runs without names.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from semconv.trajectory import FindingStatus, VerifierStatus
from tests.support.spans import map_spans, span

from .support import config

RULES = {
    "loop": {"min_repeats": 3},
    "policy": {"forbidden_tools": ["delete_*"]},
    "ordering": {"rules": [{"name": "read-before-write", "before": ["get_*"], "then": ["delete_*"]}]},
}
TOOL_CHECKS = ("policy_violation", "order_violation", "tool_error", "tool_loop")


def _agent() -> Span:
    return span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"})


def _chat(number: int, finish: str, **extra: Any) -> Span:
    """A model call whose messages were not captured (content capture off): usage and finish reason only."""
    return span(number, "chat gpt-4o-mini", parent=1, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5, "gen_ai.response.finish_reasons": [finish], **extra})


def _statuses(trajectory: Trajectory) -> dict[str, tuple[VerifierStatus, str]]:
    cfg = config(RULES)
    diagnosis = DetectorChain(load_detectors(cfg), cfg).run(trajectory)
    assert not [item for item in diagnosis.chain if item.finding.status is FindingStatus.FAIL]
    return {result.verifier: (result.status, result.output) for result in diagnosis.verifier_results}


def test_calls_no_span_shows_leave_the_tool_checks_undecided() -> None:
    spans = [_agent(), *(_chat(n, "tool_calls") for n in (2, 3, 4)), _chat(5, "stop")]
    results = _statuses(map_spans(spans))
    for check in TOOL_CHECKS:
        status, output = results[check]
        assert status is VerifierStatus.INDETERMINATE, check
        assert "finished to call tools the trace does not show" in output


def test_calls_that_ran_as_tool_spans_are_checked() -> None:
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_file_info"}
    spans = [_agent(), _chat(2, "tool_calls"), span(3, "execute_tool get_file_info", parent=1, attrs=tool),
             _chat(4, "stop")]
    results = _statuses(map_spans(spans))
    assert {check: results[check][0] for check in TOOL_CHECKS} == dict.fromkeys(TOOL_CHECKS, VerifierStatus.PASS)


def test_a_run_that_answered_without_tools_is_checked() -> None:
    results = _statuses(map_spans([_agent(), _chat(2, "stop"), _chat(3, "end_turn")]))
    assert {check: results[check][0] for check in TOOL_CHECKS} == dict.fromkeys(TOOL_CHECKS, VerifierStatus.PASS)


def test_tool_runs_without_names_leave_the_name_checks_undecided() -> None:
    # Tool spans that name the tool only in content (OpenLLMetry's LangGraph.js: the span is named after the tool's
    # class, the tool's own name is in the dropped input).
    tool = {"gen_ai.operation.name": "execute_tool"}
    spans = [_agent(), *(span(n, "execute_tool DynamicStructuredTool", parent=1, attrs=tool) for n in (2, 3, 4))]
    trajectory = map_spans(spans)
    assert [node.tool_name for node in trajectory.nodes if node.kind.value == "tool_execution"] == [None] * 3
    results = _statuses(trajectory)
    for check in ("policy_violation", "order_violation", "tool_loop"):
        status, output = results[check]
        assert status is VerifierStatus.INDETERMINATE and "3 tool run(s) not named" in output, check
    assert results["tool_error"][0] is VerifierStatus.PASS  # a run's failure needs no name: none failed


def _silent_chat(number: int, **extra: Any) -> Span:
    """A model call with neither content nor finish reason (Langtrace's LangChain spans with content off)."""
    return span(number, "chat gpt-4o-mini", parent=1, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5, **extra})


def test_a_run_that_went_on_with_no_finish_reason_leaves_the_tool_checks_undecided() -> None:
    # Four model calls in one run, nothing recorded of why it went on: three of them may have called tools.
    results = _statuses(map_spans([_agent(), *(_silent_chat(n) for n in (2, 3, 4, 5))]))
    for check in TOOL_CHECKS:
        status, output = results[check]
        assert status is VerifierStatus.INDETERMINATE, check
        assert "4 model call(s) in an agent run that called the model again" in output, check


def test_a_loop_needs_enough_calls_that_may_have_called_tools() -> None:
    # Three calls: at most two of them called tools (one ended the run), under the three repeats a loop needs.
    results = _statuses(map_spans([_agent(), *(_silent_chat(n) for n in (2, 3, 4))]))
    assert results["tool_loop"][0] is VerifierStatus.PASS
    assert results["tool_error"][0] is VerifierStatus.INDETERMINATE


def test_a_single_call_or_no_tools_offered_is_checked() -> None:
    single = _statuses(map_spans([_agent(), _silent_chat(2)]))
    assert {check: single[check][0] for check in TOOL_CHECKS} == dict.fromkeys(TOOL_CHECKS, VerifierStatus.PASS)
    no_tools = {"gen_ai.tool.definitions": "[]"}
    offered_none = _statuses(map_spans([_agent(), _silent_chat(2, **no_tools), _silent_chat(3, **no_tools)]))
    assert {check: offered_none[check][0] for check in TOOL_CHECKS} == dict.fromkeys(TOOL_CHECKS, VerifierStatus.PASS)
