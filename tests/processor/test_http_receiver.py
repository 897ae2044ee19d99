"""The OTLP/HTTP receiver: encodings, size caps, status codes and bodies, partial success, backpressure, auth."""

from __future__ import annotations

import asyncio
import gzip
import logging
import shutil
import ssl
import subprocess
import time
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from google.protobuf import json_format
from google.rpc import code_pb2, error_details_pb2, status_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from otel_mapper.otlp.envelopes import SpanEnvelope
from otel_mapper.otlp.held import HeldSpan, open_spans
from processor.pipeline.http_receiver import JSON, PROTOBUF, OtlpHttpReceiver
from processor.pipeline.intake import Backpressure, LogsOutcome
from processor.telemetry.counters import ReceiverCounters

pytestmark = pytest.mark.slow  # starts servers or processes

MiB = 1024 * 1024
TRACE_ID = bytes.fromhex("5b8efff798038103d269b633813fc60c")
SPAN_ID = bytes.fromhex("eee19b7ec3c1b174")
PARENT_ID = bytes.fromhex("eee19b7ec3c1b173")
LINKED_TRACE_ID = bytes(range(1, 17))
LINKED_SPAN_ID = bytes(range(9, 17))

TraceSinkFn = Callable[[Sequence[HeldSpan], bytes], Awaitable[None]]


# --- fixtures: fake sinks, a served receiver, a client ------------------------------------------------------


@dataclass
class Sinks:
    traces: list[tuple[list[SpanEnvelope], bytes]] = field(default_factory=list)
    logs: list[tuple[ExportLogsServiceRequest, bytes]] = field(default_factory=list)
    log_outcome: LogsOutcome = field(default_factory=LogsOutcome)

    async def take_traces(self, spans: Sequence[HeldSpan], body: bytes, raw_requests: Sequence[bytes] = ()) -> None:
        self.traces.append((open_spans(spans), body))

    async def take_logs(self, request: ExportLogsServiceRequest, body: bytes) -> LogsOutcome:
        self.logs.append((request, body))
        return self.log_outcome


@dataclass
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def status_message(self) -> status_pb2.Status:
        status = status_pb2.Status()
        if self.headers["Content-Type"] == JSON:
            json_format.Parse(self.body, status)
        else:
            status.ParseFromString(self.body)
        return status


@asynccontextmanager
async def serving(
    sinks: Sinks, *, logs: bool = True, traces: TraceSinkFn | None = None, **options: Any
) -> AsyncIterator[tuple[str, ReceiverCounters, OtlpHttpReceiver]]:
    counters = ReceiverCounters()
    options.setdefault("max_body_bytes", 4 * MiB)
    options.setdefault("max_decompressed_bytes", 16 * MiB)
    receiver = OtlpHttpReceiver(
        traces or sinks.take_traces, sinks.take_logs if logs else None, counters, **options
    )
    port = await receiver.start("127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{port}", counters, receiver
    finally:
        await receiver.stop()


async def post(url: str, body: Any, content_type: str = PROTOBUF, headers: dict[str, str] | None = None,
               method: str = "POST") -> Reply:
    async with aiohttp.ClientSession() as session:
        all_headers = {"Content-Type": content_type, **(headers or {})}
        async with session.request(method, url, data=body, headers=all_headers) as response:
            return Reply(response.status, dict(response.headers), await response.read())


def exchange(body: Any, *, path: str = "/v1/traces", content_type: str = PROTOBUF,
             headers: dict[str, str] | None = None, method: str = "POST", sinks: Sinks | None = None,
             logs: bool = True, traces: TraceSinkFn | None = None,
             **options: Any) -> tuple[Reply, ReceiverCounters, Sinks]:
    used = sinks or Sinks()

    async def scenario() -> tuple[Reply, ReceiverCounters]:
        async with serving(used, logs=logs, traces=traces, **options) as (base, counters, _):
            return await post(base + path, body, content_type, headers, method), counters

    reply, counters = asyncio.run(scenario())
    return reply, counters, used


# --- request builders ---------------------------------------------------------------------------------------


def trace_request(*span_ids: bytes) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.add(key="service.name").value.string_value = "agent"
    scope = resource_spans.scope_spans.add()
    scope.scope.name = "test"
    for span_id in span_ids or (SPAN_ID,):
        scope.spans.add(trace_id=TRACE_ID, span_id=span_id, parent_span_id=PARENT_ID, name="chat", kind=3)
    return request


def json_trace_body(span_id: str = "EEE19B7EC3C1B174") -> bytes:
    span = {
        "traceId": "5B8EFFF798038103D269B633813FC60C",  # OTLP/JSON ids are case-insensitive hex
        "spanId": span_id,
        "parentSpanId": PARENT_ID.hex(),
        "name": "chat",
        "kind": 3,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": 1700000000500000000,
        "links": [{"traceId": LINKED_TRACE_ID.hex(), "spanId": LINKED_SPAN_ID.hex()}],
        "status": {"code": 2, "message": "failed"},
        "aFieldFromTheFuture": {"ignored": True},
    }
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "agent"}}]}
    return orjson.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [span]}]}]})


