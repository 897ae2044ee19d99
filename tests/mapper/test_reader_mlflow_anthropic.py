"""The Anthropic client's calls under MLflow's Anthropic autolog (:mod:`otel_mapper.mapping.anthropic_messages`, read by
the MLflow reader), shaped as ``mlflow-tracing`` 3.17.2's ``mlflow.anthropic.autolog()`` writes them on ``anthropic``
2.10.0 (``corpus/NOTES-frameworks-bz.md``): a ``Messages.create`` CHAT_MODEL span, message format ``anthropic``, the
call's keyword arguments as inputs (``system``, ``messages`` in the Messages API's shape), the response ``Message`` as
outputs (``tool_use`` blocks with their ids); the app's functions under ``@mlflow.trace`` (AGENT, TOOL)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, has_edge, kinds, map_spans, node_id, span

SYSTEM = "You are a support agent."
USER = {"role": "user", "content": "Weather in Paris?"}
CALL = {"id": "toolu_1", "input": {"city": "Paris"}, "name": "get_weather", "type": "tool_use"}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _create(number: int, parent: int, messages: list[dict[str, Any]], blocks: list[dict[str, Any]] | None) -> Any:
    attrs: dict[str, Any] = {
        "mlflow.spanInputs": {"max_tokens": 1024, "messages": messages, "model": "claude-haiku-4-5", "system": SYSTEM},
        "mlflow.message.format": "anthropic", "mlflow.llm.model": "claude-haiku-4-5", "mlflow.llm.provider": "anthropic",
    }
    if blocks is not None:  # a call that raised records no outputs
        attrs["mlflow.spanOutputs"] = {
            "id": f"msg_{number}", "content": [{**block, "caller": None} for block in blocks], "model": "claude-haiku-4-5",
            "role": "assistant", "stop_reason": "tool_use", "type": "message",
            "usage": {"input_tokens": 10, "output_tokens": 5}}
    return span(number, "Messages.create", parent=parent, attrs=_mlflow("CHAT_MODEL", **attrs))


def _agent(number: int) -> Any:
    return span(number, "support_agent", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {}}))


def _tool(number: int, parent: int) -> Any:
    return span(number, "get_weather", parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": {"city": "Paris"}, "mlflow.spanOutputs": "Sunny"}))


def _result(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}]}


def _two_turns(result_content: Any) -> list[Any]:
    replayed = {"role": "assistant", "content": [CALL]}  # the response's blocks, sent back without their null fields
    return [_agent(1), _create(2, 1, [USER], [CALL]), _tool(3, 1),
            _create(4, 1, [USER, replayed, _result(result_content)], [{"type": "text", "text": "Sunny."}])]


def test_a_tool_use_block_of_the_response_is_a_proposal_with_its_id_and_arguments() -> None:
    trajectory = map_spans(_two_turns("Sunny"))
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", "toolu_1")]
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)


def test_the_tool_result_block_of_a_later_request_consumes_the_call() -> None:
    trajectory = map_spans(_two_turns("Sunny"))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_tool_result_given_as_text_blocks_is_consumed_too() -> None:
    trajectory = map_spans(_two_turns([{"type": "text", "text": "Sunny"}]))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_failed_call_without_a_response_is_a_model_call_proposing_nothing() -> None:
    trajectory = map_spans([_agent(1), _create(2, 1, [USER], None)])
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL
    assert kinds(trajectory).get(NodeKind.TOOL_PROPOSAL.value, 0) == 0


def test_the_same_messages_in_another_message_format_are_read_by_their_shape_and_say_so() -> None:
    """A ``Message`` with a ``tool_use`` block under a format that names no Anthropic call is read by its shape
    (:mod:`otel_mapper.mapping.wire_payloads`); the proposal's edge names the shape and where it was read."""
    create = _create(2, 1, [USER], [CALL])
    for attr in create.attributes:
        if attr.key == "mlflow.message.format":
            attr.value.string_value = json.dumps("openai")
    trajectory = map_spans([_agent(1), create])
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert len(proposals) == 1
    (made,) = edges_from(trajectory, proposals[0].id, EdgeType.CAUSED_BY)
    assert made.evidence == "Anthropic Messages response in attribute mlflow.spanOutputs"
