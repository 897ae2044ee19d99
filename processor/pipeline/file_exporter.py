"""Writes annotated spans as OTLP/JSON lines, like the Collector's file exporter, one file per trace:
``<output_dir>/<trace_id_hex>/spans.otlp.json`` (later revisions append their lines)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp.json_codec import encode_json_line

__all__ = ["SPANS_FILE", "UNDECODABLE_FILE", "write_raw", "write_spans"]

SPANS_FILE = "spans.otlp.json"
UNDECODABLE_FILE = "undecodable.otlp.binpb"
"""Spans that did not decode (see ``otel_mapper.otlp.salvage``), as length-prefixed protobuf requests."""


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
