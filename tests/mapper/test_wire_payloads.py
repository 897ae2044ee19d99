"""A model call's messages read by their wire shape where its convention's reader left them unread
(:mod:`otel_mapper.mapping.wire_payloads`, :mod:`otel_mapper.mapping.wire_messages`): a provider's request and
response objects under an autolog's inputs and outputs in a message format its reader does not know, an
OpenInference LLM span that records only ``input.value`` / ``output.value``, a GenAI span whose response is the body
of an event. Each proposal so read names its shape and where it was read on its edge; an assistant message inside an
input is never read as the output."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, has_edge, map_spans, node_id, span

CALL_ID = "call_7"
ARGUMENTS = {"city": "Paris"}
USER = {"role": "user", "content": "Weather in Paris?"}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _agent(number: int) -> Any:
    return span(number, "weather_agent", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {"query": "Weather?"}}))


def _tool(number: int, parent: int) -> Any:
    return span(number, "get_weather", parent=parent, attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": ARGUMENTS, "mlflow.spanOutputs": "Sunny"}))


def _model(number: int, parent: int, inputs: Any, outputs: Any, message_format: str = "acme_framework") -> Any:
    attrs: dict[str, Any] = {"mlflow.spanInputs": inputs, "mlflow.message.format": message_format}
    if outputs is not None:
        attrs["mlflow.spanOutputs"] = outputs
    return span(number, "AcmeLLM.chat", parent=parent, attrs=_mlflow("CHAT_MODEL", **attrs))


def _chat_completion(message: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


ASSISTANT_CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": CALL_ID, "type": "function", "function": {"name": "get_weather", "arguments": json.dumps(ARGUMENTS)}}]}
TOOL_RESULT = {"role": "tool", "tool_call_id": CALL_ID, "content": "Sunny"}


def _proposals(trajectory: Any) -> list[Any]:
    return [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]


def _loop(first_output: Any, second_input: Any, *, message_format: str = "acme_framework") -> list[Any]:
    return [
        _agent(1),
        _model(2, 1, {"messages": [USER]}, first_output, message_format),
        _tool(3, 1),
        _model(4, 1, second_input, _chat_completion({"role": "assistant", "content": "Sunny."}), message_format),
    ]


LLAMA_INDEX_CALL = {"role": "assistant", "blocks": [], "additional_kwargs": {"tool_calls": ASSISTANT_CALL["tool_calls"]}}
LLAMA_INDEX_RESULT = {"role": "tool", "blocks": [{"block_type": "text", "text": "Sunny"}],
                      "additional_kwargs": {"tool_call_id": CALL_ID}}


def test_a_chat_response_under_an_unknown_message_format_gives_its_proposal_and_link() -> None:
    # LlamaIndex's ChatResponse and ChatMessage: calls and the result's call id only in ``additional_kwargs``.
    trajectory = map_spans(_loop({"message": LLAMA_INDEX_CALL, "raw": None},
                                 {"messages": [USER, LLAMA_INDEX_CALL, LLAMA_INDEX_RESULT]}))
    proposals = _proposals(trajectory)
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", CALL_ID)]
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)
    (made,) = edges_from(trajectory, proposals[0].id, EdgeType.CAUSED_BY)
    assert made.evidence == "chat response message in attribute mlflow.spanOutputs"
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))  # the tool message of its call id
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(2))  # the replayed answer, by its digest


def test_a_langchain_chat_result_is_read_too() -> None:
    langchain = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
                 "kwargs": {"content": "", "tool_calls": [{"name": "get_weather", "args": ARGUMENTS, "id": CALL_ID}]}}
    trajectory = map_spans(_loop({"generations": [[{"text": "", "message": langchain}]]},
                                 {"messages": [USER, ASSISTANT_CALL, TOOL_RESULT]}))
    proposals = _proposals(trajectory)
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", CALL_ID)]
    (made,) = edges_from(trajectory, proposals[0].id, EdgeType.CAUSED_BY)
    assert made.evidence == "LangChain chat result in attribute mlflow.spanOutputs"  # not the next input's replay
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_anthropic_and_responses_api_objects_are_read_by_their_shape() -> None:
    anthropic = {"id": "msg_1", "type": "message", "role": "assistant", "content": [
        {"type": "tool_use", "id": CALL_ID, "name": "get_weather", "input": ARGUMENTS}]}
    anthropic_input = {"system": "Be brief.", "messages": [USER, {"role": "assistant", "content": anthropic["content"]},
                       {"role": "user", "content": [{"type": "tool_result", "tool_use_id": CALL_ID,
                                                     "content": "Sunny"}]}]}
    responses = {"id": "resp_1", "object": "response", "output": [
        {"type": "function_call", "call_id": CALL_ID, "name": "get_weather", "arguments": json.dumps(ARGUMENTS)}]}
    responses_input = {"input": [{"role": "user", "content": "Weather in Paris?"}, responses["output"][0],
                                 {"type": "function_call_output", "call_id": CALL_ID, "output": "Sunny"}]}
    for output, second_input in ((anthropic, anthropic_input), (responses, responses_input)):
        trajectory = map_spans(_loop(output, second_input))
        proposals = _proposals(trajectory)
        assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", CALL_ID)], output
        assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3)), output


def test_an_assistant_message_inside_an_input_object_is_not_read_as_the_output() -> None:
    # The first call's output was not recorded; its input object holds an assistant message with a call (a replay).
    inputs = {"messages": [USER, ASSISTANT_CALL, TOOL_RESULT], "history": {"last": ASSISTANT_CALL}}
    trajectory = map_spans([_agent(1), _model(2, 1, {"request": inputs}, None)])
    assert _proposals(trajectory) == []


def test_a_value_of_no_known_shape_leaves_the_output_unread() -> None:
    trajectory = map_spans([_agent(1), _model(2, 1, {"prompt": "Weather?"}, {"result": {"text": "Sunny"}}), _tool(3, 1)])
    assert _proposals(trajectory) == []
    assert not edges_from(trajectory, node_id(3), EdgeType.CAUSED_BY) or all(
        edge.to_node != node_id(2) for edge in edges_from(trajectory, node_id(3), EdgeType.CAUSED_BY))


def test_an_openinference_llm_span_with_only_its_io_values_is_read_from_them() -> None:
    def llm(number: int, inputs: Any, outputs: Any) -> Any:
        return span(number, "ChatCompletion", parent=1, attrs={
            "openinference.span.kind": "LLM", "input.value": json.dumps(inputs), "input.mime_type": "application/json",
            "output.value": json.dumps(outputs), "output.mime_type": "application/json"})

    gemini = {"response_id": "r1", "candidates": [{"content": {"role": "model", "parts": [
        {"function_call": {"id": CALL_ID, "name": "get_weather", "args": ARGUMENTS}}]}}]}
    spans = [
        span(1, "agent", attrs={"openinference.span.kind": "AGENT"}),
        llm(2, {"contents": [{"role": "user", "parts": [{"text": "Weather?"}]}]}, gemini),
        span(3, "get_weather", parent=1, attrs={"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                                                "input.value": json.dumps(ARGUMENTS)}),
    ]
    trajectory = map_spans(spans)
    proposals = _proposals(trajectory)
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", CALL_ID)]
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)
    (made,) = edges_from(trajectory, proposals[0].id, EdgeType.CAUSED_BY)
    assert made.evidence == "Gemini response in attribute output.value"


def test_a_response_in_an_event_body_is_read_and_named() -> None:
    body = json.dumps({"index": 0, "finish_reason": "tool_calls", "message": ASSISTANT_CALL})
    spans = [
        span(1, "invoke_agent weather_agent", attrs={"gen_ai.operation.name": "invoke_agent",
                                                     "gen_ai.agent.name": "weather_agent"}),
        span(2, "chat gpt-4o", parent=1, attrs={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"},
             events=[("acme.llm.response", {"acme.body": body})]),
        span(3, "execute_tool get_weather", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": CALL_ID}),
    ]
    trajectory = map_spans(spans)
    proposals = _proposals(trajectory)
    assert [(p.tool_name, p.tool_call_id) for p in proposals] == [("get_weather", CALL_ID)]
    (made,) = edges_from(trajectory, proposals[0].id, EdgeType.CAUSED_BY)
    assert made.evidence == "chat response message in event acme.llm.response attribute acme.body"
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)
