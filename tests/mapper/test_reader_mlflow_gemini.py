"""Google Gen AI ``generate_content`` calls under MLflow's Gemini autolog (:mod:`otel_mapper.mapping.gemini_contents`, read
by the MLflow reader), shaped as ``mlflow-tracing`` 3.17.2's ``mlflow.gemini.autolog()`` writes them on ``google-genai``
3.6.1 (``corpus/NOTES-frameworks-ci.md``): per request an LLM span ``Models.generate_content`` around an LLM span
``Models._generate_content`` (the one that sends it), both of message format ``gemini``, both with the call's arguments
as inputs (``contents`` of Gemini ``Content`` objects, ``config``) and the ``GenerateContentResponse`` as outputs
(``function_call`` parts with their ids), both with the usage; the app's functions under ``@mlflow.trace``."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

USER = {"role": "user", "parts": [{"text": "Weather in Paris?", "function_call": None}]}
CALL = {"function_call": {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}}, "text": None}
ERROR = "ServerError: 500 INTERNAL."


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _gemini(number: int, parent: int, name: str, contents: list[dict[str, Any]], parts: list[dict[str, Any]] | None,
            *, message_format: str = "gemini") -> Any:
    attrs: dict[str, Any] = {
        "mlflow.spanInputs": {"model": "gemini-2.5-flash", "contents": contents,
                              "config": {"system_instruction": "You are a support agent.", "temperature": 0.2}},
        "mlflow.message.format": message_format, "mlflow.llm.model": "gemini-2.5-flash",
        "mlflow.llm.provider": "gemini",
    }
    if parts is not None:  # a call that raised records no outputs
        attrs["mlflow.spanOutputs"] = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finish_reason": "STOP", "index": 0}],
            "response_id": f"resp_{parent}", "usage_metadata": {"prompt_token_count": 100,
                                                                "candidates_token_count": 20}}
        attrs["mlflow.chat.tokenUsage"] = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    return span(number, name, parent=parent, error=None if parts is not None else ERROR,
                attrs=_mlflow("LLM", **attrs))


def _request(outer: int, parent: int, contents: list[dict[str, Any]], parts: list[dict[str, Any]] | None,
             *, message_format: str = "gemini") -> list[Any]:
    """One request: the ``generate_content`` span and, inside it, the ``_generate_content`` span (id ``outer + 1``)."""
    return [_gemini(outer, parent, "Models.generate_content", contents, parts, message_format=message_format),
            _gemini(outer + 1, outer, "Models._generate_content", contents, parts, message_format=message_format)]


def _agent(number: int) -> Any:
    return span(number, "support_agent", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {}}))


def _tool(number: int, parent: int) -> Any:
    return span(number, "get_weather", parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": {"city": "Paris"}, "mlflow.spanOutputs": "Sunny"}))


def _two_turns() -> list[Any]:
    replayed = {"role": "model", "parts": [CALL]}
    result = {"role": "user", "parts": [{"function_response": {"id": "call_1", "name": "get_weather",
                                                               "response": {"output": "Sunny"}}}]}
    return [_agent(1), *_request(2, 1, [USER], [CALL]), _tool(4, 1),
            *_request(5, 1, [USER, replayed, result], [{"text": "Sunny."}])]


def test_the_span_around_the_request_span_is_one_model_call_kept_on_the_request() -> None:
    trajectory = map_spans(_two_turns())
    assert kinds(trajectory)["model_call"] == 2
    assert trajectory.node(node_id(2)) is None and trajectory.node(node_id(5)) is None
    assert get_node(trajectory, node_id(3)).kind is NodeKind.MODEL_CALL
    usage = [node.usage.input_tokens for node in trajectory.nodes if node.usage is not None]
    assert usage == [100, 100]  # each request's usage once, though both of its spans record it


def test_a_function_call_part_is_a_proposal_with_its_id_and_the_function_response_consumes_its_run() -> None:
    trajectory = map_spans(_two_turns())
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", "call_1")]
    assert has_edge(trajectory, node_id(3, "call:call_1"), EdgeType.CAUSED_BY, node_id(3))
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(3))  # the replayed answer, by its digest


def test_a_failed_request_recorded_by_both_spans_is_one_failed_model_call() -> None:
    trajectory = map_spans([_agent(1), *_request(2, 1, [USER], None)])
    assert kinds(trajectory)["model_call"] == 1
    assert get_node(trajectory, node_id(3)).status is NodeStatus.FAILED


def test_a_gemini_span_with_no_model_call_below_it_stays_the_call() -> None:
    trajectory = map_spans([_agent(1), _gemini(2, 1, "Models.generate_content", [USER], [CALL])])
    assert kinds(trajectory)["model_call"] == 1
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL


def test_nested_spans_of_another_message_format_that_read_the_same_answer_are_one_call() -> None:
    # No Gemini layer is named by the format; the two spans read the same response by its shape, so they are one
    # request recorded twice (:mod:`otel_mapper.mapping.wrapped_model_calls`, ``_same_answer``).
    trajectory = map_spans([_agent(1), *_request(2, 1, [USER], [CALL], message_format="openai")])
    assert kinds(trajectory)["model_call"] == 1
