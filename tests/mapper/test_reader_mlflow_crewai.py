"""CrewAI's native tool calls and agents under MLflow's CrewAI autolog (:mod:`otel_mapper.mapping.readers.mlflow_crewai`,
read by the MLflow reader), shaped as ``mlflow-tracing`` 3.18.0's ``mlflow.crewai.autolog()`` writes them on
``crewai`` 1.15.30 with ``mlflow.openai.autolog()`` for the native provider's requests
(``corpus/NOTES-frameworks-cj.md``): an agent span named after the agent's role (AGENT, the agent's fields among its
attributes, the answer as outputs when ``execute_task`` returned), a ``Completions`` CHAT_MODEL span per request, a
TOOL span per native tool call named after the tool, inputs ``{"tool_name", "tool_args"}``, outputs ``{"result"}``,
OK whatever the result says."""

from __future__ import annotations

import json
from typing import Any

from otel_mapper.model import NodeStatus
from semconv.trajectory import EdgeType
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

USER = {"role": "user", "content": "Weather in Paris?"}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{\"city\": \"Paris\"}"}}


def _completions(number: int, parent: int, name: str = "get_weather") -> Any:
    return span(number, "Completions", parent=parent, attrs=_mlflow("CHAT_MODEL", **{
        "mlflow.spanInputs": {"messages": [USER], "model": "gpt-4o-mini"}, "mlflow.message.format": "openai",
        "mlflow.chat.tools": [{"type": "function", "function": {"name": "get_weather"}}],
        "mlflow.spanOutputs": {"id": f"chatcmpl-{number}", "choices": [{"index": 0, "finish_reason": "tool_calls",
                               "message": {"role": "assistant", "content": None,
                                           "tool_calls": [_call("call_1", name)]}}]}}))


def _agent(number: int, answer: str | None) -> Any:
    attrs: dict[str, Any] = {"mlflow.spanInputs": {"task": {"description": "Weather?"}}, "role": "support_agent",
                             "goal": "Answer the customer's request using the tools."}
    if answer is not None:  # a call that raised records no outputs
        attrs["mlflow.spanOutputs"] = answer
    return span(number, "support_agent", attrs=_mlflow("AGENT", **attrs))


def _native_tool(number: int, parent: int, result: str, name: str = "get_weather",
                 inputs: dict[str, Any] | None = None) -> Any:
    recorded = inputs if inputs is not None else {"tool_name": name, "tool_args": {"city": "Paris"}}
    return span(number, name, parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": recorded, "mlflow.spanOutputs": {"result": result}}))


def test_a_native_tool_call_span_runs_the_proposal_its_tool_args_match() -> None:
    trajectory = map_spans([_agent(1, "Sunny."), _completions(2, 1), _native_tool(3, 1, "Paris: sunny")])
    assert get_node(trajectory, node_id(3)).status is NodeStatus.COMMITTED
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))


def test_a_result_that_reports_a_failed_tool_fails_the_execution() -> None:
    trajectory = map_spans([_agent(1, "Sorry."), _completions(2, 1),
                            _native_tool(3, 1, "Error executing tool: city 'Paris' not found")])
    node = get_node(trajectory, node_id(3))
    assert node.status is NodeStatus.FAILED
    assert node.error_message == "Error executing tool: city 'Paris' not found"


def test_a_result_that_rejects_the_tool_as_unknown_is_the_execution_of_an_unknown_tool() -> None:
    trajectory = map_spans([_agent(1, "Sorry."), _completions(2, 1, "fetch_invoice"),
                            _native_tool(3, 1, "Tool not found", name="fetch_invoice")])
    assert get_node(trajectory, node_id(3)).unknown_tools == ("fetch_invoice",)


def test_tool_args_of_another_tool_name_are_not_read_as_the_call_arguments() -> None:
    """Guard: only a span whose ``tool_name`` is its own tool is a native tool call's span."""
    other = {"tool_name": "lookup_order", "tool_args": {"city": "Paris"}}
    trajectory = map_spans([_agent(1, "Sorry."), _completions(2, 1),
                            _native_tool(3, 1, "Error executing tool: boom", inputs=other)])
    assert get_node(trajectory, node_id(3)).status is NodeStatus.COMMITTED
    assert not has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))


def test_a_role_named_agent_span_with_its_answer_returned_it() -> None:
    trajectory = map_spans([_agent(1, "Sunny."), _completions(2, 1)])
    assert get_node(trajectory, node_id(1)).returned_answer is True


def test_a_role_named_agent_span_without_outputs_or_another_name_returned_nothing() -> None:
    """Guards: no outputs (the call raised), or a span whose name is not the role it records."""
    failed = map_spans([_agent(1, None), _completions(2, 1)])
    assert get_node(failed, node_id(1)).returned_answer is False
    renamed = _agent(1, "Sunny.")
    renamed.name = "Agent workflow"
    assert get_node(map_spans([renamed, _completions(2, 1)]), node_id(1)).returned_answer is False