def logs_request() -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    record = request.resource_logs.add().scope_logs.add().log_records.add()
    record.body.string_value = "hello"
    record.severity_number = 9
    record.trace_id = TRACE_ID
    record.span_id = SPAN_ID
    return request


def json_logs_body() -> bytes:
    record = {"timeUnixNano": "1700000000000000000", "severityNumber": 9, "body": {"stringValue": "hello"},
              "traceId": TRACE_ID.hex().upper(), "spanId": SPAN_ID.hex()}
    return orjson.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]})


def gzip_members(data: bytes, parts: int) -> bytes:
    step = -(-len(data) // parts)
    return b"".join(gzip.compress(data[i:i + step]) for i in range(0, len(data), step))


# --- traces -------------------------------------------------------------------------------------------------


def test_protobuf_traces_are_accepted_and_the_raw_body_is_handed_on() -> None:
    request = trace_request(SPAN_ID, bytes(range(2, 10)))
    raw = request.SerializeToString()
    reply, counters, sinks = exchange(raw)
    assert reply.status == 200 and reply.headers["Content-Type"] == PROTOBUF
    assert not ExportTraceServiceResponse.FromString(reply.body).HasField("partial_success")
    [(envelopes, body)] = sinks.traces
    assert [e.span.span_id for e in envelopes] == [SPAN_ID, bytes(range(2, 10))]
    assert envelopes[0].resource.attributes[0].value.string_value == "agent" and envelopes[0].scope.name == "test"
    assert body == raw
    assert counters.accepted_spans == 2 and counters.rejected_spans == 0 and counters.invalid_requests == 0


def test_json_traces_decode_hex_ids_and_answer_in_json() -> None:
    reply, counters, sinks = exchange(json_trace_body(), content_type="application/json; charset=utf-8")
    assert reply.status == 200 and reply.headers["Content-Type"] == JSON
    assert orjson.loads(reply.body) == {}
    [(envelopes, body)] = sinks.traces
    span = envelopes[0].span
    assert (span.trace_id, span.span_id, span.parent_span_id) == (TRACE_ID, SPAN_ID, PARENT_ID)
    assert (span.links[0].trace_id, span.links[0].span_id) == (LINKED_TRACE_ID, LINKED_SPAN_ID)
    assert span.kind == 3 and span.status.code == 2
    assert (span.start_time_unix_nano, span.end_time_unix_nano) == (1700000000000000000, 1700000000500000000)
    assert ExportTraceServiceRequest.FromString(body).resource_spans[0].scope_spans[0].spans[0] == span
    assert counters.accepted_spans == 1


@pytest.mark.parametrize(
    ("path", "body", "content_type"),
    [
        ("/v1/traces", b'{"hello":"world"}', JSON),
        ("/v1/traces", b"", PROTOBUF),
        ("/v1/logs", b'{"hello":"world"}', JSON),
        ("/v1/logs", b'{"resourceLogs": [{"scopeLogs": [{}]}]}', JSON),
    ],
)
def test_a_request_without_data_is_success_as_otlp_says_but_counted(path: str, body: bytes, content_type: str) -> None:
    reply, counters, sinks = exchange(body, path=path, content_type=content_type)

    assert reply.status == 200
    assert counters.empty_requests == 1 and counters.accepted_spans == counters.accepted_log_records == 0
    assert sinks.traces == []


def test_gzip_body_is_inflated_and_the_sink_gets_the_inflated_bytes() -> None:
    raw = trace_request().SerializeToString()
    reply, counters, sinks = exchange(gzip.compress(raw), headers={"Content-Encoding": "gzip"})
    assert reply.status == 200
    assert sinks.traces[0][1] == raw and counters.accepted_spans == 1


def test_concatenated_gzip_members_are_one_body() -> None:
    raw = json_trace_body()
    reply, _, sinks = exchange(gzip_members(raw, 3), content_type=JSON, headers={"Content-Encoding": "gzip"})
    assert reply.status == 200 and sinks.traces[0][0][0].span.span_id == SPAN_ID


def test_truncated_gzip_is_bad_request() -> None:
    packed = gzip.compress(trace_request().SerializeToString())
    reply, counters, sinks = exchange(packed[:-6], headers={"Content-Encoding": "gzip"})
    assert reply.status == 400 and "truncated gzip" in reply.status_message().message
    assert sinks.traces == [] and counters.invalid_requests == 1


def test_deflate_body_is_one_zlib_stream_as_sdks_send_it() -> None:
    raw = trace_request().SerializeToString()
    for coding in ("deflate", "zlib", " Deflate "):
        reply, counters, sinks = exchange(zlib.compress(raw), headers={"Content-Encoding": coding})
        assert reply.status == 200, coding
        assert sinks.traces[0][1] == raw and counters.accepted_spans == 1
    reply, _, sinks = exchange(zlib.compress(json_trace_body()), content_type=JSON, headers={"Content-Encoding": "deflate"})
    assert reply.status == 200 and sinks.traces[0][0][0].span.span_id == SPAN_ID


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (zlib.compress(b"x") + zlib.compress(b"y"), "bytes after the end of its deflate stream"),
        (zlib.compress(trace_request().SerializeToString())[:-3], "truncated deflate"),
        (gzip.compress(b"x"), "not valid deflate"),
    ],
    ids=["two-streams", "truncated", "gzip-sent-as-deflate"],
)
def test_malformed_deflate_is_bad_request(body: bytes, expected: str) -> None:
    reply, counters, sinks = exchange(body, headers={"Content-Encoding": "deflate"})
    assert reply.status == 400 and expected in reply.status_message().message
    assert sinks.traces == [] and counters.invalid_requests == 1


