"""openinference-instrumentation-portkey (corpus/NOTES-frameworks-ch.md): an LLM span flattens the answer's message by
role and content alone, without its tool calls; the response, calls and ids included, is in ``output.value`` as a
chat completion body. The request's tools are in ``llm.invocation_parameters`` under ``kwargs`` (the wrapped method's
``**kwargs``), with no ``llm.tools.*``."""

from __future__ import annotations

import json

from otel_mapper.model import Trajectory
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
PARAMETERS = "llm.invocation_parameters"
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}


def _spans(body: dict | None, role: str = "assistant", parameters: dict | None = None) -> list:
    attrs: dict[str, object] = {
        KIND: "LLM", "llm.model_name": "gpt-4o-mini",
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Weather in Oslo?",
        "llm.output_messages.0.message.role": role, "llm.finish_reason": "tool_calls"}
    if parameters is not None:
        attrs[PARAMETERS] = json.dumps(parameters)
    if body is not None:
        attrs.update({"output.mime_type": "application/json", "output.value": json.dumps(body)})
    return [span(1, "support_agent", attrs={KIND: "AGENT"}), span(2, "Completions", parent=1, attrs=attrs),
            span(3, "get_weather", parent=1, attrs={KIND: "TOOL", "tool.name": "get_weather", "tool.id": "call_1"})]


def _body(role: str = "assistant") -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": role, "content": None, "tool_calls": [CALL]}}]}


def _proposals(spans: list) -> tuple[Trajectory, list[str]]:
    trajectory = map_spans(spans)
    return trajectory, [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]


def test_calls_read_from_the_recorded_chat_completion() -> None:
    trajectory, proposals = _proposals(_spans(_body()))
    assert proposals == [f"{node_id(2)}#call:call_1"], proposals
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, f"{node_id(2)}#call:call_1")


def test_without_the_recorded_response_no_call_is_proposed() -> None:
    _, proposals = _proposals(_spans(None))
    assert proposals == [], proposals


def test_a_body_whose_choice_is_another_message_is_not_read() -> None:
    _, proposals = _proposals(_spans(_body(role="tool")))
    assert proposals == [], proposals


def _schema(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}


def _with_parameters(parameters: dict) -> list:
    return _spans(_body(), parameters=parameters)


def test_offered_tools_read_from_the_keyword_arguments_of_the_invocation_parameters() -> None:
    parameters = {"model": "gpt-4o-mini", "kwargs": {"tools": [_schema("get_weather"), _schema("lookup_order")]}}
    llm = get_node(map_spans(_with_parameters(parameters)), node_id(2))
    assert llm.tool_definitions == ("get_weather", "lookup_order")


def test_offered_tools_read_from_the_invocation_parameters() -> None:
    llm = get_node(map_spans(_with_parameters({"tools": [_schema("get_weather")]})), node_id(2))
    assert llm.tool_definitions == ("get_weather",)


def test_parameters_without_tools_leave_the_offered_tools_unknown() -> None:
    llm = get_node(map_spans(_with_parameters({"model": "gpt-4o-mini", "kwargs": {"timeout": 1.0}})), node_id(2))
    assert llm.tool_definitions is None
