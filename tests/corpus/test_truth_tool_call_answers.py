"""`corpus/generate/corpusgen/truth.py`: a library that records nothing of an exchange whose answer calls tools
(`tool_call_answers_recorded: false`, OpenLIT's Groq instrumentation) has those proposals in no span, shows the
consumption only on a later request that answered with text, and records only those requests' usage."""

from __future__ import annotations

from types import ModuleType


def _call(n: int) -> dict[str, str]:
    return {"id": f"call_{n}", "name": "lookup_order", "arguments": '{"order_id": "A-1001"}'}


def _server_log(big: int) -> list[dict[str, object]]:
    """Two answers that call a tool (the second consuming the first's result), then a text answer consuming both."""
    return [
        {"seq": 1, "status": 200, "outcome": "ok", "span": "a" * 16, "proposed": [_call(1)], "usage": (big, 5)},
        {"seq": 2, "status": 200, "outcome": "ok", "span": "b" * 16, "proposed": [_call(2)], "usage": (big, 5),
         "tool_results_in_input": ["call_1"]},
        {"seq": 3, "status": 200, "outcome": "ok", "span": "c" * 16, "proposed": [], "usage": (10, 4),
         "tool_results_in_input": ["call_1", "call_2"]},
    ]


def _labels(truth_module: ModuleType, big: int = 10, **rules: object) -> dict:
    truth = truth_module.Truth()
    truth.trace_id = "e" * 32
    truth.agents.append({"name": "support_agent", "span_id": "f" * 16})
    truth.record_tool("call_1", "lookup_order", "ok", span_id="1" * 16)
    truth.record_tool("call_2", "lookup_order", "ok", span_id="2" * 16)
    meta = {"library": "lib", "convention": "otel-genai", "scenario": "s", "content_captured": True, **rules}
    return truth_module.build_labels(meta, _server_log(big), truth)


def test_calls_answers_unrecorded(truth_module: ModuleType) -> None:
    labels = _labels(truth_module, model_output_recorded=False, tool_call_answers_recorded=False)

    assert [(f["proposed_by_span"], f["consumed_by_span"]) for f in labels["tool_flows"]] == [
        (None, "c" * 16), (None, "c" * 16)]
    assert labels["nodes_by_kind"]["tool_proposal"] == 0
    assert labels["recorded_by_library"]["tool_call_answers"] is False


def test_budget_over_unrecorded_usage_is_out_of_trace(truth_module: ModuleType) -> None:
    labels = _labels(truth_module, big=150_000, model_output_recorded=False, tool_call_answers_recorded=False)

    (finding,) = [f for f in labels["findings"] if f["category"] == "budget_exceeded"]
    assert finding == {"category": "budget_exceeded", "status": "fail", "anchor_span": "f" * 16, "in_trace": False}


def test_default_reads_each_answer(truth_module: ModuleType) -> None:
    labels = _labels(truth_module, big=150_000, model_output_recorded=False)

    assert [(f["proposed_by_span"], f["consumed_by_span"]) for f in labels["tool_flows"]] == [
        ("a" * 16, "b" * 16), ("b" * 16, "c" * 16)]
    assert labels["nodes_by_kind"]["tool_proposal"] == 2
    assert "tool_call_answers" not in labels["recorded_by_library"]
    (finding,) = [f for f in labels["findings"] if f["category"] == "budget_exceeded"]
    assert "in_trace" not in finding
