"""Amazon Bedrock ``converse`` calls under MLflow's Bedrock autolog (:mod:`otel_mapper.mapping.converse_messages`, read by
the MLflow reader), shaped as ``mlflow-tracing`` 3.17.2's ``mlflow.bedrock.autolog()`` writes them on boto3 1.44
(``corpus/NOTES-frameworks-ci.md``): a ``BedrockRuntime.converse`` CHAT_MODEL span, message format ``bedrock``, the
call's keyword arguments as inputs (``system`` and ``messages`` in the Converse API's shape: ``toolUse`` and
``toolResult`` blocks), the Converse response as outputs (``output.message``); the app's functions under
``@mlflow.trace`` (AGENT, TOOL)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import edges_from, get_node, has_edge, kinds, map_spans, node_id, span

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
USER = {"role": "user", "content": [{"text": "Weather in Paris?"}]}
CALL = {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _converse(number: int, parent: int, messages: list[dict[str, Any]], blocks: list[dict[str, Any]] | None,
              *, message_format: str = "bedrock") -> Any:
    attrs: dict[str, Any] = {
        "mlflow.spanInputs": {"modelId": MODEL, "system": [{"text": "You are a support agent."}], "messages": messages,
                              "inferenceConfig": {"maxTokens": 1024}},
        "mlflow.message.format": message_format, "mlflow.llm.model": MODEL, "mlflow.llm.provider": "anthropic",
    }
    if blocks is not None:  # a call that raised records no outputs
        attrs["mlflow.spanOutputs"] = {
            "ResponseMetadata": {"RequestId": f"req-{number}", "HTTPStatusCode": 200},
            "output": {"message": {"role": "assistant", "content": blocks}}, "stopReason": "tool_use",
            "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}}
        attrs["mlflow.chat.tokenUsage"] = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    error = None if blocks is not None else "ThrottlingException: An error occurred (ThrottlingException)"
    return span(number, "BedrockRuntime.converse", parent=parent, error=error, attrs=_mlflow("CHAT_MODEL", **attrs))


def _agent(number: int) -> Any:
    return span(number, "support_agent", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {}}))


def _tool(number: int, parent: int) -> Any:
    return span(number, "get_weather", parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": {"city": "Paris"}, "mlflow.spanOutputs": "Sunny"}))


def _result(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "content": content,
                                                        "status": "success"}}]}


def _two_turns(result_content: list[dict[str, Any]], *, message_format: str = "bedrock") -> list[Any]:
    replayed = {"role": "assistant", "content": [CALL]}  # the response's blocks, sent back as they came
    return [_agent(1), _converse(2, 1, [USER], [CALL], message_format=message_format), _tool(3, 1),
            _converse(4, 1, [USER, replayed, _result(result_content)], [{"text": "Sunny."}],
                      message_format=message_format)]


def test_a_tool_use_block_of_the_response_is_a_proposal_with_its_id_and_arguments() -> None:
    trajectory = map_spans(_two_turns([{"text": "Sunny"}]))
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", "tooluse_1")]
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)


def test_the_tool_result_block_of_a_later_request_consumes_the_call() -> None:
    trajectory = map_spans(_two_turns([{"text": "Sunny"}]))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(2))  # the replayed answer, by its digest


def test_a_tool_result_given_as_one_json_item_is_consumed_too() -> None:
    trajectory = map_spans(_two_turns([{"json": {"forecast": "Sunny"}}]))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_failed_call_without_a_response_is_a_failed_model_call_proposing_nothing() -> None:
    trajectory = map_spans([_agent(1), _converse(2, 1, [USER], None)])
    assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED
    assert kinds(trajectory).get(NodeKind.TOOL_PROPOSAL.value, 0) == 0


def test_the_same_blocks_under_another_message_format_are_read_by_their_shape_and_say_so() -> None:
    # The format names no Converse call; the response's ``output.message`` and the request's ``toolUse`` /
    # ``toolResult`` blocks are read by their shape (:mod:`otel_mapper.mapping.wire_payloads`), and the edge says so.
    trajectory = map_spans(_two_turns([{"text": "Sunny"}], message_format="openai"))
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", "tooluse_1")]
    (made,) = edges_from(trajectory, proposals[0].id, EdgeType.CAUSED_BY)
    assert made.evidence == "Bedrock Converse response in attribute mlflow.spanOutputs"
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))
