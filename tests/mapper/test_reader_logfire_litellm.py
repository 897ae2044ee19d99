"""``logfire.instrument_litellm()`` (``logfire`` 5.4.0): OpenInference's ``LiteLLMInstrumentor`` on Logfire's tracer
provider. Its ``completion`` span is an OpenInference ``LLM`` span (flattened ``llm.input_messages`` /
``llm.output_messages``, a tool message with no call id) that Logfire's tracer marks (``logfire.span_type``,
``logfire.msg``) and, when the span has an output, Logfire's span processor adds keys to at its end (``request_data``,
``response_data``, ``gen_ai.request.model``, ``gen_ai.system``, usage, ``logfire.tags``); a failed request's span gets
none of them. Around it an application's ``logfire.span`` agent loop (scope ``logfire``).

Frameworks DM: such a span is read by the OpenInference reader (its own convention), not by the Pydantic AI / Logfire
reader, whose markers here are only the keys Logfire's tracer writes on every span it starts."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

OI_SCOPE = "openinference.instrumentation.litellm"
SYSTEM = "You are a support agent."
USER = "where is A-1?"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _app(number: int, template: str, parent: int | None = None, **attrs: Any) -> Any:
    """A ``logfire.span`` block: the message template as the name, the keyword arguments as attributes."""
    values = {"logfire.span_type": "span", "logfire.msg_template": template, "logfire.msg": template, **attrs}
    return span(number, template, parent=parent, attrs=values)


def _completion(number: int, parent: int, *, replay: bool, answer: str | None, error: str | None = None) -> Any:
    """OpenInference's ``completion`` span under Logfire: the first request (system, user) or the second (with the
    replayed call and its result, the tool message without a call id), answered by a call or by text, or failed."""
    attrs: dict[str, Any] = {
        "logfire.span_type": "span", "logfire.msg": "completion", "openinference.span.kind": "LLM",
        "llm.model_name": "openai/gpt-4o-mini", "llm.provider": "openai",
        "llm.input_messages.0.message.role": "system", "llm.input_messages.0.message.content": SYSTEM,
        "llm.input_messages.1.message.role": "user", "llm.input_messages.1.message.content": USER,
        "llm.tools.0.tool.json_schema": _dumps({"type": "function", "function": {"name": "lookup_order"}}),
    }
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
    if replay:
        attrs.update({
            "llm.input_messages.2.message.role": "assistant",
            "llm.input_messages.2.message.tool_calls.0.tool_call.id": "call_1",
            "llm.input_messages.2.message.tool_calls.0.tool_call.function.name": "lookup_order",
            "llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments": '{"order_id": "A-1"}',
            "llm.input_messages.3.message.role": "tool", "llm.input_messages.3.message.content": "shipped"})
        messages += [{"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "shipped"}]
    attrs["input.value"] = _dumps({"messages": messages})
    attrs["input.mime_type"] = "application/json"
    if error is not None:
        attrs["logfire.level_num"] = 17
        return span(number, "completion", parent=parent, attrs=attrs, error=error)
    if answer is None:
        attrs.update({
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup_order",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"order_id": "A-1"}',
            "llm.finish_reason": "tool_calls", "output.value": "{}", "output.mime_type": "application/json"})
    else:
        attrs.update({"llm.output_messages.0.message.role": "assistant",
                      "llm.output_messages.0.message.content": answer, "llm.finish_reason": "stop",
                      "output.value": answer})
    # Logfire's span processor, at the end of a span with an output.
    attrs.update({"request_data": attrs["input.value"], "response_data": _dumps({"message": {"role": "assistant"}}),
                  "gen_ai.request.model": "openai/gpt-4o-mini", "gen_ai.system": "openai",
                  "gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 5, "logfire.tags": ["LLM"]})
    return span(number, "completion", parent=parent, attrs=attrs)


def _app_spans() -> list[Any]:
    return [
        _app(1, "support workflow {workflow}", workflow="support_workflow"),
        _app(2, "invoke_agent {gen_ai.agent.name}", 1, **{"gen_ai.operation.name": "invoke_agent",
                                                          "gen_ai.agent.name": "support_agent"}),
        _app(4, "execute_tool {gen_ai.tool.name}", 2, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order",
            "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.arguments": _dumps({"order_id": "A-1"}),
            "gen_ai.tool.call.result": "shipped"}),
    ]


def _loop(second: Any) -> list[tuple[str, list[Any]]]:
    model = [_completion(3, 2, replay=False, answer=None), second]
    return [("logfire", _app_spans()), (OI_SCOPE, model)]


def test_the_completion_span_proposes_the_call_the_tool_run_executes() -> None:
    trajectory = map_scoped_spans(_loop(_completion(5, 2, replay=True, answer="It shipped.")))
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    call = get_node(trajectory, node_id(3))
    assert (call.kind, call.convention) == (NodeKind.MODEL_CALL, "openinference")
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_the_next_request_consumes_the_tool_run() -> None:
    trajectory = map_scoped_spans(_loop(_completion(5, 2, replay=True, answer="It shipped.")))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))


def test_a_failed_request_without_logfire_s_keys_is_a_failed_model_call_consuming_the_run() -> None:
    trajectory = map_scoped_spans(_loop(_completion(5, 2, replay=True, answer=None, error="litellm.InternalServerError")))
    call = get_node(trajectory, node_id(5))
    assert (call.kind, call.status) == (NodeKind.MODEL_CALL, NodeStatus.FAILED)
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))


def test_a_logfire_span_with_a_pydantic_ai_marker_stays_with_the_pydantic_ai_reader() -> None:
    """Guard: a span carrying a Pydantic AI key of its own besides an OpenInference kind is still Pydantic AI's."""
    attrs = {"logfire.span_type": "span", "logfire.msg": "agent run", "openinference.span.kind": "AGENT",
             "pydantic_ai.all_messages": "[]", "gen_ai.agent.name": "support_agent"}
    trajectory = map_scoped_spans([("pydantic-ai", [span(1, "agent run", attrs=attrs)])])
    assert get_node(trajectory, node_id(1)).convention == "pydantic_ai"
