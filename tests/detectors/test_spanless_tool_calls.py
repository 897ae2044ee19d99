"""Tool calls no span executed, read from the result the next model call received (OpenLLMetry's CrewAI
instrumentation records no tool span): the proposal gets how its run went, stays a proposal, and the detectors of
tool runs (errors, loops, ordering) read it as a run. Nothing is inferred where a span could have run the call."""

from __future__ import annotations

import json

from otel_mapper.mapping.tool_failures import tool_failure
from otel_mapper.model import Trajectory
from processor.detectors.ordering import OrderingDetector
from processor.detectors.tool_error import ToolErrorDetector
from processor.detectors.tool_loop import ToolLoopDetector
from semconv.trajectory import FindingStatus, NodeStatus
from tests.support.spans import get_node, map_spans, node_id, span

from .support import config, report, run

RULES = {"ordering": {"rules": [{"name": "read-before-write", "before": ["get_*", "lookup_*"], "then": ["update_*"]}]},
         "loop": {"min_repeats": 3}}


def _call(call_id: str, tool: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"type": "tool_call", "id": call_id, "name": tool, "arguments": arguments}


def _chat(number: int, inputs: list[dict[str, object]], output: list[dict[str, object]]) -> object:
    return span(number, "chat m", parent=1, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
        "gen_ai.input.messages": json.dumps(inputs), "gen_ai.output.messages": json.dumps(output)})


