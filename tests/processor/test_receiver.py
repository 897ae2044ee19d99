"""The OTLP/gRPC receiver: status codes, partial success, backpressure with RetryInfo (before decoding when the
pipeline has no room), gzip."""

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
from processor.pipeline.intake import RoomCheck
from processor.pipeline.receiver import Backpressure, TraceReceiver
from processor.telemetry.counters import ReceiverCounters
from tests.support.room import MESSAGE, Room, layered_request

pytestmark = pytest.mark.slow  # starts servers or processes

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def request_with(ids: Sequence[tuple[bytes, bytes]]) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for trace_id, span_id in ids:
        scope.spans.add(trace_id=trace_id, span_id=span_id, name="s")
    return request


GOOD = (bytes(range(1, 17)), bytes(range(1, 9)))


async def _call(consume, payload: bytes | ExportTraceServiceRequest, compression=None, check_room: RoomCheck | None = None):
    counters = ReceiverCounters()
    server = grpc.aio.server()

    async def sink(spans: Sequence[HeldSpan], body: bytes, raw_requests: Sequence[bytes] = ()) -> None:
        consume(spans)

    server.add_generic_rpc_handlers((TraceReceiver(sink, counters, check_room=check_room).handler(),))
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


LAYERED = ((3, 0), (1,), (2, 1, 1))
"""Eight spans under three resources and five scopes (one scope empty)."""


def layered_with_a_malformed_id() -> ExportTraceServiceRequest:
    request = layered_request(LAYERED)
    request.resource_spans[0].scope_spans[0].spans[0].span_id = bytes(8)
    return request


def test_without_room_a_request_is_refused_before_it_is_decoded() -> None:
    """A body that would be INVALID_ARGUMENT is answered UNAVAILABLE: it was never decoded."""
    taken: list[HeldSpan] = []
    room = Room(full=True)
    error, counters = asyncio.run(_call(taken.extend, b"\xff\xff\xff\x07garbage", check_room=room))
    assert isinstance(error, grpc.aio.AioRpcError)
    assert error.code() is grpc.StatusCode.UNAVAILABLE and retry_delay_of(error) == pytest.approx(2.0)
    assert MESSAGE in (error.details() or "")
    assert room.asked == 1 and taken == []
    assert counters.invalid_requests == 0 and counters.refused_spans == 0


def test_with_room_a_body_that_is_not_a_request_is_still_invalid_argument() -> None:
    room = Room(full=False)
    error, counters = asyncio.run(_call(lambda spans: None, b"\xff\xff\xff\x07garbage", check_room=room))
    assert isinstance(error, grpc.aio.AioRpcError) and error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert room.asked == 1 and counters.invalid_requests == 1


def test_spans_refused_before_decoding_are_counted_from_the_wire() -> None:
    """Every span of the request, its span with a malformed id too (the whole request is sent again)."""
    taken: list[HeldSpan] = []
    request = layered_with_a_malformed_id()
    error, counters = asyncio.run(_call(taken.extend, request, check_room=Room(full=True)))
    assert isinstance(error, grpc.aio.AioRpcError) and error.code() is grpc.StatusCode.UNAVAILABLE
    assert counters.refused_spans == 8
    assert taken == [] and counters.accepted_spans == counters.rejected_spans == counters.empty_requests == 0


def test_spans_refused_by_the_sink_after_decoding_count_the_same() -> None:
    """Room can go while a request is spooled: the sink's refusal counts every span of the request as well."""
    def refuse(spans: Sequence[HeldSpan]) -> None:
        raise Backpressure("spool is full", retry_after=5.0)

    request = layered_with_a_malformed_id()
    error, counters = asyncio.run(_call(refuse, request, check_room=Room(full=False)))
    assert isinstance(error, grpc.aio.AioRpcError) and error.code() is grpc.StatusCode.UNAVAILABLE
    assert counters.refused_spans == 8 and counters.accepted_spans == counters.rejected_spans == 0


def test_with_room_a_request_is_taken_as_before() -> None:
    taken: list[HeldSpan] = []
    room = Room(full=False)
    response, counters = asyncio.run(_call(taken.extend, layered_request(LAYERED), check_room=room))
    assert isinstance(response, ExportTraceServiceResponse) and not response.HasField("partial_success")
    assert room.asked == 1 and len(taken) == 8
    assert counters.accepted_spans == 8 and counters.refused_spans == 0


@pytest.mark.parametrize("compression", [grpc.Compression.Gzip, grpc.Compression.Deflate], ids=["gzip", "deflate"])
def test_compressed_requests_are_accepted(compression: grpc.Compression) -> None:
    """The encodings OpenTelemetry SDKs offer for OTLP/gRPC (``OTEL_EXPORTER_OTLP_COMPRESSION``)."""
    taken: list[HeldSpan] = []
    response, _ = asyncio.run(_call(taken.extend, request_with([GOOD]), compression=compression))
    assert isinstance(response, ExportTraceServiceResponse)
    assert len(taken) == 1