@pytest.mark.parametrize(("coding", "wbits"), [("gzip", 16 + zlib.MAX_WBITS), ("deflate", zlib.MAX_WBITS)])
def test_compression_bomb_is_refused_without_inflating_past_the_cap(coding: str, wbits: int) -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    zeros = bytes(MiB)
    bomb = b"".join(packer.compress(zeros) for _ in range(200)) + packer.flush()  # 200 MiB of zeros
    assert len(bomb) < MiB
    tracemalloc.start()
    try:
        reply, counters, sinks = exchange(bomb, headers={"Content-Encoding": coding}, max_decompressed_bytes=16 * MiB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert reply.status == 413
    assert f"after {coding} decompression exceeds 16777216 bytes" in reply.status_message().message
    assert peak < 24 * MiB, f"peak Python allocation {peak / MiB:.1f} MiB while refusing a 200 MiB bomb"
    assert sinks.traces == [] and counters.invalid_requests == 1


def test_body_over_the_limit_is_413_with_and_without_content_length() -> None:
    body = trace_request().SerializeToString() * 200
    assert len(body) > 4096

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 1000):
            yield body[start:start + 1000]

    sinks = Sinks()
    declared = exchange(body, max_body_bytes=4096, sinks=sinks)
    streamed = exchange(chunks(), max_body_bytes=4096, sinks=sinks)
    for reply, counters, _ in (declared, streamed):
        assert reply.status == 413
        status = reply.status_message()
        assert status.code == code_pb2.RESOURCE_EXHAUSTED and "exceeds 4096 bytes" in status.message
        assert counters.invalid_requests == 1
    assert sinks.traces == []


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


def test_a_failing_sink_is_500() -> None:
    async def broken(spans: Sequence[HeldSpan], body: bytes) -> None:
        raise RuntimeError("disk on fire")

    reply, counters, _ = exchange(json_trace_body(), content_type=JSON, traces=broken)
    assert reply.status == 500 and reply.status_message().code == code_pb2.INTERNAL
    assert "disk on fire" not in reply.body.decode()
    assert counters.accepted_spans == 0


# --- logs ---------------------------------------------------------------------------------------------------


def test_protobuf_logs_reach_the_log_sink() -> None:
    raw = logs_request().SerializeToString()
    reply, counters, sinks = exchange(raw, path="/v1/logs")
    assert reply.status == 200 and not ExportLogsServiceResponse.FromString(reply.body).HasField("partial_success")
    [(request, body)] = sinks.logs
    assert request == logs_request() and body == raw
    assert sinks.traces == [] and counters.accepted_spans == 0


