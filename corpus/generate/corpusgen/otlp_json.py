"""OTLP/JSON encoding of captured requests (OTLP spec JSON mapping: lowerCamelCase, hex ids, integer enums)."""
from __future__ import annotations

import base64
import json

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

_ID_FIELDS = ("traceId", "spanId", "parentSpanId")
LOGS_FILE = "logs.otlp.json"


def _b64_to_hex(value: str) -> str:
    return base64.b64decode(value).hex()


def _fix_ids(span: dict) -> None:
    for key in _ID_FIELDS:
        if span.get(key):
            span[key] = _b64_to_hex(span[key])
    for link in span.get("links", []):
        for key in ("traceId", "spanId"):
            if link.get(key):
                link[key] = _b64_to_hex(link[key])


def _to_json_obj(raw: bytes, message_type, resources: str, scopes: str, items: str) -> dict:
    req = message_type()
    req.ParseFromString(raw)
    obj = MessageToDict(req, use_integers_for_enums=True, preserving_proto_field_name=False)
    for resource in obj.get(resources, []):
        for scope in resource.get(scopes, []):
            for item in scope.get(items, []):
                _fix_ids(item)
    return obj


def request_to_json_obj(raw: bytes) -> dict:
    return _to_json_obj(raw, ExportTraceServiceRequest, "resourceSpans", "scopeSpans", "spans")


def logs_request_to_json_obj(raw: bytes) -> dict:
    return _to_json_obj(raw, ExportLogsServiceRequest, "resourceLogs", "scopeLogs", "logRecords")


def iter_spans(obj: dict):
    for rs in obj.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                yield ss.get("scope", {}), span


def _write(out_dir, raw_requests: list[bytes], prefix: str, json_name: str, to_json) -> list[dict]:
    """``<prefix>-<n>.pb`` per request and ``json_name`` with one OTLP/JSON line per request; those of an earlier run
    removed first. Returns the JSON objects."""
    for old in out_dir.glob(f"{prefix}-*.pb"):
        old.unlink()
    objs = []
    lines = []
    for n, raw in enumerate(raw_requests, start=1):
        (out_dir / f"{prefix}-{n}.pb").write_bytes(raw)
        obj = to_json(raw)
        objs.append(obj)
        lines.append(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))
    (out_dir / json_name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return objs


def write_trace_files(out_dir, raw_requests: list[bytes]) -> list[dict]:
    """Write trace.otlp.json (one request per line) and request-<n>.pb; return the JSON objects."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return _write(out_dir, raw_requests, "request", "trace.otlp.json", request_to_json_obj)


def write_log_files(out_dir, raw_requests: list[bytes]) -> list[dict]:
    """Write logs.otlp.json (one ExportLogsServiceRequest per line) and logs-<n>.pb when the app sent log records;
    remove those of an earlier run when it sent none. Return the JSON objects."""
    if not raw_requests:
        for old in out_dir.glob("logs-*.pb"):
            old.unlink()
        (out_dir / LOGS_FILE).unlink(missing_ok=True)
        return []
    return _write(out_dir, raw_requests, "logs", LOGS_FILE, logs_request_to_json_obj)
