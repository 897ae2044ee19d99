"""OTLP/JSON codec: hex ids, round trip with protobuf, content detection, clear errors."""

from __future__ import annotations

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp.json_codec import (
    OtlpDecodeError,
    decode_any,
    decode_json_lines,
    decode_log_lines,
    encode_json_line,
)


def sample() -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    span = scope.spans.add(trace_id=bytes(range(16)), span_id=bytes(range(1, 9)), parent_span_id=bytes(range(2, 10)),
                           name="chat m", kind=3, start_time_unix_nano=1_700_000_000_000_000_000)
    span.attributes.add(key="gen_ai.operation.name").value.string_value = "chat"
    link = span.links.add(trace_id=bytes(range(16)), span_id=bytes(range(3, 11)))
    link.attributes.add(key="k").value.int_value = 3
    return request


def test_ids_are_hex_and_round_trip() -> None:
    line = encode_json_line(sample())
    data = orjson.loads(line)
    span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert span["traceId"] == bytes(range(16)).hex()
    assert span["spanId"] == bytes(range(1, 9)).hex()
    assert span["links"][0]["spanId"] == bytes(range(3, 11)).hex()
    assert span["kind"] == 3
    (decoded,) = decode_json_lines(line)
    assert decoded == sample()


def test_lines_and_binary_are_detected() -> None:
    lines = encode_json_line(sample()) + b"\n" + encode_json_line(sample())
    assert len(decode_any(lines)) == 2
    assert decode_any(sample().SerializeToString()) == [sample()]


def test_bad_hex_id_names_the_field() -> None:
    bad = b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz","spanId":"0102030405060708"}]}]}]}'
    with pytest.raises(OtlpDecodeError, match="traceId"):
        decode_json_lines(bad)


def test_garbage_is_refused() -> None:
    with pytest.raises(OtlpDecodeError):
        decode_any(b"\xff\xfe\x00garbage")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"resourceSpans": {"scopeSpans": []}}', r"line 2\.resourceSpans must be an array"),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}', r"line 2\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\] must be an object"),
        (b"[1, 2]", "line 2 must be a JSON object"),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": 5}]}]}]}', "line 2 is not a valid OTLP/JSON"),
    ],
    ids=["array expected", "object expected", "not an object", "wrong field type"],
)
def test_a_malformed_line_is_refused_with_its_place(line: bytes, message: str) -> None:
    with pytest.raises(OtlpDecodeError, match=message):
        decode_json_lines(encode_json_line(sample()) + line + b"\n")


def test_proto_field_names_and_their_ids_are_accepted() -> None:
    """json_format takes proto field names too; their hex ids are converted like the camelCase ones."""
    trace_id, span_id = bytes(range(16)).hex(), bytes(range(1, 9)).hex()
    line = orjson.dumps({"resource_spans": [{"scope_spans": [{"spans": [{"trace_id": trace_id, "span_id": span_id, "name": "s"}]}]}]})
    (decoded,) = decode_json_lines(line)
    span = decoded.resource_spans[0].scope_spans[0].spans[0]
    assert (span.trace_id, span.span_id, span.name) == (bytes(range(16)), bytes(range(1, 9)), "s")


def test_log_requests_are_read_one_per_line_with_hex_ids() -> None:
    record = {"eventName": "gen_ai.choice", "traceId": "ab" * 16, "spanId": "cd" * 8, "body": {"stringValue": "x"}}
    line = orjson.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]})
    requests = decode_log_lines(line + b"\n\n" + line + b"\n")
    assert len(requests) == 2
    parsed = requests[0].resource_logs[0].scope_logs[0].log_records[0]
    assert (parsed.trace_id, parsed.span_id, parsed.event_name) == (bytes.fromhex("ab" * 16), bytes.fromhex("cd" * 8), "gen_ai.choice")
    with pytest.raises(OtlpDecodeError, match="line 2"):
        decode_log_lines(line + b"\n{not json\n")
