"""A framework's own model span holding a client instrumentation's span of the request it sends, shaped as Strands
Agents' ``chat`` (messages in span events) around OpenLIT's OpenAI ``chat <model>`` CLIENT span (GenAI parts
attributes, the status ``<Type>: <message>``) write them (``corpus/NOTES-frameworks-dn.md``): one request, one model
call (:func:`otel_mapper.mapping.wrapped_model_calls._same_answer`), when both record the same answer messages or fail
with the same message (the framework raising the client's error under its own type). Two spans that read different
answers, or failed with different messages, stay two calls."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

USE = {"toolUse": {"toolUseId": "call_1", "name": "get_weather", "input": {"city": "Paris"}}}
RESULT = {"toolResult": {"toolUseId": "call_1", "status": "success", "content": [{"text": "Paris: sunny"}]}}
USER = [{"text": "Weather in Paris?"}]
SYSTEM = "You are a weather agent."


def _strands_chat(number: int, parent: int, replay: bool, answer: list[Any] | None,
                  error: tuple[str, str] | None = None) -> Any:
    """Strands' ``chat`` span: the request's messages and the answer as events; a failure as an exception event."""
    events: list[tuple[str, dict[str, Any]]] = [("gen_ai.user.message", {"content": json.dumps(USER)})]
    if replay:
        events += [("gen_ai.assistant.message", {"content": json.dumps([USE])}),
                   ("gen_ai.tool.message", {"content": json.dumps([RESULT])})]
    if answer is not None:
        events.append(("gen_ai.choice", {"finish_reason": "end_turn" if replay else "tool_use",
                                         "message": json.dumps(answer)}))
    if error is not None:
        events.append(("exception", {"exception.type": error[0], "exception.message": error[1]}))
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.system": "strands-agents", "gen_ai.request.model": "gpt-4o-mini"}
    return span(number, "chat", parent=parent, attrs=attrs, events=events,
                error=error[1] if error is not None else None)


def _openlit_chat(number: int, parent: int, replay: bool, answer: list[Any] | None,
                  error: tuple[str, str] | None = None) -> Any:
    """OpenLIT's OpenAI span under it: GenAI parts messages (no replayed assistant turn), its response id; a failed
    request's span with no message, ``error.type`` the class name, status ``<Type>: <message>``."""
    attrs: dict[str, Any] = {"telemetry.sdk.name": "openlit", "gen_ai.operation.name": "chat",
                             "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini"}
    if error is not None:
        attrs["error.type"] = error[0]
        return span(number, "chat gpt-4o-mini", parent=parent, attrs=attrs, kind=Span.SPAN_KIND_CLIENT,
                    error=f"{error[0]}: {error[1]}")
    inputs: list[Any] = [{"role": "system", "parts": [{"type": "text", "content": SYSTEM}]},
                         {"role": "user", "parts": [{"type": "text", "content": USER[0]["text"]}]}]
    if replay:
        inputs.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1",
                                                  "response": "Paris: sunny"}]})
    attrs["gen_ai.input.messages"] = json.dumps(inputs)
    attrs["gen_ai.output.messages"] = json.dumps(answer)
    attrs["gen_ai.response.id"] = f"chatcmpl-{number}"
    return span(number, "chat gpt-4o-mini", parent=parent, attrs=attrs, kind=Span.SPAN_KIND_CLIENT)


def _agent() -> Any:
    return span(1, "invoke_agent weather_agent", attrs={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.system": "strands-agents", "gen_ai.agent.name": "weather_agent"})


def _tool(number: int) -> Any:
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.system": "strands-agents",
             "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1", "gen_ai.tool.status": "success"}
    return span(number, "execute_tool get_weather", parent=1, attrs=attrs)


PROPOSAL_OUT = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather",
                                                 "arguments": {"city": "Paris"}}], "finish_reason": "tool_call"}]
TEXT = "It is sunny in Paris."
TEXT_OUT = [{"role": "assistant", "parts": [{"type": "text", "content": TEXT}], "finish_reason": "stop"}]


def test_a_text_answer_recorded_by_both_spans_is_one_model_call() -> None:
    trajectory = map_spans([_agent(), _strands_chat(2, 1, False, [USE]), _openlit_chat(3, 2, False, PROPOSAL_OUT),
                            _tool(4), _strands_chat(5, 1, True, [{"text": TEXT}]),
                            _openlit_chat(6, 5, True, TEXT_OUT)])
    assert kinds(trajectory).get(NodeKind.MODEL_CALL.value) == 2
    assert get_node(trajectory, node_id(6)).kind is NodeKind.MODEL_CALL  # the request's span keeps the node


def test_a_failed_request_raised_again_under_the_framework_type_is_one_failed_call() -> None:
    message = "Error code: 500 - {'error': {'message': 'server error'}}"
    trajectory = map_spans([
        _agent(), _strands_chat(2, 1, False, [USE]), _openlit_chat(3, 2, False, PROPOSAL_OUT), _tool(4),
        _strands_chat(5, 1, True, None, ("strands.types.exceptions.ModelThrottledException", message)),
        _openlit_chat(6, 5, True, None, ("InternalServerError", message))])
    assert kinds(trajectory).get(NodeKind.MODEL_CALL.value) == 2
    failed = get_node(trajectory, node_id(6))
    assert failed.status is NodeStatus.FAILED
    # The failed request consumed the result its framework span's events replay (its own span records no input).
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))


def test_spans_that_read_other_answers_or_failures_stay_two_calls() -> None:
    other = [{"role": "assistant", "parts": [{"type": "text", "content": "Rainy."}], "finish_reason": "stop"}]
    answers = map_spans([_agent(), _strands_chat(2, 1, False, [{"text": TEXT}]), _openlit_chat(3, 2, False, other)])
    assert kinds(answers).get(NodeKind.MODEL_CALL.value) == 2
    failures = map_spans([
        _agent(), _strands_chat(2, 1, False, None, ("strands.types.exceptions.EventLoopException", "gave up")),
        _openlit_chat(3, 2, False, None, ("InternalServerError", "Error code: 500"))])
    assert kinds(failures).get(NodeKind.MODEL_CALL.value) == 2
