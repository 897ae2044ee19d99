"""The OTLP/HTTP receiver takes protobuf and JSON, identity, gzip and deflate (as the SDK's HTTP exporter sends them),
and refuses bodies over the size caps, before or after decompression."""

from __future__ import annotations

import asyncio
import gzip
import tracemalloc
import zlib
from collections.abc import AsyncIterator

import orjson
import pytest
from google.rpc import code_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from processor.pipeline.http_receiver import JSON, PROTOBUF
from tests.support.http_receiver import (
    LINKED_SPAN_ID,
    LINKED_TRACE_ID,
    PARENT_ID,
    SPAN_ID,
    TRACE_ID,
    MiB,
    Sinks,
    exchange,
    json_trace_body,
    serving,
    trace_request,
)

pytestmark = pytest.mark.slow  # starts servers or processes


def gzip_members(data: bytes, parts: int) -> bytes:
    step = -(-len(data) // parts)
    return b"".join(gzip.compress(data[i:i + step]) for i in range(0, len(data), step))


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
