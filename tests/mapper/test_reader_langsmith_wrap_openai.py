"""LangSmith's OTel spans of `wrap_openai` and `@traceable` (:mod:`otel_mapper.mapping.readers.langsmith`): an ``llm``
run's inputs are the Chat Completions request (messages as dicts with a ``role``, the offered ``tools``), its outputs
the ``ChatCompletion`` (``choices``), each one JSON text in ``gen_ai.prompt`` / ``gen_ai.completion``; a function that
raised returns ``{"output": null}``."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

SCOPE = "langsmith"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
SYSTEM = {"role": "system", "content": "be helpful"}
USER = {"role": "user", "content": "weather in Paris?"}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{finish}", "model": "gpt-4o-mini-2024-07-18", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": finish, "message": message}], "usage_metadata": None}


def _model(number: int, parent: int, messages: list[Any], output: dict[str, Any] | None,
           events: list[Any] | None = None) -> Any:
    values: dict[str, Any] = {
        "langsmith.span.kind": "llm", "gen_ai.operation.name": "chat", "gen_ai.system": "openai",
        "langsmith.metadata.ls_provider": "openai", "langsmith.metadata.ls_model_name": "gpt-4o-mini",
        "gen_ai.prompt": json.dumps({"messages": messages, "model": "gpt-4o-mini", "tools": TOOLS}),
    }
    if output is not None:
        values["gen_ai.completion"] = json.dumps(output)
    return span(number, "ChatOpenAI", parent=parent, attrs=values, events=events or [])


def _run() -> list[Any]:
    """An agent function's run: a request proposing call_1, the tool function's run, a request consuming its result."""
    assistant = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    return [
        span(1, "support_agent", attrs={"langsmith.span.kind": "chain", "gen_ai.prompt": "{}"}),
        _model(2, 1, [SYSTEM, USER], _completion(assistant, "tool_calls")),
        span(3, "get_weather", parent=1, attrs={
            "langsmith.span.kind": "tool", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.prompt": '{"city":"Paris"}', "gen_ai.completion": json.dumps({"output": "Paris: sunny"})}),
        _model(4, 1, [SYSTEM, USER, assistant, {"role": "tool", "tool_call_id": "call_1", "content": "Paris: sunny"}],
               _completion({"role": "assistant", "content": "Sunny."}, "stop")),
    ]


def test_a_chat_completion_output_proposes_its_calls_and_the_next_request_consumes_them() -> None:
    trajectory = map_spans(_run(), scope=SCOPE)
    call = get_node(trajectory, node_id(2))
    assert (call.model, call.finish_reasons, call.tool_definitions) == (
        "gpt-4o-mini-2024-07-18", ("tool_calls",), ("get_weather",))
    proposal = node_id(2, "call:call_1")
    assert get_node(trajectory, proposal).tool_name == "get_weather"
    run = get_node(trajectory, node_id(3))
    assert (run.kind, run.arguments, run.result_visible) == (NodeKind.TOOL_EXECUTION, '{"city":"Paris"}', True)
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposal)  # joined by its arguments: no call id
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))  # the result consumed by its id
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(2))  # the answer replayed in the input


def test_a_run_of_a_tool_the_request_did_not_offer_is_judged_against_its_tools() -> None:
    unknown = {"id": "call_9", "type": "function", "function": {"name": "fetch_invoice", "arguments": "{}"}}
    spans = [
        span(1, "support_agent", attrs={"langsmith.span.kind": "chain"}),
        _model(2, 1, [USER], _completion({"role": "assistant", "content": None, "tool_calls": [unknown]}, "tool_calls")),
    ]
    trajectory = map_spans(spans, scope=SCOPE)
    assert get_node(trajectory, node_id(2)).tool_definitions == ("get_weather",)
    assert get_node(trajectory, node_id(2, "call:call_9")).tool_name == "fetch_invoice"


def test_a_request_that_raised_answered_nothing_and_its_output_is_not_hidden() -> None:
    """``{"output": null}`` with the run's error: content was captured, the call returned no message."""
    message = "APITimeoutError('Request timed out.')Traceback (most recent call last): ..."
    event = ("exception", {"exception.type": "Exception", "exception.message": message})
    trajectory = map_spans([
        span(1, "support_agent", attrs={"langsmith.span.kind": "chain"}),
        _model(2, 1, [SYSTEM, USER], {"output": None}, events=[event]),
    ], scope=SCOPE)
    call = get_node(trajectory, node_id(2))
    assert (call.status, call.error_type) == (NodeStatus.FAILED, "APITimeoutError")
    hidden = [d for d in trajectory.declarations if node_id(2) in d.nodes and "output" in d.reason]
    assert hidden == []