def test_json_logs_decode_hex_ids_and_report_partial_success() -> None:
    sinks = Sinks(log_outcome=LogsOutcome(rejected=1, message="1 log record(s) over the size limit"))
    reply, _, _ = exchange(json_logs_body(), path="/v1/logs", content_type=JSON, sinks=sinks)
    assert reply.status == 200
    answer = orjson.loads(reply.body)["partialSuccess"]
    assert int(answer["rejectedLogRecords"]) == 1 and "size limit" in answer["errorMessage"]
    [(request, body)] = sinks.logs
    record = request.resource_logs[0].scope_logs[0].log_records[0]
    assert (record.trace_id, record.span_id, record.body.string_value) == (TRACE_ID, SPAN_ID, "hello")
    assert ExportLogsServiceRequest.FromString(body) == request


def test_logs_are_404_without_a_log_sink() -> None:
    reply, _, sinks = exchange(logs_request().SerializeToString(), path="/v1/logs", logs=False)
    assert reply.status == 404 and "no logs pipeline" in reply.status_message().message
    assert sinks.logs == []


def test_log_sink_backpressure_is_503() -> None:
    class Refusing(Sinks):
        async def take_logs(self, request: ExportLogsServiceRequest, body: bytes) -> LogsOutcome:
            raise Backpressure("log queue is full", retry_after=4.0)

    reply, _, _ = exchange(json_logs_body(), path="/v1/logs", content_type=JSON, sinks=Refusing())
    assert reply.status == 503 and reply.headers["Retry-After"] == "4"
    assert "log queue is full" in reply.status_message().message


# --- routing, auth, lifecycle -------------------------------------------------------------------------------


def test_unknown_path_is_404_and_other_methods_405() -> None:
    raw = trace_request().SerializeToString()
    missing, _, sinks = exchange(raw, path="/v1/metrics")
    wrong_method, _, _ = exchange(b"", method="GET", sinks=sinks)
    assert missing.status == 404 and "/v1/metrics" in missing.status_message().message
    assert wrong_method.status == 405 and wrong_method.headers["Allow"] == "POST"
    assert wrong_method.status_message().message.startswith("GET is not allowed")
    assert sinks.traces == []


def test_authorization_is_checked_and_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    raw = trace_request().SerializeToString()
    sinks = Sinks()
    results = {}
    counted = {}
    for name, headers in {"missing": {}, "wrong": {"Authorization": "Bearer guess"},
                          "right": {"Authorization": "Bearer s3cret-token"}}.items():
        results[name], counters, _ = exchange(raw, headers=headers, sinks=sinks,
                                              authorize=lambda value: value == "Bearer s3cret-token")
        counted[name] = counters.unauthenticated_requests
    for name in ("missing", "wrong"):
        assert results[name].status == 401 and results[name].headers["WWW-Authenticate"] == "Bearer"
        assert results[name].status_message().code == code_pb2.UNAUTHENTICATED
    assert counted == {"missing": 1, "wrong": 1, "right": 0}
    assert results["right"].status == 200 and len(sinks.traces) == 1
    assert "s3cret" not in caplog.text and "guess" not in caplog.text


def test_requests_beyond_the_concurrency_bound_get_503() -> None:
    async def scenario() -> tuple[Reply, Reply]:
        entered, release = asyncio.Event(), asyncio.Event()

        async def slow(spans: Sequence[HeldSpan], body: bytes, *_: object) -> None:
            entered.set()
            await release.wait()

        raw = trace_request().SerializeToString()
        async with serving(Sinks(), traces=slow, max_concurrent_requests=1) as (base, _, _):
            first = asyncio.create_task(post(base + "/v1/traces", raw))
            await asyncio.wait_for(entered.wait(), timeout=5)
            second = await post(base + "/v1/traces", raw)
            release.set()
            return await first, second

    first, second = asyncio.run(scenario())
    assert first.status == 200
    assert second.status == 503 and second.headers["Retry-After"] == "1"
    assert "already in flight" in second.status_message().message


async def _until_refused(port: int, deadline: float) -> None:
    """Poll until the listening socket is closed (stop has begun)."""
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except ConnectionError:  # refused, or reset when the listener closes under a pending connect
            return
        writer.close()
        await writer.wait_closed()
        await asyncio.sleep(0.01)
    raise AssertionError("the receiver kept listening after stop() began")


