"""What goes out of the processor: serialized Export requests, how each one ended, and the :class:`Exporter` seam.

Two exporters implement the seam: :class:`~processor.pipeline.exporter.OtlpGrpcExporter` (the next OTLP hop) and
:class:`~processor.pipeline.file_exporter.FileExporter` (files under ``output_dir`` when no export target is set).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

__all__ = [
    "ExportQueueFull",
    "Exporter",
    "OnSettled",
    "OutboundRequest",
    "Settlement",
    "Signal",
    "outbound",
    "span_count",
]


class ExportQueueFull(Exception):
    """The sending queue is full; the caller applies backpressure (the receiver answers UNAVAILABLE)."""


class Signal(StrEnum):
    """Which OTLP service a request goes to; the payload is that service's serialized Export request."""

    TRACES = "traces"
    LOGS = "logs"

    @property
    def method(self) -> str:
        if self is Signal.TRACES:
            return "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
        return "/opentelemetry.proto.collector.logs.v1.LogsService/Export"


class Settlement(StrEnum):
    """How a request left the exporter."""

    DELIVERED = "delivered"
    """Acknowledged by the backend (partial success included: the backend decided, retrying cannot change it)."""
    FAILED = "failed"
    """Given up: a permanent error or the retry budget spent. Counted in ``send_failed``."""
    ABANDONED = "abandoned"
    """Still undelivered when the exporter shut down; it stays in the spool for the next start."""


@dataclass(slots=True)
class OutboundRequest:
    """One serialized Export request with what the pipeline needs to know about it."""

    payload: bytes
    items: int
    """Spans (traces) or log records (logs) in the payload."""
    origins: Sequence[int] = field(default_factory=tuple)
    """Spool entry per item (``-1`` when not spooled): acknowledged once the request is settled."""
    alone: bool = False
    """Never coalesced with other requests (spans that did not decode here: if the next hop refuses them, the
    refusal must not take other spans with it)."""


def outbound(request: ExportTraceServiceRequest, origins: Sequence[int] = ()) -> OutboundRequest:
    return OutboundRequest(request.SerializeToString(), span_count(request), origins)


OnSettled = Callable[[OutboundRequest, Settlement], None]
"""Told how every request ended; ``DELIVERED`` and ``FAILED`` let the spool forget the request's items."""


def span_count(request: ExportTraceServiceRequest) -> int:
    return sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)


class Exporter(Protocol):
    """Where the outbound requests of one signal go. Ownership of a request passes to the exporter when it is
    handed over; the exporter reports how each request ended through the ``on_settled`` callback it was built with.

    Lifecycle: ``start`` returns once the exporter can take requests; ``shutdown`` stops retrying, drains within
    ``deadline`` seconds and closes, and is safe before ``start`` and twice. Threading: every method is called from
    the event loop thread that owns the pipeline.
    """

    holds_requests: bool
    """True when requests wait in memory after analysis (their annotated size then counts against
    ``processor.memory_limit_mib``); False when they leave at once."""

    by_trace: bool
    """True when each trace's requests must be handed over on their own (:meth:`put_trace`: the exporter files
    them by trace id); False when :meth:`put_requests` may carry the spans of several traces."""

    @property
    def max_message_bytes(self) -> int:
        """Largest serialized request to build for this exporter."""
        ...

    @property
    def queued_bytes(self) -> int:
        """Payload bytes queued or being sent (memory held by this exporter)."""
        ...

    async def start(self) -> None: ...

    def has_room(self, requests: int = 1) -> bool:
        """Whether ``requests`` more can be queued now without waiting."""
        ...

    def enqueue(self, request: OutboundRequest) -> None:
        """Take one request now (it bypassed analysis); raises :class:`ExportQueueFull` when there is no room."""
        ...

    async def put_trace(self, trace_id: bytes, requests: Sequence[OutboundRequest]) -> None:
        """Take the annotated requests of one analysed trace, waiting for room (a slow target slows the pipeline
        instead of losing spans)."""
        ...

    async def put_requests(self, requests: Sequence[OutboundRequest]) -> None:
        """Take requests that may hold spans of several traces (forwarded unanalysed), waiting for room; only
        when ``by_trace`` is False."""
        ...

    async def flush(self) -> None:
        """Wait until every request taken so far has been settled."""
        ...

    async def shutdown(self, deadline: float = 10.0) -> None: ...
