"""The OTLP/HTTP receiver's refusals: malformed protobuf and JSON, unsupported content types and encodings, spans
refused through partial success, backpressure as 503 with Retry-After (before decoding when the pipeline has no room), a
failing sink as 500; each with the status body OTLP specifies."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import orjson
import pytest
from google.protobuf import json_format
from google.rpc import code_pb2, error_details_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from otel_mapper.otlp.held import HeldSpan
from processor.pipeline.http_receiver import JSON, PROTOBUF
from processor.pipeline.intake import Backpressure
from tests.support.http_receiver import SPAN_ID, TRACE_ID, exchange, json_trace_body, trace_request
from tests.support.room import MESSAGE, Room, layered_request

pytestmark = pytest.mark.slow  # starts servers or processes


def test_malformed_protobuf_is_400_with_a_status_body() -> None:
    reply, counters, sinks = exchange(b"\xff\xff\xff\x07garbage")
    assert reply.status == 400 and reply.headers["Content-Type"] == PROTOBUF
    status = reply.status_message()
    assert status.code == code_pb2.INVALID_ARGUMENT and "not a valid ExportTraceServiceRequest" in status.message
    bad_request = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(bad_request) and bad_request.field_violations[0].description == status.message
    assert sinks.traces == [] and counters.invalid_requests == 1


def _deep_any_value(levels: int) -> bytes:
    value = '{"stringValue": "x"}'
    opening = '{"arrayValue": {"values": [' * levels
    closing = "]}}" * levels
    span = f'{{"traceId": "{TRACE_ID.hex()}", "spanId": "{SPAN_ID.hex()}", '
    span += f'"attributes": [{{"key": "k", "value": {opening}{value}{closing}}}]}}'
    return f'{{"resourceSpans": [{{"scopeSpans": [{{"spans": [{span}]}}]}}]}}'.encode()


MALFORMED_JSON = {
    "truncated": (b'{"resourceSpans": [', "not valid JSON"),
    "nan": (b'{"resourceSpans": NaN}', "not valid JSON"),
    "invalid utf-8": (b'{"resourceSpans": [], "x": "\xff\xfe"}', "not valid JSON"),
    "nested past orjson's limit": (b"[" * 5000 + b"]" * 5000, "not valid JSON"),
    "top level array": (b"[]", "must be a JSON object"),
    "resourceSpans not an array": (b'{"resourceSpans": {"scopeSpans": []}}', "$.resourceSpans must be an array"),
    "span not an object": (b'{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}', "spans[0] must be an object"),
    "id not hex": (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "zz"}]}]}]}', "must be a hex string"),
    "id not a string": (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": 12}]}]}]}', "spanId"),
    "number out of range": (
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": 1e300}]}]}]}', "startTimeUnixNano"
    ),
    "AnyValue nested past protobuf's depth": (_deep_any_value(200), "not a valid OTLP/JSON"),
    "empty body": (b"", "not valid JSON"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_JSON))
def test_malformed_json_is_400_with_a_json_status(case: str, caplog: pytest.LogCaptureFixture) -> None:
    body, expected = MALFORMED_JSON[case]
    caplog.set_level(logging.DEBUG)
    reply, counters, sinks = exchange(body, content_type=JSON)
    assert reply.status == 400 and reply.headers["Content-Type"] == JSON
    status = reply.status_message()
    assert status.code == code_pb2.INVALID_ARGUMENT and expected in status.message
    assert sinks.traces == [] and counters.invalid_requests == 1
    above_debug = [r for r in caplog.records if r.levelno > logging.DEBUG]
    assert not [r for r in above_debug if r.levelno >= logging.WARNING or status.message in r.getMessage()]


def test_unsupported_content_type_and_encoding_are_415() -> None:
    raw = trace_request().SerializeToString()
    by_type, type_counters, sinks = exchange(raw, content_type="text/plain")
    by_encoding, encoding_counters, _ = exchange(raw, headers={"Content-Encoding": "br"}, sinks=sinks)
    assert by_type.status == 415 and "text/plain" in by_type.status_message().message
    assert by_encoding.status == 415 and "'br'" in by_encoding.status_message().message
    assert "send gzip, deflate or identity" in by_encoding.status_message().message
    assert sinks.traces == [] and type_counters.invalid_requests == encoding_counters.invalid_requests == 1


@pytest.mark.parametrize("coding", ["zstd", "snappy", "lz4"])
def test_collector_encodings_without_a_decoder_here_are_415_not_garbage(coding: str) -> None:
    reply, counters, sinks = exchange(b"\x28\xb5\x2f\xfd" + bytes(16), headers={"Content-Encoding": coding})
    assert reply.status == 415 and "send gzip, deflate or identity" in reply.status_message().message
    assert sinks.traces == [] and counters.invalid_requests == 1


def test_all_zero_span_id_is_refused_through_partial_success() -> None:
    raw = trace_request(SPAN_ID, bytes(8)).SerializeToString()
    reply, counters, sinks = exchange(raw)
    partial = ExportTraceServiceResponse.FromString(reply.body).partial_success
    assert reply.status == 200 and partial.rejected_spans == 1 and "span_id is all zero" in partial.error_message
    assert [e.span.span_id for e in sinks.traces[0][0]] == [SPAN_ID]
    assert counters.accepted_spans == 1 and counters.rejected_spans == 1


def test_partial_success_in_json_uses_camel_case() -> None:
    reply, counters, _ = exchange(json_trace_body(span_id="0000000000000000"), content_type=JSON)
    answer = orjson.loads(reply.body)
    assert reply.status == 200 and int(answer["partialSuccess"]["rejectedSpans"]) == 1
    assert "span_id is all zero" in answer["partialSuccess"]["errorMessage"]
    assert counters.accepted_spans == 0 and counters.rejected_spans == 1


@pytest.mark.parametrize(("delay", "header"), [(2.5, "3"), (0.2, "1")])
def test_backpressure_is_503_with_retry_after(delay: float, header: str) -> None:
    async def refuse(spans: Sequence[HeldSpan], body: bytes, *_: object) -> None:
        raise Backpressure("export queue is full", retry_after=delay)

    reply, counters, _ = exchange(trace_request().SerializeToString(), traces=refuse)
    assert reply.status == 503 and reply.headers["Retry-After"] == header
    status = reply.status_message()
    info = error_details_pb2.RetryInfo()
    assert status.code == code_pb2.UNAVAILABLE and "export queue is full" in status.message
    assert status.details[0].Unpack(info) and info.retry_delay.seconds == int(header)
    assert counters.refused_spans == 1 and counters.accepted_spans == 0


LAYERED = ((3, 0), (1,), (2, 1, 1))
"""Eight spans under three resources and five scopes (one scope empty)."""


def layered_json() -> bytes:
    """``LAYERED`` as OTLP/JSON (hex ids), the first span's id not hex: a request that decodes only as JSON."""
    data = json_format.MessageToDict(layered_request(LAYERED))
    for resource in data["resourceSpans"]:
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                span["traceId"], span["spanId"] = TRACE_ID.hex(), SPAN_ID.hex()
    data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"] = "zz"
    return orjson.dumps(data)


