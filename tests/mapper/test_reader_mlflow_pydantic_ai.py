"""Pydantic AI's model requests under MLflow's Pydantic AI autolog (:mod:`otel_mapper.mapping.pydantic_ai_messages`,
read by the MLflow reader), shaped as ``mlflow-tracing`` 3.18.0's ``mlflow.pydantic_ai.autolog()`` writes them on
``pydantic-ai-slim`` 2.68.0 (``corpus/NOTES-frameworks-cj.md``): an ``OpenAIChatModel.request`` LLM span, message
format ``pydantic_ai``, inputs ``{"messages": [ModelRequest / ModelResponse ...]}`` with Pydantic AI's parts
(``part_kind``), outputs the ``ModelResponse``; ``Agent.run`` (AGENT) and tool spans named after the tool (TOOL, the
arguments as inputs, no call id)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, has_edge, kinds, map_spans, node_id, span

USER = {"kind": "request", "instructions": "You are a support agent.", "parts": [
    {"part_kind": "user-prompt", "content": "Weather in Paris?", "timestamp": "2026-12-07 18:26:27+00:00"}]}
CALL = {"part_kind": "tool-call", "tool_name": "get_weather", "args": "{\"city\": \"Paris\"}",
        "tool_call_id": "call_1", "id": None}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _response(parts: list[dict[str, Any]], number: int) -> dict[str, Any]:
    return {"kind": "response", "parts": parts, "provider_response_id": f"chatcmpl-{number}",
            "usage": {"input_tokens": 10, "output_tokens": 5}, "finish_reason": "tool_call"}


def _request(number: int, parent: int, messages: list[dict[str, Any]], parts: list[dict[str, Any]] | None,
             message_format: str = "pydantic_ai") -> Any:
    attrs: dict[str, Any] = {"mlflow.spanInputs": {"messages": messages, "model_settings": {"temperature": 0.2}},
                             "mlflow.message.format": message_format, "mlflow.llm.model": "gpt-4o-mini"}
    if parts is not None:  # a request that raised records no outputs
        attrs["mlflow.spanOutputs"] = _response(parts, number)
    return span(number, "OpenAIChatModel.request", parent=parent, attrs=_mlflow("LLM", **attrs))


def _agent(number: int) -> Any:
    return span(number, "Agent.run", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {"user_prompt": "Weather?"},
                                                                "mlflow.message.format": "pydantic_ai"}))


def _tool(number: int, parent: int) -> Any:
    return span(number, "get_weather", parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": {"city": "Paris"}, "mlflow.spanOutputs": "Sunny"}))


def _two_turns(result: dict[str, Any]) -> list[Any]:
    replayed = _response([CALL], 2)
    follow_up = {"kind": "request", "parts": [result]}
    return [_agent(1), _request(2, 1, [USER], [CALL]), _tool(3, 1),
            _request(4, 1, [USER, replayed, follow_up], [{"part_kind": "text", "content": "Sunny."}])]


RETURN = {"part_kind": "tool-return", "tool_name": "get_weather", "content": "Sunny", "tool_call_id": "call_1"}


def test_a_tool_call_part_of_the_response_is_a_proposal_with_its_id_and_arguments() -> None:
    trajectory = map_spans(_two_turns(RETURN))
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", "call_1")]
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)


def test_the_tool_return_part_of_a_later_request_consumes_the_call() -> None:
    trajectory = map_spans(_two_turns(RETURN))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_retry_prompt_part_is_the_failed_result_of_its_call() -> None:
    """A tool's ``ModelRetry`` goes back to the model as a ``retry-prompt`` part of the call's id."""
    retry = {"part_kind": "retry-prompt", "tool_name": "get_weather", "content": "city not found",
             "tool_call_id": "call_1"}
    trajectory = map_spans(_two_turns(retry))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_failed_request_without_a_response_is_a_model_call_proposing_nothing() -> None:
    trajectory = map_spans([_agent(1), _request(2, 1, [USER], None)])
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL
    assert kinds(trajectory).get(NodeKind.TOOL_PROPOSAL.value, 0) == 0


def test_the_same_messages_in_another_message_format_are_read_by_their_shape_and_say_so() -> None:
    """A ``ModelResponse`` under a format that names no Pydantic AI request is read by its shape
    (:mod:`otel_mapper.mapping.wire_payloads`); the proposal's edge names the shape and where it was read."""
    trajectory = map_spans([_agent(1), _request(2, 1, [USER], [CALL], message_format="openai")])
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert len(proposals) == 1
    (made,) = edges_from(trajectory, proposals[0].id, EdgeType.CAUSED_BY)
    assert made.evidence == "Pydantic AI model response in attribute mlflow.spanOutputs"
