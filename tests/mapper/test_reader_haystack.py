"""Haystack agents under OpenInference: the agent run, call ids from the reply reprs, and the tool results (consumed,
failed, rejected) from the input reprs; tools run with no span, so the results show their runs."""

from __future__ import annotations

import json

from otel_mapper.mapping.readers.haystack import tool_results
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.detectors.support import run as run_detector
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

SCOPE = "openinference.instrumentation.haystack"
USER = "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text='order?')], _name=None, _meta={})"


def _call(call_id: str, order: str, tool: str = "lookup_order") -> str:
    return f"ToolCall(tool_name='{tool}', arguments={{'order_id': '{order}'}}, id='{call_id}', extra=None)"


def _assistant(call_id: str, order: str, tool: str = "lookup_order") -> str:
    return f"ChatMessage(_role=<ChatRole.ASSISTANT: 'assistant'>, _content=[{_call(call_id, order, tool)}], _name=None, _meta={{}})"


def _result(call_id: str, order: str, text: str, error: bool, tool: str = "lookup_order") -> str:
    return (f"ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result={text!r}, "
            f"origin={_call(call_id, order, tool)}, error={error})], _name=None, _meta={{}})")


def _llm(number: int, messages: list[str], reply_call: tuple[str, str, str] | None) -> object:
    attrs: dict[str, object] = {
        "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
        "input.mime_type": "application/json", "input.value": json.dumps({"messages": messages}),
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "order?",
        "llm.output_messages.0.message.role": "assistant",
    }
    if reply_call is not None:
        call_id, order, tool = reply_call
        attrs["output.value"] = json.dumps({"replies": [_assistant(call_id, order, tool)]})
        attrs["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"] = tool
        attrs["llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments"] = json.dumps({"order_id": order})
    return span(number, "OpenAIChatGenerator.run", parent=1, attrs=attrs)


def _agent() -> object:
    return span(1, "Agent.run", attrs={"openinference.span.kind": "CHAIN", "input.value": "{}"})


def test_the_agent_run_and_the_call_ids_of_the_replies() -> None:
    trajectory = map_spans([_agent(), _llm(2, [USER], ("call_1", "A", "lookup_order"))], scope=SCOPE)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    proposal = get_node(trajectory, f"{node_id(2)}#call:call_1")
    assert proposal.kind is NodeKind.TOOL_PROPOSAL and proposal.tool_name == "lookup_order"


def test_a_result_with_error_fails_the_call_and_the_next_call_consumes_it() -> None:
    text = "Failed to invoke Tool `lookup_order` with parameters {'order_id': 'A-10O1'}. Error: order 'A-10O1' not found"
    spans = [
        _agent(),
        _llm(2, [USER], ("call_1", "A-10O1", "lookup_order")),
        _llm(3, [USER, _assistant("call_1", "A-10O1"), _result("call_1", "A-10O1", text, True)], None),
    ]
    trajectory = map_spans(spans, scope=SCOPE)
    proposal = get_node(trajectory, f"{node_id(2)}#call:call_1")
    assert proposal.result_status is NodeStatus.FAILED and (proposal.result_error or "").startswith("Failed to invoke Tool")
    assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, proposal.id)
    (finding,) = run_detector(ToolErrorDetector(), trajectory)
    assert finding.node_id == proposal.id


def test_a_rejected_unknown_tool_is_not_a_failed_run() -> None:
    spans = [
        _agent(),
        _llm(2, [USER], ("call_1", "A", "fetch_invoice")),
        _llm(3, [USER, _assistant("call_1", "A", "fetch_invoice"),
                 _result("call_1", "A", "Tool 'fetch_invoice' not found. Available tools: lookup_order", True,
                         "fetch_invoice")], None),
    ]
    trajectory = map_spans(spans, scope=SCOPE)
    assert get_node(trajectory, f"{node_id(2)}#call:call_1").result_status is None
    assert "fetch_invoice" in get_node(trajectory, node_id(3)).unknown_tools


def test_result_reprs_with_quotes_and_escapes_are_read_and_broken_ones_left_unread() -> None:
    text = "it's \"quoted\" and back\\slashed"
    assert tool_results(_result("call_9", "A", text, False)) == [("call_9", text, False)]
    assert tool_results("ToolCallResult(result='unterminated, origin=ToolCall(") == []