def test_stop_lets_in_flight_requests_finish() -> None:
    async def scenario() -> tuple[Reply, Sinks]:
        entered, release = asyncio.Event(), asyncio.Event()
        sinks = Sinks()

        async def slow(spans: Sequence[HeldSpan], body: bytes, *_: object) -> None:
            entered.set()
            await release.wait()
            await sinks.take_traces(spans, body)

        receiver = OtlpHttpReceiver(slow, None, ReceiverCounters(), max_body_bytes=MiB, max_decompressed_bytes=MiB)
        port = await receiver.start("127.0.0.1", 0)
        first = asyncio.create_task(post(f"http://127.0.0.1:{port}/v1/traces", trace_request().SerializeToString()))
        await asyncio.wait_for(entered.wait(), timeout=5)
        stopping = asyncio.create_task(receiver.stop(grace=10))
        await _until_refused(port, time.monotonic() + 5)
        assert not stopping.done()
        release.set()
        reply = await first
        await asyncio.wait_for(stopping, timeout=5)
        return reply, sinks

    reply, sinks = asyncio.run(scenario())
    assert reply.status == 200 and len(sinks.traces) == 1


def test_stop_cancels_requests_still_running_after_the_grace() -> None:
    async def scenario() -> tuple[BaseException | Reply, float]:
        entered = asyncio.Event()

        async def stuck(spans: Sequence[HeldSpan], body: bytes, *_: object) -> None:
            entered.set()
            await asyncio.Event().wait()

        receiver = OtlpHttpReceiver(stuck, None, ReceiverCounters(), max_body_bytes=MiB, max_decompressed_bytes=MiB)
        port = await receiver.start("127.0.0.1", 0)
        first = asyncio.create_task(post(f"http://127.0.0.1:{port}/v1/traces", trace_request().SerializeToString()))
        await asyncio.wait_for(entered.wait(), timeout=5)
        started = time.monotonic()
        await receiver.stop(grace=0.2)
        took = time.monotonic() - started
        outcome = await asyncio.gather(first, return_exceptions=True)
        return outcome[0], took

    outcome, took = asyncio.run(scenario())
    assert isinstance(outcome, aiohttp.ClientError)
    assert took < 3


def test_tls_is_served_with_the_given_context(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("the `openssl` command is needed to generate a test certificate and is not installed")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        cwd=tmp_path, check=True, capture_output=True, timeout=60,
    )
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    client_context = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
    sinks = Sinks()

    async def scenario() -> int:
        async with serving(sinks, ssl_context=server_context) as (base, _, _):
            url = base.replace("http://", "https://") + "/v1/traces"
            async with aiohttp.ClientSession() as session:
                headers = {"Content-Type": PROTOBUF}
                async with session.post(url, data=trace_request().SerializeToString(), headers=headers,
                                        ssl=client_context) as response:
                    await response.read()
                    return response.status

    status = asyncio.run(scenario())
    assert status == 200 and len(sinks.traces) == 1


def test_stop_is_safe_before_start_and_twice() -> None:
    async def scenario() -> None:
        receiver = OtlpHttpReceiver(Sinks().take_traces, None, ReceiverCounters(), max_body_bytes=MiB,
                                    max_decompressed_bytes=MiB)
        await receiver.stop()
        port = await receiver.start("127.0.0.1", 0)
        assert port > 0
        await receiver.stop()
        await receiver.stop()

    asyncio.run(scenario())


def test_the_sdk_http_exporter_is_accepted() -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("agent"), tracer.start_as_current_span("tool"):
        pass
    spans = memory.get_finished_spans()
    sinks = Sinks()

    async def scenario() -> list[SpanExportResult]:
        results = []
        async with serving(sinks) as (base, _, _):
            for compression in (Compression.NoCompression, Compression.Gzip, Compression.Deflate):
                exporter = OTLPSpanExporter(endpoint=f"{base}/v1/traces", compression=compression, timeout=5)
                try:
                    results.append(await asyncio.to_thread(exporter.export, spans))
                finally:
                    exporter.shutdown()
        return results

    assert asyncio.run(scenario()) == [SpanExportResult.SUCCESS] * 3
    expected = {span.context.span_id.to_bytes(8, "big") for span in spans}
    assert [{e.span.span_id for e in envelopes} for envelopes, _ in sinks.traces] == [expected] * 3
