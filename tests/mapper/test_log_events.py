"""GenAI events sent as OTLP log records, folded into a mapping copy of their span."""

from __future__ import annotations

import orjson
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue, KeyValueList
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.log_events import MAX_RECORDS_PER_SPAN, event_name, span_with_logs


def _kv(key: str, value: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def _kvlist(**fields: AnyValue) -> AnyValue:
    return AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=v) for k, v in fields.items()]))


def _s(text: str) -> AnyValue:
    return AnyValue(string_value=text)


def _span() -> Span:
    return Span(trace_id=b"t" * 16, span_id=b"s" * 8, name="chat gpt-4o", attributes=[_kv("gen_ai.operation.name", "chat")])


def _attrs(span: Span) -> dict[str, str]:
    return {kv.key: kv.value.string_value for kv in span.attributes}


def test_event_name_comes_from_the_field_or_the_attribute() -> None:
    assert event_name(LogRecord(event_name="gen_ai.choice")) == "gen_ai.choice"
    assert event_name(LogRecord(attributes=[_kv("event.name", "gen_ai.user.message")])) == "gen_ai.user.message"
    assert event_name(LogRecord()) == ""


def test_per_message_events_become_structured_messages_and_the_original_is_untouched() -> None:
    span = _span()
    original = span.SerializeToString()
    call = _kvlist(id=_s("call_1"), type=_s("function"), function=_kvlist(name=_s("search"), arguments=_s('{"q":"x"}')))
    records = [
        LogRecord(event_name="gen_ai.user.message", body=_kvlist(content=_s("find x"), role=_s("user"))),
        LogRecord(event_name="gen_ai.choice", body=_kvlist(
            index=AnyValue(int_value=0), finish_reason=_s("tool_calls"),
            message=_kvlist(role=_s("assistant"), tool_calls=AnyValue(array_value={"values": [call]})),
        )),
    ]
    copy = span_with_logs(span, records)
    assert span.SerializeToString() == original
    attrs = _attrs(copy)
    assert orjson.loads(attrs["gen_ai.input.messages"]) == [{"role": "user", "parts": [{"type": "text", "content": "find x"}]}]
    output = orjson.loads(attrs["gen_ai.output.messages"])
    assert output[0]["finish_reason"] == "tool_calls"
    assert output[0]["parts"] == [{"type": "tool_call", "id": "call_1", "name": "search", "arguments": {"q": "x"}}]


def test_inference_details_fill_only_missing_attributes() -> None:
    record = LogRecord(
        event_name="gen_ai.client.inference.operation.details",
        attributes=[_kv("gen_ai.operation.name", "other"), _kv("gen_ai.output.messages", "[]")],
    )
    attrs = _attrs(span_with_logs(_span(), [record]))
    assert attrs["gen_ai.operation.name"] == "chat" and attrs["gen_ai.output.messages"] == "[]"


def test_exception_records_become_exception_events() -> None:
    record = LogRecord(
        event_name="exception", attributes=[_kv("exception.type", "TimeoutError"), _kv("exception.message", "slow")]
    )
    copy = span_with_logs(_span(), [record])
    assert [event.name for event in copy.events] == ["exception"]
    assert {kv.key for kv in copy.events[0].attributes} == {"exception.type", "exception.message"}


def test_records_per_span_are_bounded() -> None:
    records = [LogRecord(event_name="exception", attributes=[_kv("exception.type", "E")])] * (MAX_RECORDS_PER_SPAN + 10)
    assert len(span_with_logs(_span(), records).events) == MAX_RECORDS_PER_SPAN


def test_non_text_bodies_do_not_break_the_copy() -> None:
    record = LogRecord(event_name="gen_ai.user.message", body=AnyValue(bytes_value=b"\xff\x00"))
    copy = span_with_logs(_span(), [record])
    assert orjson.loads(_attrs(copy)["gen_ai.input.messages"]) == [{"role": "user", "parts": []}]


