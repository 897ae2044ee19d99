"""A model call's input whose function responses come as one ``user`` message of tool-result parts naming no call id
(the Gemini API's shape, as OpenLIT's Google AI Studio instrumentation writes it: ``openlit`` 1.45,
``instrumentation/google_ai_studio/utils.py`` ``build_input_messages``; ``corpus/NOTES-frameworks-cb.md``): each part
answers a call of the assistant message before it, as tool messages do (:mod:`otel_mapper.mapping.prefix`), and a
response written as the ``str`` of its ``{'output': ...}`` object is read for its output."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from semconv import openlit
from semconv.trajectory import EdgeType
from tests.support.spans import has_edge, map_scoped_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
MODEL = "gemini-2.5-flash"
SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "You are a support agent."}]}
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris and Rome?"}]}
CALLS = (("call_1", "Paris", "Paris: Sunny, 18°C"), ("call_2", "Rome", "Rome: Clear, 24°C"))


def _text(content: str) -> dict[str, Any]:
    return {"type": "text", "content": content}


def _chat(number: int, inputs: list[dict[str, Any]], parts: list[dict[str, Any]]) -> Span:
    return span(number, f"chat {MODEL}", parent=1, kind=_CLIENT, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "gemini", "gen_ai.request.model": MODEL,
        "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 10,
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts, "finish_reason": "stop"}])})


def _run(calls: tuple[tuple[str, str, str], ...], answer: dict[str, Any] | None = None) -> Trajectory:
    """Agent 1 -> chat 2 proposing ``calls`` (with ids) -> a tool span per call (10, 11, ...) -> chat 3 whose input
    replays the calls without ids and answers them in one user message (``answer``, else each result as the str of
    its ``{'output': ...}``)."""
    proposed = [{"type": "tool_call", "id": call_id, "name": "get_weather", "arguments": {"city": city}}
                for call_id, city, _ in calls]
    replayed = [{"type": "tool_call", "id": "", "name": "get_weather", "arguments": {"city": city}}
                for _, city, _ in calls]
    results = answer or {"role": "user", "parts": [
        {"type": "tool_call_response", "id": "", "response": str({"output": result})} for _, _, result in calls]}
    inputs = [SYSTEM, USER, {"role": "assistant", "parts": replayed}, results]
    manual = [span(1, "invoke_agent support_agent", kind=_CLIENT,
                   attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"})]
    for index, (call_id, city, result) in enumerate(calls):
        manual.append(span(10 + index, "execute_tool get_weather", parent=1, kind=_CLIENT, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": json.dumps({"city": city}), "gen_ai.tool.call.result": result}))
    chats = [_chat(2, [SYSTEM, USER], proposed), _chat(3, inputs, [_text("Sunny in Paris, clear in Rome.")])]
    return map_scoped_spans([("openlit", manual), (openlit.GOOGLE_AI_STUDIO_SCOPE, chats)])


def test_the_one_result_of_a_one_call_turn_is_consumed_by_the_next_call() -> None:
    trajectory = _run(CALLS[:1])
    assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, node_id(10))


def test_each_result_of_a_parallel_turn_is_joined_to_the_run_that_returned_its_output() -> None:
    trajectory = _run(CALLS)
    assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, node_id(10))
    assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, node_id(11))


def test_a_user_message_with_text_beside_the_responses_is_not_read_as_results() -> None:
    answer = {"role": "user", "parts": [_text("Here is what the tools said."),
                                        *({"type": "tool_call_response", "id": "", "response": str({"output": r})}
                                          for _, _, r in CALLS)]}
    trajectory = _run(CALLS, answer)
    assert not has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, node_id(10))
    assert not has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, node_id(11))
