"""The Vertex AI instrumentation's per-message GenAI events (log records; corpus/NOTES-frameworks-bo.md): Gemini
content parts read as GenAI parts, its made-up ``<function name>_<index>`` ids dropped, a Gemini function response's
``output`` read as the result text, so that id-less results join the calls of the turn they answer
(:mod:`otel_mapper.mapping.gemini_event_parts`, :mod:`otel_mapper.mapping.prefix`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from opentelemetry.proto.common.v1.common_pb2 import KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from otel_mapper.mapping.build import map_trace
from otel_mapper.mapping.log_events import mapping_envelopes, span_with_logs
from otel_mapper.mapping.messages import read_input_messages
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import any_value, envelopes, has_edge, node_id, span

SYSTEM = "You are a support agent."
USER = "What's the weather in Paris?"
ARGS = {"city": "Paris"}
RESULT = "Paris: sunny"


def _record(event: str, body: Mapping[str, Any], system: str = "vertex_ai") -> LogRecord:
    return LogRecord(event_name=event, body=any_value(body), attributes=[KeyValue(key="gen_ai.system", value=any_value(system))])


def _first_turn(system: str = "vertex_ai") -> list[LogRecord]:
    call = {"function_call": {"name": "get_weather", "args": ARGS}}
    return [
        _record("gen_ai.system.message", {"role": "user", "content": [{"text": SYSTEM}]}, system),
        _record("gen_ai.user.message", {"role": "user", "content": [{"text": USER}]}, system),
        _record("gen_ai.choice", {
            "finish_reason": "stop", "index": 0, "message": {"role": "model", "content": [call]},
            "tool_calls": [{"id": "get_weather_0", "type": "function",
                            "function": {"name": "get_weather", "arguments": ARGS}}],
        }, system),
    ]


def _second_turn() -> list[LogRecord]:
    return [
        _record("gen_ai.system.message", {"role": "user", "content": [{"text": SYSTEM}]}),
        _record("gen_ai.user.message", {"role": "user", "content": [{"text": USER}]}),
        _record("gen_ai.assistant.message", {"role": "model", "content": [{"function_call": {"name": "get_weather", "args": ARGS}}]}),
        _record("gen_ai.tool.message", {"role": "user", "id": "get_weather_0", "content": {"output": RESULT}}),
        _record("gen_ai.choice", {"finish_reason": "stop", "index": 0,
                                  "message": {"role": "model", "content": [{"text": "It is sunny."}]}}),
    ]


def _messages(records: list[LogRecord], key: str) -> list[dict[str, Any]]:
    copy = span_with_logs(span(2, "chat gemini-2.5-flash"), records)
    attrs = {kv.key: kv.value.string_value for kv in copy.attributes}
    return list(orjson.loads(attrs[key]))


def test_gemini_parts_are_read_and_the_made_up_ids_dropped() -> None:
    inputs = _messages(_first_turn(), "gen_ai.input.messages")
    assert inputs == [{"role": "system", "parts": [{"type": "text", "content": SYSTEM}]},
                      {"role": "user", "parts": [{"type": "text", "content": USER}]}]
    outputs = _messages(_first_turn(), "gen_ai.output.messages")
    assert outputs[0]["parts"] == [{"type": "tool_call", "id": None, "name": "get_weather", "arguments": ARGS}]
    second = _messages(_second_turn(), "gen_ai.input.messages")
    assert second[2]["parts"] == [{"type": "tool_call", "id": None, "name": "get_weather", "arguments": ARGS}]
    assert second[3] == {"role": "tool", "parts": [{"type": "tool_call_response", "id": None, "response": {"output": RESULT}}]}


def test_ids_of_another_form_and_other_systems_are_kept() -> None:
    records = _first_turn()
    records[2] = _record("gen_ai.choice", {"index": 0, "message": {"role": "model"}, "tool_calls": [
        {"id": "lookup_order_0", "function": {"name": "get_weather", "arguments": ARGS}},
        {"id": "call_7f3a", "function": {"name": "get_weather", "arguments": ARGS}}]})
    assert [p["id"] for p in _messages(records, "gen_ai.output.messages")[0]["parts"]] == ["lookup_order_0", "call_7f3a"]
    other = _first_turn(system="aws.bedrock")
    assert _messages(other, "gen_ai.output.messages")[0]["parts"][0]["id"] == "get_weather_0"
    assert _messages(other, "gen_ai.input.messages")[1] == {"role": "user", "parts": []}  # Bedrock's reading unchanged


def test_a_gemini_function_response_output_is_an_id_less_result() -> None:
    id_less: list[tuple[int, int, str]] = []
    read_input_messages(_messages(_second_turn(), "gen_ai.input.messages"), id_less=id_less)
    assert [(position, answered) for position, answered, _ in id_less] == [(3, 2)]


def test_the_result_joins_the_call_of_its_turn() -> None:
    spans = [
        span(1, "invoke_agent support_agent", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"}),
        span(2, "chat gemini-2.5-flash", parent=1, attrs={"gen_ai.operation.name": "chat", "gen_ai.system": "vertex_ai",
                                                           "gen_ai.request.model": "gemini-2.5-flash"}),
        span(3, "execute_tool get_weather", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.arguments": orjson.dumps(ARGS).decode(), "gen_ai.tool.call.result": RESULT}),
        span(4, "chat gemini-2.5-flash", parent=1, attrs={"gen_ai.operation.name": "chat", "gen_ai.system": "vertex_ai",
                                                           "gen_ai.request.model": "gemini-2.5-flash"}),
    ]
    logs = {(2).to_bytes(8, "big"): _first_turn(), (4).to_bytes(8, "big"): _second_turn()}
    trajectory = map_trace(list(mapping_envelopes(envelopes(spans), logs))).trajectory
    proposals = [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert [(n.id, n.tool_call_id) for n in proposals] == [(f"{node_id(2)}#call#0", None)]
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, f"{node_id(2)}#call#0")
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))
