"""Writes annotated spans as OTLP/JSON lines, like the Collector's file exporter, one file per trace:
``<output_dir>/<trace_id_hex>/spans.otlp.json`` (later revisions append their lines)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp_json import encode_json_line

__all__ = ["SPANS_FILE", "write_spans"]

SPANS_FILE = "spans.otlp.json"


def write_spans(directory: Path, trace_id_hex: str, requests: Sequence[ExportTraceServiceRequest]) -> Path:
    target = directory / trace_id_hex
    target.mkdir(parents=True, exist_ok=True)
    path = target / SPANS_FILE
    with path.open("ab") as handle:
        for request in requests:
            handle.write(encode_json_line(request))
    return path
