"""What every receiver (OTLP/gRPC, OTLP/HTTP; traces and logs) hands accepted data to, and how it is refused.

A receiver parses and validates; the sinks below take ownership of what they are handed. A sink raises :class:`Backpressure` when the
pipeline cannot take more now; receivers turn it into the protocol's retryable answer (gRPC ``UNAVAILABLE`` with
RetryInfo, HTTP 503 with ``Retry-After``). A sink returns only once the data is durable (spooled) when a spool
is configured, so an acknowledgement to the client means the data survives a crash.

Trace receivers also ask a :class:`RoomCheck` before they decode a request (:func:`room_refusal`): when the
pipeline has no room, the request is refused undecoded and its spans are counted from the wire
(:mod:`otel_mapper.otlp.span_count`), so an overloaded service does not spend its CPU decoding what it refuses.
The sink checks again, as room can change while a request is decoded and spooled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsPartialSuccess,
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)

from otel_mapper.otlp.held import HeldSpan
from otel_mapper.otlp.salvage import DecodedTraces
from processor.telemetry.counters import ReceiverCounters

__all__ = [
    "Backpressure",
    "LogSink",
    "LogsOutcome",
    "RoomCheck",
    "TraceSink",
    "hand_over_logs",
    "hand_over_traces",
    "log_record_count",
    "room_refusal",
]


class Backpressure(Exception):
    """Raised by a sink when it cannot accept more now; ``retry_after`` seconds is the hint for the client."""

    def __init__(self, message: str, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class LogsOutcome:
    """Log records refused from one request, reported back through OTLP ``partial_success``."""

    rejected: int = 0
    message: str = ""


class TraceSink(Protocol):
    """The consumer of accepted spans: ``await sink(spans, body, raw_requests)``.

    Ownership: the callee owns what it is handed from the call on. It may keep the spans, annotate them in place
    (their spool origin, for one) and hand them on without copying; the caller must not read or change them after
    the call, whether it returned or raised.
    """

    async def __call__(
        self, spans: Sequence[HeldSpan], body: bytes = b"", raw_requests: Sequence[bytes] = ()
    ) -> None:
        """``spans``: the accepted spans (held as bytes); ``body``: the request's serialized form (what is spooled);
        ``raw_requests``: (rarely) single-span requests that did not decode and are forwarded as they are
        (:func:`otel_mapper.otlp.salvage.decode_trace_request`). Raises :class:`Backpressure` to refuse."""
        ...


class RoomCheck(Protocol):
    """``check_room()`` raises :class:`Backpressure` when the pipeline cannot take a trace request now.

    Cheap and without side effects: receivers call it for every request before decoding it, on the event loop
    thread that owns the pipeline state."""

    def __call__(self) -> None: ...


def room_refusal(check_room: RoomCheck | None) -> Backpressure | None:
    """The refusal a trace request gets before it is decoded, or ``None`` when there is room now (or no check: the
    sink decides alone). The receiver counts the request's spans as refused and answers the refusal."""
    if check_room is None:
        return None
    try:
        check_room()
    except Backpressure as refusal:
        return refusal
    return None


class LogSink(Protocol):
    """The consumer of accepted log records: ``await sink(request, body)``, with the same ownership rule as
    :class:`TraceSink` (the callee owns the request and its body from the call on)."""

    async def __call__(self, request: ExportLogsServiceRequest, body: bytes) -> LogsOutcome:
        """``request``: a parsed logs request; ``body``: its serialized protobuf form. Raises :class:`Backpressure`
        to refuse; returns the records rejected for good."""
        ...


async def hand_over_traces(
    decoded: DecodedTraces, body: bytes, sink: TraceSink, counters: ReceiverCounters
) -> ExportTraceServiceResponse:
    """Give a decoded request to the sink and count it; the response carries partial success. Every receiver
    calls this; a :class:`Backpressure` from the sink is counted and re-raised for the protocol to answer."""
    accepted = len(decoded.spans) + len(decoded.raw_requests)
    if not accepted and not decoded.rejected:
        counters.empty_requests += 1
    if accepted:
        try:
            await sink(decoded.spans, body, decoded.raw_requests)
        except Backpressure:
            # The whole request is refused (and sent again): its spans with malformed ids too, as when it is
            # refused before decoding.
            counters.refused_spans += accepted + decoded.rejected
            raise
    counters.accepted_spans += accepted
    counters.undecodable_spans += len(decoded.raw_requests)
    response = ExportTraceServiceResponse()
    if decoded.rejected:
        counters.rejected_spans += decoded.rejected
        response.partial_success.CopyFrom(
            ExportTracePartialSuccess(rejected_spans=decoded.rejected, error_message=decoded.reason)
        )
    return response


async def hand_over_logs(
    request: ExportLogsServiceRequest, body: bytes, sink: LogSink, counters: ReceiverCounters
) -> ExportLogsServiceResponse:
    """The same for logs: the sink's outcome becomes the partial success."""
    records = log_record_count(request)
    if not records:
        counters.empty_requests += 1
    try:
        outcome = await sink(request, body)
    except Backpressure:
        counters.refused_log_records += records
        raise
    counters.accepted_log_records += records - outcome.rejected
    response = ExportLogsServiceResponse()
    if outcome.rejected or outcome.message:
        counters.rejected_log_records += outcome.rejected
        response.partial_success.CopyFrom(
            ExportLogsPartialSuccess(rejected_log_records=outcome.rejected, error_message=outcome.message)
        )
    return response


def log_record_count(request: ExportLogsServiceRequest) -> int:
    return sum(len(scope.log_records) for resource in request.resource_logs for scope in resource.scope_logs)
