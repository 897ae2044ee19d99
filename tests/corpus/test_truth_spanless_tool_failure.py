"""`corpus/generate/corpusgen/truth.py`: the `tool_error` of a tool with no span whose failure the library records
nowhere (`spanless_tool_failure_recorded: false`) is kept, marked `in_trace: false`; nothing else changes."""

from __future__ import annotations

from types import ModuleType


def _server_log() -> list[dict[str, object]]:
    call = {"id": "call_1", "name": "lookup_order", "arguments": '{"order_id": "A-10O1"}'}
    return [
        {"seq": 1, "status": 200, "outcome": "ok", "span": "a" * 16, "proposed": [call], "usage": (10, 5)},
        {"seq": 2, "status": 200, "outcome": "ok", "span": "b" * 16, "proposed": [], "usage": (12, 4),
         "tool_results_in_input": ["call_1"]},
    ]


def _tool_error(truth_module: ModuleType, span_id: str | None, **rules: object) -> dict[str, object]:
    truth = truth_module.Truth()
    truth.trace_id = "c" * 32
    truth.record_tool("call_1", "lookup_order", "error", span_id=span_id)
    meta = {"library": "lib", "convention": "otel-genai", "scenario": "tool_error_recovery", "content_captured": True,
            **rules}
    labels = truth_module.build_labels(meta, _server_log(), truth)
    (finding,) = [f for f in labels["findings"] if f["category"] == "tool_error"]
    return finding


def test_spanless_failure_not_recorded_is_out_of_trace(truth_module: ModuleType) -> None:
    finding = _tool_error(truth_module, None, spanless_tool_failure_recorded=False)

    assert finding == {"category": "tool_error", "status": "fail", "anchor_span": "a" * 16, "in_trace": False}


def test_default_keeps_the_finding_in_trace(truth_module: ModuleType) -> None:
    finding = _tool_error(truth_module, None)

    assert finding == {"category": "tool_error", "status": "fail", "anchor_span": "a" * 16}


def test_a_tool_with_its_own_span_stays_in_trace(truth_module: ModuleType) -> None:
    finding = _tool_error(truth_module, "d" * 16, spanless_tool_failure_recorded=False)

    assert finding == {"category": "tool_error", "status": "fail", "anchor_span": "d" * 16}
