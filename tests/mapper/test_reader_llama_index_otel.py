"""LlamaIndex under its own OpenTelemetry integration, shaped as ``llama-index-observability-otel`` 0.7.0 writes it on
llama-index-core 0.14.25 (``corpus/NOTES-frameworks-ae.md``): dispatcher spans named ``<Class>.<method>`` under the
integration's scope with no convention's attributes, a workflow step's tags on every span inside the step, the LLM
call's content in ``LLMChatStartEvent`` / ``LLMChatEndEvent`` span events, a tool run named by its step's ``ToolCall``
input summary."""

from __future__ import annotations

import json

from processor.detectors.failures import FailureClass, classify
from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

SCOPE = "llamaindex.opentelemetry.tracer"
STEP_EVENT = "llamaindex.step.input_event"
STEP_SUMMARY = "llamaindex.step.input_summary"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
SYSTEM = {"role": "system", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "You are support."}]}
USER = {"role": "user", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "Weather in Paris?"}]}
CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def _step(number: int, name: str, input_event: str, summary: str, parent: int = 1) -> object:
    return span(number, f"BaseWorkflowAgent.{name}", parent=parent,
                attrs={STEP_EVENT: input_event, STEP_SUMMARY: summary, "llamaindex.run_id": "r1"})


def _start(messages: list[dict[str, object]]) -> tuple[str, dict[str, object]]:
    return ("LLMChatStartEvent", {"messages": json.dumps(messages), "additional_kwargs.tools": json.dumps(TOOLS),
                                  "model_dict.model_name": "gpt-4o-mini", "class_name": "LLMChatStartEvent"})


def _end(messages: list[dict[str, object]], answer: dict[str, object], finish: str) -> tuple[str, dict[str, object]]:
    return ("LLMChatEndEvent", {
        "messages": json.dumps(messages), "response.raw.id": "chatcmpl-1", "response.raw.model": "gpt-4o-mini-2024",
        "response.raw.choices": json.dumps([{"index": 0, "finish_reason": finish, "message": answer}]),
        "response.raw.usage.prompt_tokens": 120, "response.raw.usage.completion_tokens": 20,
        "class_name": "LLMChatEndEvent"})


def _chat(number: int, parent: int, events: list[tuple[str, dict[str, object]]], error: str | None = None) -> object:
    return span(number, "OpenAI.achat", parent=parent, error=error, events=events,
                attrs={STEP_EVENT: "AgentSetup", STEP_SUMMARY: "AgentSetup(input=[...])"})


def _tool_summary(tool: str, kwargs: str, call_id: str) -> str:
    return f"ToolCall(tool_name='{tool}', tool_kwargs={kwargs}, tool_id='{call_id}')"


def _first_turn() -> list[object]:
    asked = [SYSTEM, USER]
    return [
        span(1, "FunctionAgent.run", events=[("workflow.output", {"output": "StopEvent(...)"})]),
        _step(2, "run_agent_step", "AgentSetup", "AgentSetup(input=[...])"),
        span(3, "OpenAI._prepare_chat_with_tools", parent=2, attrs={STEP_EVENT: "AgentSetup"}),
        _chat(4, 2, [_start(asked), _end(asked, {"role": "assistant", "content": None, "tool_calls": [CALL]},
                                         "tool_calls")]),
    ]


def _tool_call(number: int, tool: str, kwargs: str, call_id: str, error: str | None = None) -> list[object]:
    summary = _tool_summary(tool, kwargs, call_id)
    return [
        _step(number, "call_tool", "ToolCall", summary),
        span(number + 1, "FunctionTool.acall", parent=number, error=error,
             attrs={STEP_EVENT: "ToolCall", STEP_SUMMARY: summary}),
    ]


def test_spans_are_read_by_what_the_dispatcher_span_is() -> None:
    trajectory = map_spans([*_first_turn(), *_tool_call(5, "get_weather", "{'city': 'Paris'}", "c1")], scope=SCOPE)

    assert kinds(trajectory) == {"agent_invocation": 1, "workflow_step": 2, "other": 1, "model_call": 1,
                                 "tool_proposal": 1, "tool_execution": 1}


