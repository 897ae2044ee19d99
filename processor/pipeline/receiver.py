"""OTLP/gRPC receivers (``TraceService/Export`` and ``LogsService/Export``) on grpc.aio.

Requests are parsed here (raw-bytes handler) so a body that is not a valid ``ExportTraceServiceRequest`` gets
``INVALID_ARGUMENT`` with a message instead of a generic error. Spans with malformed ids are refused through
OTLP ``partial_success`` and the rest accepted. When the pipeline cannot take more, the answer is
``UNAVAILABLE`` with a RetryInfo delay, so SDKs and Collectors retry instead of losing data; a trace request is
checked for room before it is decoded, so a refused one is never decoded (its spans are counted on the wire,
whatever the body holds). gzip-compressed requests are decompressed by gRPC itself.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import NoReturn

import grpc
from google.protobuf import duration_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from otel_mapper.otlp.salvage import WireError, decode_trace_request
from otel_mapper.otlp.span_count import count_trace_spans
from processor.pipeline.intake import (
    Backpressure,
    LogSink,
    RoomCheck,
    TraceSink,
    hand_over_logs,
    hand_over_traces,
    log_record_count,
    room_refusal,
)
from processor.telemetry.counters import ReceiverCounters

__all__ = [
    "Backpressure",
    "LOGS_SERVICE",
    "LogsReceiver",
    "TRACE_SERVICE",
    "TraceReceiver",
    "log_record_count",
    "retry_info_trailer",
]

logger = logging.getLogger(__name__)

TRACE_SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"
LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService"


def retry_info_trailer(message: str, delay: float) -> tuple[tuple[str, bytes], ...]:
    info = error_details_pb2.RetryInfo(
        retry_delay=duration_pb2.Duration(seconds=int(delay), nanos=int((delay % 1) * 1e9))
    )
    status = status_pb2.Status(code=code_pb2.UNAVAILABLE, message=message)
    status.details.add().Pack(info)
    return (("grpc-status-details-bin", status.SerializeToString()),)


class TraceReceiver:
    """Handles Export calls; ``consume`` takes ownership of accepted spans (may raise Backpressure).
    ``check_room``, when given, is asked before a request is decoded: a request refused there is not decoded."""

    def __init__(self, consume: TraceSink, counters: ReceiverCounters, *, check_room: RoomCheck | None = None) -> None:
        self._consume = consume
        self._counters = counters
        self._check_room = check_room

    def handler(self) -> grpc.GenericRpcHandler:
        return _export_handler(TRACE_SERVICE, self._export, ExportTraceServiceResponse)

    async def _export(self, body: bytes, context: grpc.aio.ServicerContext) -> ExportTraceServiceResponse:
        refusal = room_refusal(self._check_room)
        if refusal is not None:
            self._counters.refused_spans += count_trace_spans(body)
            await _refuse(context, refusal)
        try:
            decoded = decode_trace_request(body)
        except WireError as exc:
            self._counters.invalid_requests += 1
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"request body is not a valid ExportTraceServiceRequest: {str(exc)[:200]}",
            )
        try:
            return await hand_over_traces(decoded, body, self._consume, self._counters)
        except Backpressure as exc:
            await _refuse(context, exc)


class LogsReceiver:
    """Handles ``LogsService/Export`` calls: parse, hand the request to the log sink, report partial success."""

    def __init__(self, consume: LogSink, counters: ReceiverCounters) -> None:
        self._consume = consume
        self._counters = counters

    def handler(self) -> grpc.GenericRpcHandler:
        return _export_handler(LOGS_SERVICE, self._export, ExportLogsServiceResponse)

    async def _export(self, body: bytes, context: grpc.aio.ServicerContext) -> ExportLogsServiceResponse:
        request = ExportLogsServiceRequest()
        try:
            request.ParseFromString(body)
        except Exception as exc:  # DecodeError, or anything upb raises on garbage
            self._counters.invalid_requests += 1
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"request body is not a valid ExportLogsServiceRequest: {str(exc)[:200]}",
            )
        try:
            return await hand_over_logs(request, body, self._consume, self._counters)
        except Backpressure as exc:
            await _refuse(context, exc)


def _export_handler(
    service: str, export: Callable[..., Awaitable[Message]], response_type: type[Message]
) -> grpc.GenericRpcHandler:
    method: grpc.RpcMethodHandler[bytes, Message] = grpc.unary_unary_rpc_method_handler(
        export,
        request_deserializer=None,  # raw bytes: we parse, so we can answer INVALID_ARGUMENT ourselves
        response_serializer=response_type.SerializeToString,
    )
    return grpc.method_handlers_generic_handler(service, {"Export": method})


async def _refuse(context: grpc.aio.ServicerContext, exc: Backpressure) -> NoReturn:
    """UNAVAILABLE with a RetryInfo delay: SDKs and Collectors retry after it."""
    context.set_trailing_metadata(retry_info_trailer(str(exc), exc.retry_after))
    await context.abort(grpc.StatusCode.UNAVAILABLE, f"{exc}; retry after {exc.retry_after:g}s")
