"""A streamed chat call under the GenAI conventions: the official OpenAI instrumentation assembles the answer from the
chunks into ``gen_ai.output.messages`` (each message with its ``finish_reason``) and writes no
``gen_ai.response.finish_reasons`` and, when the stream carries no usage chunk, no token usage."""

from __future__ import annotations

import json

from tests.support.spans import get_node, map_spans, node_id, span

OP = "gen_ai.operation.name"


def _streamed_chat(number: int, output: list[dict[str, object]], **extra: object) -> object:
    attrs: dict[str, object] = {OP: "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "m",
                                "gen_ai.output.messages": json.dumps(output), **extra}
    return span(number, "chat m", parent=1, attrs=attrs)


_CALL = {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}


def test_finish_reasons_of_a_streamed_call_come_from_its_output_messages() -> None:
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent", "gen_ai.agent.name": "a"}),
        _streamed_chat(2, [{"role": "assistant", "parts": [_CALL], "finish_reason": "tool_calls"}]),
        _streamed_chat(3, [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}], "finish_reason": "stop"}]),
    ])
    assert get_node(trajectory, node_id(2)).finish_reasons == ("tool_calls",)
    assert get_node(trajectory, node_id(3)).finish_reasons == ("stop",)
    assert get_node(trajectory, node_id(2)).usage is None


def test_the_span_s_finish_reasons_attribute_wins_over_the_messages() -> None:
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent", "gen_ai.agent.name": "a"}),
        _streamed_chat(2, [{"role": "assistant", "parts": [_CALL], "finish_reason": "tool_calls"}],
                       **{"gen_ai.response.finish_reasons": ["length"]}),
    ])
    assert get_node(trajectory, node_id(2)).finish_reasons == ("length",)


def test_an_agent_span_s_output_messages_give_no_finish_reasons() -> None:
    output = [{"role": "assistant", "parts": [{"type": "text", "content": "Done."}], "finish_reason": "stop"}]
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent", "gen_ai.agent.name": "a",
                                         "gen_ai.output.messages": json.dumps(output)}),
    ])
    assert get_node(trajectory, node_id(1)).finish_reasons == ()


def test_messages_without_a_finish_reason_give_none() -> None:
    trajectory = map_spans([
        span(1, "invoke_agent a", attrs={OP: "invoke_agent", "gen_ai.agent.name": "a"}),
        _streamed_chat(2, [{"role": "assistant", "parts": [_CALL]}, "not a message", {"finish_reason": 7}]),
    ])
    assert get_node(trajectory, node_id(2)).finish_reasons == ()
