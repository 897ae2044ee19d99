"""What every receiver (OTLP/gRPC, OTLP/HTTP; traces and logs) hands accepted data to, and how it is refused.

A receiver parses and validates; the sinks below take ownership. A sink raises :class:`Backpressure` when the
pipeline cannot take more now; receivers turn it into the protocol's retryable answer (gRPC ``UNAVAILABLE`` with
RetryInfo, HTTP 503 with ``Retry-After``). A sink returns only once the data is durable (spooled) when a spool
is configured, so an acknowledgement to the client means the data survives a crash.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest


__all__ = ["Backpressure", "LogSink", "LogsOutcome", "TraceSink"]


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


TraceSink = Callable[..., Awaitable[None]]
"""``await sink(envelopes, body, raw_requests=())``: the accepted spans, the request's serialized protobuf form,
and (rarely) single-span requests that did not decode and are forwarded as they are
(:func:`otel_mapper.otlp_salvage.decode_trace_request`)."""

LogSink = Callable[[ExportLogsServiceRequest, bytes], Awaitable[LogsOutcome]]
"""``await sink(request, body)``: a parsed logs request and its serialized protobuf form."""