def conversation(calls: list[tuple[str, dict[str, object], str]], *, tool_span: bool = False) -> Trajectory:
    """An agent whose model calls each propose one tool call, whose result the next model call receives; the tools
    run with no span of their own unless ``tool_span``."""
    spans = [span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"})]
    history: list[dict[str, object]] = [{"role": "user", "parts": [{"type": "text", "content": "help"}]}]
    for number, (tool, arguments, result) in enumerate(calls, start=2):
        call_id = f"call_{number}"
        output = [{"role": "assistant", "parts": [_call(call_id, tool, arguments)]}]
        spans.append(_chat(number, list(history), output))
        history += output + [{"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": result}]}]
    spans.append(_chat(len(calls) + 2, history, [{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]))
    if tool_span:
        spans.append(span(50, f"execute_tool {calls[0][0]}", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": calls[0][0]}))
    return map_spans(spans)


def test_a_runtime_failure_report_is_told_from_a_result() -> None:
    assert tool_failure("Error executing tool: order 'A-10O1' not found") == "Error executing tool: order 'A-10O1' not found"
    assert tool_failure("  An error occurred while running the tool. Please try again. Error: boom")
    assert tool_failure("Failed to invoke Tool `lookup_order` with parameters {}")
    assert tool_failure("Error: ValueError('no')\n Please fix your mistakes.")
    assert tool_failure('{"status": "shipped", "error": null}') is None
    assert tool_failure("The order has no errors.") is None


def test_a_failed_result_marks_the_proposal_failed_and_tool_error_fires_on_it() -> None:
    trajectory = conversation([("lookup_order", {"order_id": "A-10O1"}, "Error executing tool: order 'A-10O1' not found"),
                               ("lookup_order", {"order_id": "A-1001"}, '{"status": "shipped"}')])
    failed, succeeded = get_node(trajectory, f"{node_id(2)}#call:call_2"), get_node(trajectory, f"{node_id(3)}#call:call_3")
    assert failed.status is NodeStatus.PROPOSED and failed.result_status is NodeStatus.FAILED  # still a proposal
    assert failed.result_error == "Error executing tool: order 'A-10O1' not found"
    assert succeeded.result_status is NodeStatus.COMMITTED and succeeded.result_error is None

    (finding,) = run(ToolErrorDetector(), trajectory)
    assert finding.node_id == failed.id and finding.status is FindingStatus.FAIL and finding.recovered is True
    assert "no span recorded the run" in finding.evidence and "A-10O1" in finding.evidence


def test_repeated_spanless_calls_are_a_loop_and_a_spanless_write_needs_its_read() -> None:
    loop = conversation([("get_weather", {"city": "Oslo"}, "rain")] * 3)
    (finding,) = run(ToolLoopDetector(), loop, config(RULES))
    assert finding.status is FindingStatus.FAIL and finding.node_id == f"{node_id(2)}#call:call_2"

    write_first = conversation([("update_record", {"id": 1}, "ok"), ("lookup_order", {"order_id": "A"}, "{}")])
    (violation,) = run(OrderingDetector(), write_first, config(RULES))
    assert violation.node_id == f"{node_id(2)}#call:call_2" and violation.status is FindingStatus.FAIL

    read_first = conversation([("lookup_order", {"order_id": "A"}, "{}"), ("update_record", {"id": 1}, "ok")])
    assert run(OrderingDetector(), read_first, config(RULES)) == []


def test_nothing_is_inferred_where_a_span_runs_that_tool_or_the_runtime_rejected_the_call() -> None:
    with_span = conversation([("lookup_order", {"order_id": "A"}, "Error executing tool: down")], tool_span=True)
    assert get_node(with_span, f"{node_id(2)}#call:call_2").result_status is None
    assert run(ToolErrorDetector(), with_span) == []

    rejected = conversation([("fetch_invoice", {}, 'Error: Requested function "fetch_invoice" not found.')])
    assert get_node(rejected, f"{node_id(2)}#call:call_2").result_status is None
    assert run(ToolErrorDetector(), rejected) == []


def test_calls_that_show_neither_a_run_nor_a_result_leave_tool_error_undecided() -> None:
    """Haystack under OpenInference: the model's calls are recorded, the tools run with no span and the results
    reach the next model call with no content recorded. Nothing says whether they failed: not a pass."""
    spans = [
        span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}),
        _chat(2, [{"role": "user", "parts": [{"type": "text", "content": "order?"}]}],
              [{"role": "assistant", "parts": [_call("call_2", "lookup_order", {"order_id": "A"})]}]),
        _chat(3, [{"role": "user", "parts": [{"type": "text", "content": "order?"}]}],
              [{"role": "assistant", "parts": [{"type": "text", "content": "shipped"}]}]),
    ]
    result = report(ToolErrorDetector(), map_spans(spans))
    assert result.findings == () and result.undecided == 1
    assert "lookup_order" in result.note and "whether they failed is unknown" in result.note

    # With the result in the next model call's input the call is seen to have run, and it passed.
    seen = conversation([("lookup_order", {"order_id": "A"}, '{"status": "shipped"}')])
    assert run(ToolErrorDetector(), seen) == []
    assert getattr(report(ToolErrorDetector(), seen), "undecided", 0) == 0


def unseen(calls: list[tuple[str, dict[str, object]]]) -> Trajectory:
    """Model calls that each propose one tool call whose run and result the trace does not show."""
    spans = [span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"})]
    prompt = [{"role": "user", "parts": [{"type": "text", "content": "help"}]}]
    for number, (tool, arguments) in enumerate(calls, start=2):
        spans.append(_chat(number, prompt, [{"role": "assistant", "parts": [_call(f"call_{number}", tool, arguments)]}]))
    return map_spans(spans)


def test_unseen_calls_leave_ordering_undecided_and_a_repeated_one_an_indeterminate_loop() -> None:
    outcome = report(OrderingDetector(), unseen([("update_record", {"id": 1})]), config(RULES))
    assert outcome.findings == () and outcome.undecided == 1 and "update_record proposed with no run" in outcome.note

    # A write that ran, and a read that was only proposed: the missing read is not a fail.
    spans = conversation([("update_record", {"id": 1}, "ok")])
    assert [f.status for f in run(OrderingDetector(), spans, config(RULES))] == [FindingStatus.FAIL]
    mixed = map_spans([
        *_spans_of(("update_record", {"id": 1}, "ok")),
        _chat(9, [{"role": "user", "parts": [{"type": "text", "content": "x"}]}],
              [{"role": "assistant", "parts": [_call("call_9", "lookup_order", {"order_id": "A"})]}]),
    ])
    (finding,) = run(OrderingDetector(), mixed, config(RULES))
    assert finding.status is FindingStatus.INDETERMINATE and "lookup_order was proposed with no run" in finding.evidence

    (loop,) = run(ToolLoopDetector(), unseen([("get_weather", {"city": "Oslo"})] * 3), config(RULES))
    assert loop.status is FindingStatus.INDETERMINATE and "no run or result" in loop.evidence
    assert run(ToolLoopDetector(), unseen([("get_weather", {"city": "Oslo"})] * 2), config(RULES)) == []


def _spans_of(call: tuple[str, dict[str, object], str]) -> list[object]:
    """The spans of :func:`conversation` with one call whose result comes back (the agent span included)."""
    tool, arguments, result = call
    output = [{"role": "assistant", "parts": [_call("call_2", tool, arguments)]}]
    history: list[dict[str, object]] = [{"role": "user", "parts": [{"type": "text", "content": "help"}]}]
    returned = history + output + [{"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_2", "response": result}]}]
    return [
        span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}),
        _chat(2, history, output),
        _chat(3, returned, [{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]),
    ]
