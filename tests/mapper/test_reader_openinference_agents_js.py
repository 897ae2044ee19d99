"""OpenInference's JavaScript Agents SDK instrumentation (corpus/NOTES-frameworks-az.md): a handoff span ``handoff to
<agent>`` whose ``tool.name`` is the instrumentation's own label ``handoff_to_<agent>`` and whose ``input.value`` /
``output.value`` are the JSON objects ``{"from_agent": ...}`` / ``{"to_agent": ...}``."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
CALL = "call_h1"


def _handoff_spans(*, tool_name: str, from_value: str, to_value: str) -> list:
    generation = {KIND: "LLM", "llm.model_name": "gpt-4o-mini",
                  "llm.output_messages.0.message.role": "assistant",
                  "llm.output_messages.0.message.tool_calls.0.tool_call.id": CALL,
                  "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "transfer_to_billing_agent",
                  "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{}",
                  "llm.finish_reason": "tool_calls"}
    return [
        span(1, "Agent workflow", attrs={KIND: "AGENT"}),
        span(2, "triage_agent", parent=1, attrs={KIND: "AGENT", "graph.node.id": "triage_agent"}),
        span(3, "generation", parent=2, attrs=generation),
        span(4, "handoff to billing_agent", parent=2,
             attrs={KIND: "TOOL", "tool.name": tool_name, "input.value": from_value, "output.value": to_value}),
        span(5, "billing_agent", parent=1, attrs={KIND: "AGENT", "graph.node.id": "billing_agent",
                                                  "graph.node.parent_id": "triage_agent"}),
    ]


def _js_handoff() -> list:
    return _handoff_spans(tool_name="handoff_to_billing_agent", from_value=json.dumps({"from_agent": "triage_agent"}),
                          to_value=json.dumps({"to_agent": "billing_agent"}))


def test_js_handoff_label_is_not_the_called_tool() -> None:
    trajectory = map_spans(_js_handoff())
    handoff = get_node(trajectory, node_id(4))
    assert handoff.kind is NodeKind.HANDOFF
    # The model called the SDK's transfer_to_billing_agent; the span executes that call.
    assert handoff.tool_name == "transfer_to_billing_agent"
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, f"call:{CALL}"))


def test_js_handoff_agents_read_from_json_objects() -> None:
    trajectory = map_spans(_js_handoff())
    handoff = get_node(trajectory, node_id(4))
    assert (handoff.handoff_from, handoff.handoff_to) == ("triage_agent", "billing_agent")
    assert has_edge(trajectory, node_id(5), EdgeType.HANDOFF_FROM, node_id(4))


def test_python_handoff_shape_unchanged() -> None:
    trajectory = map_spans(_handoff_spans(tool_name="", from_value="triage_agent", to_value="billing_agent"))
    handoff = get_node(trajectory, node_id(4))
    assert (handoff.tool_name, handoff.handoff_from, handoff.handoff_to) == (
        "transfer_to_billing_agent", "triage_agent", "billing_agent")


def test_other_tool_name_on_a_handoff_span_is_kept() -> None:
    # A tool name that is not the instrumentation's label for this target (a renamed handoff tool) stays as written.
    spans = _handoff_spans(tool_name="escalate_to_billing", from_value="triage_agent", to_value="billing_agent")
    assert get_node(map_spans(spans), node_id(4)).tool_name == "escalate_to_billing"


def test_json_object_without_the_key_is_not_an_agent_name() -> None:
    spans = _handoff_spans(tool_name="handoff_to_billing_agent", from_value=json.dumps({"agent": "triage_agent"}),
                           to_value=json.dumps({"to_agent": "billing_agent"}))
    handoff = get_node(map_spans(spans), node_id(4))
    assert handoff.handoff_from is None
    assert handoff.handoff_to == "billing_agent"
