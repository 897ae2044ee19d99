"""``logfire.instrument_google_genai()`` (``logfire`` 5.4.0): the OpenTelemetry contrib ``GoogleGenAiSdkInstrumentor``
on Logfire's tracer provider, whose span processor rewrites each ``generate_content <model>`` span at its end
(``gen_ai.operation.name`` ``chat`` in place of ``generate_content``, ``gen_ai.system`` ``gemini``, and Logfire's own
``logfire.span_type`` / ``logfire.msg``; a failed request's span ``gen_ai.response.model`` = the request's model),
around an application's ``logfire.span`` agent loop (scope ``logfire``).

Regression guard for Frameworks CY: the first contact read these shapes right with the rules already in place (the
Logfire spans by the Pydantic AI / Logfire reader, GenAI parts messages with call ids), so no rule was added; these
tests pin that reading."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

MODEL_SCOPE = "opentelemetry.instrumentation.google_genai"
USER = {"role": "user", "parts": [{"type": "text", "content": "where is A-1?"}], "name": None}
CALL = {"type": "tool_call", "id": "call_1", "name": "lookup_order", "arguments": {"order_id": "A-1"}}
RESULT = {"type": "tool_call_response", "id": "call_1", "response": {"output": "shipped"}}


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _app(number: int, template: str, parent: int | None = None, **attrs: Any) -> Any:
    """A ``logfire.span`` block: the message template as the name, the keyword arguments as attributes."""
    values = {"logfire.span_type": "span", "logfire.msg_template": template, "logfire.msg": template, **attrs}
    return span(number, template, parent=parent, attrs=values)


def _generate(number: int, parent: int, inputs: list[Any], output_parts: list[Any] | None, *,
              error: str | None = None, error_type: str | None = None) -> Any:
    """The contrib span after Logfire's rewrite; nothing out for a request that raised."""
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat", "gen_ai.system": "gemini", "gen_ai.provider.name": "gemini",
        "gen_ai.request.model": "gemini-2.5-flash", "gen_ai.response.model": "gemini-2.5-flash",
        "logfire.span_type": "span", "logfire.msg": "generate_content gemini-2.5-flash",
        "gen_ai.input.messages": _dumps(inputs),
        "gen_ai.tool.definitions": _dumps([{"name": "lookup_order", "description": "Look up an order.",
                                            "parameters": {"type": "OBJECT"}, "type": "function"}])}
    if output_parts is not None:
        attrs["gen_ai.output.messages"] = _dumps(
            [{"role": "assistant", "parts": output_parts, "finish_reason": "stop", "name": None}])
        attrs.update({"gen_ai.response.finish_reasons": ["stop"], "gen_ai.usage.input_tokens": 20,
                      "gen_ai.usage.output_tokens": 5})
    if error_type is not None:
        attrs["error.type"] = error_type
    return span(number, "generate_content gemini-2.5-flash", parent=parent, attrs=attrs, error=error,
                kind=3)  # CLIENT


def _loop() -> list[tuple[str, list[Any]]]:
    """workflow -> agent -> a model call proposing ``call_1``, the tool span that runs it (with the call id), and the
    model call whose input carries its result."""
    app = [
        _app(1, "support workflow {workflow}", workflow="support_workflow"),
        _app(2, "invoke_agent {gen_ai.agent.name}", 1, **{"gen_ai.operation.name": "invoke_agent",
                                                          "gen_ai.agent.name": "support_agent"}),
        _app(4, "execute_tool {gen_ai.tool.name}", 2, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order",
            "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.arguments": _dumps({"order_id": "A-1"}),
            "gen_ai.tool.call.result": "shipped"}),
    ]
    second_input = [USER, {"role": "assistant", "parts": [CALL], "name": None},
                    {"role": "user", "parts": [RESULT], "name": None}]
    model = [_generate(3, 2, [USER], [CALL]),
             _generate(5, 2, second_input, [{"type": "text", "content": "It shipped."}])]
    return [("logfire", app), (MODEL_SCOPE, model)]


def test_the_rewritten_span_is_a_model_call_whose_tool_call_part_the_tool_run_executes() -> None:
    trajectory = map_scoped_spans(_loop())
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(3)).kind is NodeKind.MODEL_CALL
    proposal = get_node(trajectory, node_id(3, "call:call_1"))
    assert (proposal.kind, proposal.tool_name) == (NodeKind.TOOL_PROPOSAL, "lookup_order")
    assert get_node(trajectory, node_id(4)).kind is NodeKind.TOOL_EXECUTION
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_the_next_request_s_tool_call_response_consumes_the_run() -> None:
    trajectory = map_scoped_spans(_loop())
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))


def test_a_failed_request_with_logfire_s_default_response_model_is_a_failed_call_proposing_nothing() -> None:
    app = [_app(1, "invoke_agent {gen_ai.agent.name}", **{"gen_ai.operation.name": "invoke_agent",
                                                          "gen_ai.agent.name": "support_agent"})]
    model = [_generate(2, 1, [USER], None, error="500 INTERNAL.", error_type="500")]
    trajectory = map_scoped_spans([("logfire", app), (MODEL_SCOPE, model)])
    call = get_node(trajectory, node_id(2))
    assert (call.kind, call.status) == (NodeKind.MODEL_CALL, NodeStatus.FAILED)
    assert not [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
