"""The OTLP/gRPC receiver: status codes, partial success, backpressure with RetryInfo, gzip."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from otel_mapper.otlp.held import HeldSpan
from processor.pipeline.exporter import retry_delay_of
from processor.pipeline.receiver import Backpressure, TraceReceiver
from processor.telemetry.counters import ReceiverCounters

pytestmark = pytest.mark.slow  # starts servers or processes

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def request_with(ids: Sequence[tuple[bytes, bytes]]) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for trace_id, span_id in ids:
        scope.spans.add(trace_id=trace_id, span_id=span_id, name="s")
    return request


GOOD = (bytes(range(1, 17)), bytes(range(1, 9)))


async def _call(consume, payload: bytes | ExportTraceServiceRequest, compression=None):
    counters = ReceiverCounters()
    server = grpc.aio.server()

    async def sink(spans: Sequence[HeldSpan], body: bytes, raw_requests: Sequence[bytes] = ()) -> None:
        consume(spans)

    server.add_generic_rpc_handlers((TraceReceiver(sink, counters).handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", compression=compression) as channel:
            if isinstance(payload, bytes):
                raw = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
                try:
                    return await raw(payload, timeout=5), counters
                except grpc.aio.AioRpcError as error:
                    return error, counters
            try:
                return await TraceServiceStub(channel).Export(payload, timeout=5), counters
            except grpc.aio.AioRpcError as error:
                return error, counters
    finally:
        await server.stop(None)


def test_garbage_body_is_invalid_argument() -> None:
    taken: list[HeldSpan] = []
    result, counters = asyncio.run(_call(taken.extend, b"\xff\xff\xff\x07garbage"))
    assert isinstance(result, grpc.aio.AioRpcError)
    assert result.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "ExportTraceServiceRequest" in result.details()
    assert taken == [] and counters.invalid_requests == 1


def test_malformed_ids_are_refused_through_partial_success() -> None:
    taken: list[HeldSpan] = []
    request = request_with([GOOD, (bytes(16), GOOD[1]), (GOOD[0][:8], GOOD[1]), (GOOD[0], b"\x01")])
    response, counters = asyncio.run(_call(taken.extend, request))
    assert isinstance(response, ExportTraceServiceResponse)
    assert response.partial_success.rejected_spans == 3
    assert "malformed ids" in response.partial_success.error_message
    assert len(taken) == 1 and counters.accepted_spans == 1 and counters.rejected_spans == 3


def test_empty_request_is_accepted() -> None:
    response, _ = asyncio.run(_call(lambda spans: None, ExportTraceServiceRequest()))
    assert isinstance(response, ExportTraceServiceResponse)
    assert not response.HasField("partial_success")


def test_backpressure_is_unavailable_with_retry_info() -> None:
    def refuse(spans: Sequence[HeldSpan]) -> None:
        raise Backpressure("export queue is full", retry_after=2.5)

    error, counters = asyncio.run(_call(refuse, request_with([GOOD])))
    assert isinstance(error, grpc.aio.AioRpcError)
    assert error.code() is grpc.StatusCode.UNAVAILABLE
    assert retry_delay_of(error) == pytest.approx(2.5)
    assert counters.refused_spans == 1 and counters.accepted_spans == 0


@pytest.mark.parametrize("compression", [grpc.Compression.Gzip, grpc.Compression.Deflate], ids=["gzip", "deflate"])
def test_compressed_requests_are_accepted(compression: grpc.Compression) -> None:
    """The encodings OpenTelemetry SDKs offer for OTLP/gRPC (``OTEL_EXPORTER_OTLP_COMPRESSION``)."""
    taken: list[HeldSpan] = []
    response, _ = asyncio.run(_call(taken.extend, request_with([GOOD]), compression=compression))
    assert isinstance(response, ExportTraceServiceResponse)
    assert len(taken) == 1
