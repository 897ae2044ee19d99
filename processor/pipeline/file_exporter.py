"""Writes annotated spans as OTLP/JSON lines, like the Collector's file exporter, one file per trace:
``<output_dir>/<trace_id_hex>/spans.otlp.json`` (later revisions append their lines).

:class:`FileExporter` is the :class:`~processor.pipeline.outbound.Exporter` used when no export target is
configured; :func:`write_spans` is also what ``map`` (offline) writes with."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp.json_codec import encode_json_line
from processor.pipeline.outbound import OnSettled, OutboundRequest, Settlement
from processor.telemetry.counters import ExporterCounters

__all__ = ["FILE_MAX_REQUEST_BYTES", "SPANS_FILE", "UNDECODABLE_FILE", "FileExporter", "write_raw", "write_spans"]

SPANS_FILE = "spans.otlp.json"
UNDECODABLE_FILE = "undecodable.otlp.binpb"
"""Spans that did not decode (see ``otel_mapper.otlp.salvage``), as length-prefixed protobuf requests."""
FILE_MAX_REQUEST_BYTES = 4 * 1024 * 1024


def write_spans(directory: Path, trace_id_hex: str, requests: Sequence[ExportTraceServiceRequest]) -> Path:
    target = directory / trace_id_hex
    target.mkdir(parents=True, exist_ok=True)
    path = target / SPANS_FILE
    with path.open("ab") as handle:
        for request in requests:
            handle.write(encode_json_line(request))
    return path


def write_raw(directory: Path, raw_requests: Sequence[bytes]) -> Path:
    """Append serialized single-span requests, each prefixed by its length (4 bytes, big-endian)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / UNDECODABLE_FILE
    with path.open("ab") as handle:
        for raw in raw_requests:
            handle.write(len(raw).to_bytes(4, "big") + raw)
    return path


class FileExporter:
    """Trace requests written under ``directory`` as they come: an analysed trace's requests to its
    :data:`SPANS_FILE` (off the event loop), a request taken without analysis (spans that did not decode) to
    :data:`UNDECODABLE_FILE`. Nothing is queued, so there is always room; every request is settled as delivered
    once written."""

    holds_requests = False
    by_trace = True
    """Each trace's requests go to that trace's file."""

    def __init__(self, directory: Path, counters: ExporterCounters, *, on_settled: OnSettled | None = None) -> None:
        self._directory = directory
        self._counters = counters
        self._on_settled = on_settled

    @property
    def max_message_bytes(self) -> int:
        return FILE_MAX_REQUEST_BYTES

    @property
    def queued_bytes(self) -> int:
        return 0

    async def start(self) -> None:
        return None

    def has_room(self, requests: int = 1) -> bool:
        return True

    def enqueue(self, request: OutboundRequest) -> None:
        write_raw(self._directory, [request.payload])
        self._counters.sent_spans += request.items
        self._settle([request])

    async def put_trace(self, trace_id: bytes, requests: Sequence[OutboundRequest]) -> None:
        decoded = [ExportTraceServiceRequest.FromString(item.payload) for item in requests]
        await asyncio.to_thread(write_spans, self._directory, trace_id.hex(), decoded)
        self._counters.sent_spans += sum(item.items for item in requests)
        self._settle(requests)

    async def put_requests(self, requests: Sequence[OutboundRequest]) -> None:
        """Not for this exporter (``by_trace``): its files are per trace."""
        raise TypeError("the file exporter writes each trace apart: hand its requests over with put_trace")

    def _settle(self, requests: Sequence[OutboundRequest]) -> None:
        if self._on_settled is not None:
            for request in requests:
                self._on_settled(request, Settlement.DELIVERED)

    async def flush(self) -> None:
        return None

    async def shutdown(self, deadline: float = 10.0) -> None:
        return None
