"""One request recorded twice by one instrumentation, around the client's method and by it, folded into one model call
because both spans read the same answer (:func:`otel_mapper.mapping.wrapped_model_calls._same_answer`): the same
response id, the same tool calls by their ids, or the same failure; whatever reader read them, marked as a layer or
not. A model call whose only child read another answer stays a call of its own."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

CALL = {"function_call": {"id": "fc_1", "name": "get_weather", "args": {"city": "Paris"}}}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _gemini_response(response_id: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"response_id": response_id, "candidates": [{"content": {"role": "model", "parts": parts}}]}


def _call(number: int, parent: int, name: str, response: dict[str, Any] | None, error: str | None = None) -> Any:
    attrs: dict[str, Any] = {"mlflow.spanInputs": {"model": "gemini-2.5-flash", "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]}]}, "mlflow.message.format": "acme"}
    if response is not None:
        attrs["mlflow.spanOutputs"] = response
    return span(number, name, parent=parent, error=error, attrs=_mlflow("CHAT_MODEL", **attrs))


def _agent() -> Any:
    return span(1, "weather_agent", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {"query": "Weather?"}}))


def _tool(number: int) -> Any:
    return span(number, "get_weather", parent=1, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": {"city": "Paris"}, "mlflow.spanOutputs": "Sunny"}))


def test_two_layers_that_read_the_same_response_are_one_model_call() -> None:
    response = _gemini_response("resp-1", [CALL])
    trajectory = map_spans([_agent(), _call(2, 1, "Models.generate_content", response),
                            _call(3, 2, "Models._generate_content", response), _tool(4)])
    assert kinds(trajectory).get(NodeKind.MODEL_CALL.value) == 1
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert [proposal.tool_call_id for proposal in proposals] == ["fc_1"]
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, proposals[0].id)
    assert get_node(trajectory, node_id(3)).kind is NodeKind.MODEL_CALL  # the inner span, the request, keeps the node


def test_two_layers_that_failed_with_the_same_error_are_one_failed_call() -> None:
    error = "ServerError: 500 INTERNAL."
    trajectory = map_spans([_agent(), _call(2, 1, "Models.generate_content", None, error),
                            _call(3, 2, "Models._generate_content", None, error)])
    assert kinds(trajectory).get(NodeKind.MODEL_CALL.value) == 1
    assert get_node(trajectory, node_id(3)).status is NodeStatus.FAILED


def test_a_call_whose_only_child_read_another_answer_stays_a_call() -> None:
    # An agent-like model step that asked once more inside (another response): two calls.
    trajectory = map_spans([_agent(), _call(2, 1, "Router.chat", _gemini_response("resp-1", [CALL])),
                            _call(3, 2, "Models._generate_content", _gemini_response("resp-2", [{"text": "Sunny."}]))])
    assert kinds(trajectory).get(NodeKind.MODEL_CALL.value) == 2
    failed = map_spans([_agent(), _call(2, 1, "Router.chat", None, "RetryError: gave up"),
                        _call(3, 2, "Models._generate_content", None, "ServerError: 500 INTERNAL.")])
    assert kinds(failed).get(NodeKind.MODEL_CALL.value) == 2