def test_joined_choice_events_recover_the_tool_call_edge_the_span_alone_lacks() -> None:
    from otel_mapper.mapping.build import map_trace
    from otel_mapper.mapping.log_events import mapping_envelopes
    from tests.support.spans import envelopes, span

    spans = [
        span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
        span(2, "chat m", parent=1, attrs={"gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ["tool_calls"]}),
        span(3, "execute_tool search", parent=1,
             attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search", "gen_ai.tool.call.id": "call_1"}),
    ]
    items = envelopes(spans)
    call = _kvlist(id=_s("call_1"), type=_s("function"), function=_kvlist(name=_s("search"), arguments=_s("{}")))
    choice = LogRecord(event_name="gen_ai.choice", body=_kvlist(
        finish_reason=_s("tool_calls"), message=_kvlist(role=_s("assistant"), tool_calls=AnyValue(array_value={"values": [call]}))))
    alone = map_trace(items).trajectory
    joined = map_trace(mapping_envelopes(items, {(2).to_bytes(8, "big"): [choice]})).trajectory
    evidence = lambda t: {edge.evidence for edge in t.edges}  # noqa: E731
    assert "tool call id call_1" not in evidence(alone)
    assert "tool call id call_1" in evidence(joined)
    assert "tool_proposal" in {d.category.value for d in alone.declarations}
    assert "tool_proposal" not in {d.category.value for d in joined.declarations}
    assert [e.span.SerializeToString() for e in items] == [s.SerializeToString() for s in spans]  # originals untouched


def test_per_message_events_with_json_text_bodies_are_read_like_structured_ones() -> None:
    # Semantic Kernel logs each message through Python ``logging``: the body is the message's JSON text, and a
    # tool message names its call as a Chat Completions message does (``tool_call_id``).
    call = {"id": "call_1", "type": "function", "function": {"name": "SupportTools-get_weather",
                                                             "arguments": '{"city": "Paris"}'}}
    records = [
        LogRecord(attributes=[_kv("event.name", "gen_ai.user.message")],
                  body=_s(orjson.dumps({"role": "user", "content": "weather in Paris?"}).decode())),
        LogRecord(attributes=[_kv("event.name", "gen_ai.assistant.message")],
                  body=_s(orjson.dumps({"role": "assistant", "tool_calls": [call]}).decode())),
        LogRecord(attributes=[_kv("event.name", "gen_ai.tool.message")],
                  body=_s(orjson.dumps({"role": "tool", "content": "sunny", "tool_call_id": "call_1"}).decode())),
        LogRecord(attributes=[_kv("event.name", "gen_ai.choice")],
                  body=_s(orjson.dumps({"message": {"role": "assistant", "content": "Sunny."},
                                        "finish_reason": "stop"}).decode())),
    ]
    attrs = _attrs(span_with_logs(_span(), records))
    inputs = orjson.loads(attrs["gen_ai.input.messages"])
    assert inputs[0]["parts"] == [{"type": "text", "content": "weather in Paris?"}]
    assert inputs[1]["parts"] == [{"type": "tool_call", "id": "call_1", "name": "SupportTools-get_weather",
                                   "arguments": {"city": "Paris"}}]
    assert inputs[2]["parts"][0]["type"] == "tool_call_response" and inputs[2]["parts"][0]["id"] == "call_1"
    assert orjson.loads(attrs["gen_ai.output.messages"])[0]["parts"] == [{"type": "text", "content": "Sunny."}]


def test_a_plain_text_body_stays_the_message_content() -> None:
    records = [LogRecord(event_name="gen_ai.user.message", body=_s("{not json"))]
    inputs = orjson.loads(_attrs(span_with_logs(_span(), records))["gen_ai.input.messages"])
    assert inputs[0]["parts"] == [{"type": "text", "content": "{not json"}]


def test_records_are_grouped_by_trace_and_span_in_arrival_order() -> None:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    from otel_mapper.mapping.log_events import records_by_trace

    def record(trace: bytes, span: bytes, name: str) -> LogRecord:
        return LogRecord(trace_id=trace, span_id=span, event_name=name)

    request = ExportLogsServiceRequest()
    records = request.resource_logs.add().scope_logs.add().log_records
    records.extend([
        record(b"t" * 16, b"a" * 8, "gen_ai.user.message"),
        record(b"u" * 16, b"a" * 8, "other trace"),
        record(b"t" * 16, b"\0" * 8, "no span"),
        record(b"t" * 16, b"b" * 8, "gen_ai.choice"),
        record(b"t" * 16, b"a" * 8, "gen_ai.choice"),
    ])
    joined = records_by_trace([request])
    names = {trace: {span: [item.event_name for item in items] for span, items in spans.items()} for trace, spans in joined.items()}
    assert names == {
        b"t" * 16: {b"a" * 8: ["gen_ai.user.message", "gen_ai.choice"], b"b" * 8: ["gen_ai.choice"]},
        b"u" * 16: {b"a" * 8: ["other trace"]},
    }


def test_a_request_read_twice_gives_its_records_once_but_equal_records_of_two_requests_stay() -> None:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    from otel_mapper.mapping.log_events import records_by_trace

    def request_of(*names: str) -> ExportLogsServiceRequest:
        request = ExportLogsServiceRequest()
        request.resource_logs.add().scope_logs.add().log_records.extend(
            LogRecord(trace_id=b"t" * 16, span_id=b"a" * 8, event_name=name, body=_s("Paris")) for name in names
        )
        return request

    first = request_of("gen_ai.user.message")
    again = ExportLogsServiceRequest.FromString(first.SerializeToString())  # the same export, read from its other file
    later = request_of("gen_ai.user.message", "gen_ai.user.message")  # the user said it twice more
    joined = records_by_trace([first, again, later])
    assert [item.event_name for item in joined[b"t" * 16][b"a" * 8]] == ["gen_ai.user.message"] * 3
