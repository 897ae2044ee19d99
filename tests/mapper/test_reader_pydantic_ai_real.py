"""Pydantic AI's native instrumentation as it exports (``pydantic-ai-slim`` 2.68.0, default data version 5, content
on), shaped like corpus/traces/pydantic-ai-native: ``invoke_agent`` -> ``chat`` / ``execute_tool`` siblings with
``gen_ai.agent.call.id`` baggage, a failed attempt at a model request as an ERROR child of its ``chat`` span
(``model request attempt``, ``pydantic_ai.model_request.attempt``, no operation name and no baggage), and errors
whose HTTP status is only in the ``ModelHTTPError`` message."""

from __future__ import annotations

import json

from otel_mapper.attribution import attribute
from processor.detectors.failures import FailureClass, classify
from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

RUN = {"gen_ai.agent.name": "support_agent", "gen_ai.agent.call.id": "run-1", "gen_ai.conversation.id": "conv-1"}
MODEL = {"gen_ai.provider.name": "openai", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini"}
RATE_LIMIT = ("ModelRateLimitError: status_code: 429, model_name: gpt-4o-mini, body: {'message': 'Rate limit reached "
              "for gpt-4o-mini', 'type': 'requests'}")
SERVER_ERROR = "ModelServerError: status_code: 500, model_name: gpt-4o-mini, body: {'message': 'server error'}"
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Rome?"}]}
CALL = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather",
                                        "arguments": "{\"city\": \"Rome\"}"}], "finish_reason": "tool_call"}
RESULT = {"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "get_weather",
                                     "result": "Rome: clear, 24°C"}]}


def _exception(exc_type: str, message: str) -> tuple[str, dict[str, object]]:
    return "exception", {"exception.type": exc_type, "exception.message": message, "exception.escaped": "True"}


def _agent(number: int = 1, **extra: object) -> object:
    return span(number, "invoke_agent support_agent", attrs={
        **RUN, "gen_ai.operation.name": "invoke_agent", "agent_name": "support_agent", "model_name": "gpt-4o-mini",
        "logfire.msg": "support_agent run", "gen_ai.aggregated_usage.input_tokens": 307,
        "gen_ai.aggregated_usage.output_tokens": 40, **extra})


def _chat(number: int, inputs: list, outputs: list | None, *, usage: tuple[int, int] | None, parent: int = 1,
          error: str | None = None) -> object:
    attrs: dict[str, object] = {**RUN, **MODEL, "gen_ai.operation.name": "chat", "gen_ai.tool.definitions": json.dumps(
        [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}])}
    if outputs is not None:  # set with the response: a failed request records neither input nor output
        attrs |= {"gen_ai.input.messages": json.dumps(inputs), "gen_ai.output.messages": json.dumps(outputs),
                  "gen_ai.response.model": "gpt-4o-mini-2024-07-18"}
    if usage is not None:
        attrs |= {"gen_ai.usage.input_tokens": usage[0], "gen_ai.usage.output_tokens": usage[1]}
    events = [_exception("pydantic_ai.exceptions.ModelServerError", error)] if error else []
    return span(number, "chat gpt-4o-mini", parent=parent, attrs=attrs, error=error, events=events)


def _attempt(number: int, parent: int, position: int, *, error: str = RATE_LIMIT) -> object:
    attrs: dict[str, object] = {**MODEL, "server.address": "127.0.0.1", "pydantic_ai.model_request.attempt": position}
    return span(number, "model request attempt gpt-4o-mini", parent=parent, attrs=attrs, error=error,
                events=[_exception("pydantic_ai.exceptions.ModelRateLimitError", error)])


def _tool(number: int) -> object:
    return span(number, "execute_tool get_weather", parent=1, attrs={
        **RUN, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.arguments": "{\"city\":\"Rome\"}", "gen_ai.tool.call.result": "Rome: clear, 24°C",
        "logfire.msg": "running tool: get_weather"})


def _retried_trace() -> list:
    """A model_request_error hook retried the first request after a 429 (RetryModelRequest)."""
    return [
        _agent(),
        _chat(2, [USER], [CALL], usage=(120, 27)),
        _attempt(3, parent=2, position=0),
        _tool(4),
        _chat(5, [USER, CALL, RESULT], [{"role": "assistant", "parts": [{"type": "text", "content": "Clear."}]}],
              usage=(187, 13)),
    ]


def test_a_failed_attempt_span_is_a_failed_model_call_read_by_the_pydantic_ai_reader() -> None:
    trajectory = map_spans(_retried_trace())
    attempt = get_node(trajectory, node_id(3))
    assert attempt.kind is NodeKind.MODEL_CALL and attempt.status is NodeStatus.FAILED
    assert attempt.convention == "pydantic_ai"
    assert attempt.model == "gpt-4o-mini" and attempt.error_type == "pydantic_ai.exceptions.ModelRateLimitError"
    assert classify(attempt) is FailureClass.RATE_LIMITED
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2))  # its span parent, the request's chat
    assert kinds(trajectory)["model_call"] == 3


def test_the_http_status_is_read_from_the_model_http_error_message() -> None:
    trajectory = map_spans([_agent(), _chat(2, [], None, usage=None, error=SERVER_ERROR)])
    chat = get_node(trajectory, node_id(2))
    assert chat.status is NodeStatus.FAILED and chat.http_status == 500
    assert get_node(map_spans(_retried_trace()), node_id(3)).http_status == 429


def test_a_status_code_text_on_a_tool_or_a_successful_call_is_no_http_status() -> None:
    tool = span(2, "execute_tool fetch", parent=1, error="status_code: 503 from the upstream API", attrs={
        **RUN, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch", "gen_ai.tool.call.id": "c1"})
    trajectory = map_spans([_agent(), tool])
    assert get_node(trajectory, node_id(2)).http_status is None


def test_agent_totals_are_ignored_and_a_chat_span_holding_a_failed_attempt_still_counts() -> None:
    usage = attribute(map_spans(_retried_trace())).usage
    assert (usage.input_tokens, usage.output_tokens, usage.calls_with_usage) == (307, 40, 2)


def test_a_failed_request_records_no_input_so_it_consumes_nothing() -> None:
    # Pydantic AI writes gen_ai.input.messages together with the output: a 500 leaves the chat span without either.
    spans = [_agent(), _chat(2, [USER], [CALL], usage=(120, 27)), _tool(3),
             _chat(4, [], None, usage=None, error=SERVER_ERROR)]
    trajectory = map_spans(spans)
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))
    assert not any(e.from_node == node_id(4) and e.type is EdgeType.DEPENDS_ON for e in trajectory.edges)


def test_an_unknown_tool_is_answered_with_a_retry_prompt_as_the_calls_result() -> None:
    unknown = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_x", "name": "fetch_invoice",
                                               "arguments": "{}"}], "finish_reason": "tool_call"}
    retry = {"role": "user", "parts": [{"type": "tool_call_response", "id": "call_x", "name": "fetch_invoice",
                                        "result": "Unknown tool name: 'fetch_invoice'. Available tools: 'get_weather'"}]}
    spans = [_agent(), _chat(2, [USER], [unknown], usage=(100, 10)),
             _chat(3, [USER, unknown, retry], [CALL], usage=(150, 10))]
    trajectory = map_spans(spans)
    proposal = get_node(trajectory, node_id(2, "call:call_x"))
    assert proposal.tool_name == "fetch_invoice"
    assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, node_id(2, "call:call_x"))
    assert "fetch_invoice" in get_node(trajectory, node_id(3)).unknown_tools