@pytest.mark.parametrize("content_type", [PROTOBUF, JSON])
def test_without_room_a_request_is_503_before_it_is_decoded(content_type: str) -> None:
    """Bodies that would be 400 are answered 503: they were never decoded."""
    room = Room(full=True, retry_after=2.5)
    reply, counters, sinks = exchange(b"\xff\xff\xff\x07garbage", content_type=content_type, check_room=room)
    assert reply.status == 503 and reply.headers["Retry-After"] == "3"
    assert reply.headers["Content-Type"] == content_type
    status = reply.status_message()
    assert status.code == code_pb2.UNAVAILABLE and MESSAGE in status.message
    assert room.asked == 1 and sinks.traces == []
    assert counters.invalid_requests == 0 and counters.refused_spans == 0


@pytest.mark.parametrize("content_type", [PROTOBUF, JSON])
def test_spans_refused_before_decoding_are_counted(content_type: str) -> None:
    """Protobuf counted on the wire; JSON counted from its ``spans`` arrays, though a span id is not hex (so the
    request message, which would be refused 400, was not built)."""
    body = layered_request(LAYERED).SerializeToString() if content_type == PROTOBUF else layered_json()
    reply, counters, sinks = exchange(body, content_type=content_type, check_room=Room(full=True))
    assert reply.status == 503 and reply.status_message().code == code_pb2.UNAVAILABLE
    assert counters.refused_spans == 8
    assert sinks.traces == [] and counters.accepted_spans == counters.invalid_requests == 0


def test_with_room_requests_are_taken_and_bad_ones_still_400() -> None:
    room = Room(full=False)
    taken, counters, sinks = exchange(layered_request(LAYERED).SerializeToString(), check_room=room)
    bad_json, json_counters, _ = exchange(layered_json(), content_type=JSON, check_room=room)
    assert taken.status == 200 and len(sinks.traces[0][0]) == 8 and counters.accepted_spans == 8
    assert bad_json.status == 400 and "must be a hex string" in bad_json.status_message().message
    assert json_counters.invalid_requests == 1 and json_counters.refused_spans == 0
    assert room.asked == 2


def test_a_failing_sink_is_500() -> None:
    async def broken(spans: Sequence[HeldSpan], body: bytes) -> None:
        raise RuntimeError("disk on fire")

    reply, counters, _ = exchange(json_trace_body(), content_type=JSON, traces=broken)
    assert reply.status == 500 and reply.status_message().code == code_pb2.INTERNAL
    assert "disk on fire" not in reply.body.decode()
    assert counters.accepted_spans == 0
