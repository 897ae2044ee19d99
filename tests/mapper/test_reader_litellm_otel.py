"""LiteLLM's OpenTelemetry integration (corpus/NOTES-frameworks-av.md): a ``litellm_request`` span's
``gen_ai.output.messages`` holds an assistant message with no parts when the model stopped for tool calls (the calls
only in ``gen_ai.completion.<n>.function_call.*``, without ids); the next request's ``gen_ai.input.messages`` keeps
the Chat Completions fields beside the parts (an assistant message's ``tool_calls``, a tool message's
``tool_call_id``)."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "You are a support agent."}]}
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Oslo?"}]}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
ASSISTANT = {"role": "assistant", "parts": [], "tool_calls": [CALL]}
RESULT = {"role": "tool", "parts": [{"type": "text", "content": "Oslo: rain"}], "tool_call_id": "call_1"}
EMPTY_OUTPUT = [{"role": "assistant", "parts": [], "finish_reason": "tool_calls"}]
ANSWER = [{"role": "assistant", "parts": [{"type": "text", "content": "Rain in Oslo."}], "finish_reason": "stop"}]


def _request(number: int, inputs: list, outputs: list, **extra: object) -> object:
    attrs: dict[str, object] = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai",
                                "gen_ai.request.model": "gpt-4o-mini", "gen_ai.input.messages": json.dumps(inputs),
                                "gen_ai.output.messages": json.dumps(outputs), **extra}
    return span(number, "litellm_request", parent=1, attrs=attrs)


def _trace(first_output: list, second_inputs: list) -> list:
    return [
        span(1, "invoke_agent support_agent", attrs={"gen_ai.operation.name": "invoke_agent",
                                                     "gen_ai.agent.name": "support_agent"}),
        _request(2, [SYSTEM, USER], first_output, **{
            "gen_ai.completion.0.function_call.name": "get_weather",
            "gen_ai.completion.0.function_call.arguments": '{"city": "Oslo"}'}),
        span(3, "execute_tool get_weather", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1"}),
        _request(4, second_inputs, ANSWER),
    ]


def test_empty_tool_call_output_takes_the_calls_the_next_input_replays() -> None:
    trajectory = map_spans(_trace(EMPTY_OUTPUT, [SYSTEM, USER, ASSISTANT, RESULT]))
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [f"{node_id(2)}#call:call_1"], proposals


def test_tool_message_call_id_beside_its_parts_is_the_result_it_carries() -> None:
    trajectory = map_spans(_trace(EMPTY_OUTPUT, [SYSTEM, USER, ASSISTANT, RESULT]))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_an_empty_output_that_stopped_for_no_call_proposes_nothing() -> None:
    stopped = [{"role": "assistant", "parts": [], "finish_reason": "stop"}]
    trajectory = map_spans(_trace(stopped, [SYSTEM, USER, ASSISTANT, RESULT]))
    assert not [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