def test_the_chat_events_give_the_call_its_proposals_model_usage_and_offered_tools() -> None:
    trajectory = map_spans(_first_turn(), scope=SCOPE)

    call = get_node(trajectory, node_id(4))
    assert call.kind is NodeKind.MODEL_CALL
    assert call.model == "gpt-4o-mini-2024"
    assert call.usage is not None and (call.usage.input_tokens, call.usage.output_tokens) == (120, 20)
    assert get_node(trajectory, node_id(4, "call:c1")).tool_name == "get_weather"


def test_a_tool_run_takes_name_arguments_and_call_id_from_its_step_tool_call() -> None:
    trajectory = map_spans([*_first_turn(), *_tool_call(5, "get_weather", "{'city': 'Paris'}", "c1")], scope=SCOPE)

    tool = get_node(trajectory, node_id(6))
    assert (tool.kind, tool.tool_name) == (NodeKind.TOOL_EXECUTION, "get_weather")
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(4, "call:c1"))


def test_a_tool_call_summary_cut_short_records_no_arguments() -> None:
    trajectory = map_spans([*_first_turn(), *_tool_call(5, "get_weather", "{'city': 'Par...", "c1")], scope=SCOPE)

    tool = get_node(trajectory, node_id(6))
    assert tool.tool_name == "get_weather"
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(4, "call:c1"))
    assert (tool.arguments, tool.arguments_visible) == (None, False)


def test_the_next_call_consumes_the_result_its_input_messages_carry() -> None:
    answered = [SYSTEM, USER,
                {"role": "assistant", "additional_kwargs": {"tool_calls": [CALL]}, "blocks": []},
                {"role": "tool", "additional_kwargs": {"tool_call_id": "c1"},
                 "blocks": [{"block_type": "text", "text": "Paris: sunny"}]}]
    trajectory = map_spans([
        *_first_turn(), *_tool_call(5, "get_weather", "{'city': 'Paris'}", "c1"),
        _step(7, "run_agent_step", "AgentSetup", "AgentSetup(input=[...])"),
        _chat(8, 7, [_start(answered), _end(answered, {"role": "assistant", "content": "Sunny."}, "stop")]),
    ], scope=SCOPE)

    assert has_edge(trajectory, node_id(8), EdgeType.DEPENDS_ON, node_id(6))


def test_a_dropped_chat_span_is_a_failed_model_call_with_its_status_code() -> None:
    asked = [SYSTEM, USER]
    message = "Error code: 500 - {'error': {'message': 'The server had an error', 'type': 'server_error'}}"
    trajectory = map_spans([
        span(1, "FunctionAgent.run", error=message),
        _step(2, "run_agent_step", "AgentSetup", "AgentSetup(input=[...])"),
        _chat(3, 2, [_start(asked), ("SpanDropEvent", {"err_str": message})], error=message),
    ], scope=SCOPE)

    call = get_node(trajectory, node_id(3))
    assert (call.kind, call.http_status) == (NodeKind.MODEL_CALL, 500)
    assert call.status is NodeStatus.FAILED
    assert classify(call) is FailureClass.OTHER


def test_a_tool_span_outside_a_tool_call_step_names_no_tool() -> None:
    trajectory = map_spans([
        span(1, "FunctionAgent.run"),
        span(2, "FunctionTool.acall", parent=1),
    ], scope=SCOPE)

    tool = get_node(trajectory, node_id(2))
    assert tool.kind is NodeKind.TOOL_EXECUTION
    assert tool.tool_name is None


def test_a_call_id_the_summary_cut_is_not_read_as_an_id() -> None:
    long_id = "call_" + "x" * 45
    trajectory = map_spans([*_first_turn(), *_tool_call(5, "get_weather", "{'city': 'Paris'}", long_id[:50] + "...")],
                           scope=SCOPE)

    tool = get_node(trajectory, node_id(6))
    assert (tool.tool_name, tool.tool_call_id) == ("get_weather", None)
