"""OpenInference's Anthropic instrumentation 0.1.20 (the release that instruments the anthropic 0.73 CrewAI's
`anthropic` extra pins, corpus/NOTES-frameworks-bp.md): output tool calls flattened without their id, which only the
Messages API response in `output.value` keeps; a user message's several `tool_result` blocks flattened as that one user
message, named by the last block's `tool_use_id`."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
OUT = "llm.output_messages.0.message."
CALLS = [("toolu_1", "lookup_order", {"order_id": "A-1"}), ("toolu_2", "get_weather", {"city": "Paris"})]


def _response(calls: list[tuple[str, str, dict[str, str]]], kind: str = "message") -> str:
    content = [{"type": "text", "text": "Let me check."}]
    content += [{"id": call_id, "input": args, "name": name, "type": "tool_use"} for call_id, name, args in calls]
    return json.dumps({"id": "msg_1", "content": content, "model": "claude-haiku-4-5", "role": "assistant",
                       "stop_reason": "tool_use", "type": kind, "usage": {"input_tokens": 9, "output_tokens": 9}})


def _proposer(number: int, output: str | None) -> Span:
    attrs: dict[str, str] = {KIND: "LLM", "llm.input_messages.0.message.role": "user",
                             "llm.input_messages.0.message.content": "Delayed?", f"{OUT}role": "assistant"}
    for index, (_, name, args) in enumerate(CALLS):  # 0.1.20 flattens name and arguments, not the id
        attrs[f"{OUT}tool_calls.{index}.tool_call.function.name"] = name
        attrs[f"{OUT}tool_calls.{index}.tool_call.function.arguments"] = json.dumps(args)
    if output is not None:
        attrs.update({"output.value": output, "output.mime_type": "application/json"})
    return span(number, "Messages", parent=1, attrs=attrs)


def test_output_calls_without_ids_take_the_ids_of_the_responses_tool_use_blocks() -> None:
    trajectory = map_spans([span(1, "support_agent._execute_core", attrs={KIND: "AGENT"}), _proposer(2, _response(CALLS))])
    for call_id, name, _ in CALLS:
        proposal = get_node(trajectory, node_id(2, f"call:{call_id}"))
        assert proposal.kind is NodeKind.TOOL_PROPOSAL and proposal.tool_name == name


def test_no_id_is_taken_from_another_shape_or_a_block_naming_another_tool() -> None:
    other_tools = [(call_id, "search_docs", args) for call_id, _, args in CALLS]
    for output in (_response(CALLS, kind="completion"), _response(other_tools), None):
        trajectory = map_spans([span(1, "agent", attrs={KIND: "AGENT"}), _proposer(2, output)])
        assert all(trajectory.node(node_id(2, f"call:{call_id}")) is None for call_id, _, _ in CALLS), output


def test_a_user_message_naming_the_last_result_of_a_turn_consumes_every_call_of_the_turn() -> None:
    replay: dict[str, str] = {KIND: "LLM", "llm.input_messages.0.message.role": "user",
                              "llm.input_messages.0.message.content": "Delayed?",
                              "llm.input_messages.1.message.role": "assistant",
                              "llm.input_messages.2.message.role": "user",
                              "llm.input_messages.2.message.tool_call_id": "toolu_2",
                              "llm.input_messages.2.message.content": "Paris: Sunny"}
    for index, (call_id, name, args) in enumerate(CALLS):
        prefix = f"llm.input_messages.1.message.tool_calls.{index}.tool_call."
        replay.update({f"{prefix}id": call_id, f"{prefix}function.name": name,
                       f"{prefix}function.arguments": json.dumps(args)})
    trajectory = map_spans([span(1, "agent", attrs={KIND: "AGENT"}), _proposer(2, _response(CALLS)),
                            span(3, "Messages", parent=1, attrs=replay)])
    for call_id, _, _ in CALLS:
        assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, node_id(2, f"call:{call_id}")), call_id
