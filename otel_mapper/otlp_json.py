"""OTLP/JSON codec for trace requests, as the OTLP specification's JSON encoding says: lowerCamelCase field
names, trace and span ids as lowercase hex strings (not base64), enums as integers.

``decode_json_lines`` reads one ``ExportTraceServiceRequest`` per line (the Collector file exporter's format) or
one per file; ``decode_any`` also accepts binary protobuf, detected from content.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

__all__ = ["OtlpDecodeError", "decode_any", "decode_json_lines", "encode_json_line", "request_from_dict"]

_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


class OtlpDecodeError(ValueError):
    """Input is neither OTLP/JSON nor a binary ExportTraceServiceRequest."""


def _ids_to_base64(span: dict[str, Any], where: str) -> None:
    for key in _ID_FIELDS:
        value = span.get(key)
        if isinstance(value, str) and value:
            try:
                span[key] = base64.b64encode(bytes.fromhex(value)).decode("ascii")
            except ValueError as exc:
                raise OtlpDecodeError(f"{where}.{key}: {value[:40]!r} is not a hex id") from exc


def request_from_dict(data: dict[str, Any], where: str = "$") -> ExportTraceServiceRequest:
    """Build a request from the OTLP/JSON object (mutates ``data``'s id fields)."""
    if not isinstance(data, dict):
        raise OtlpDecodeError(f"{where}: expected a JSON object with resourceSpans")
    for r_index, resource_spans in enumerate(data.get("resourceSpans") or data.get("resource_spans") or []):
        for s_index, scope_spans in enumerate(resource_spans.get("scopeSpans") or resource_spans.get("scope_spans") or []):
            for index, span in enumerate(scope_spans.get("spans") or []):
                path = f"{where}.resourceSpans[{r_index}].scopeSpans[{s_index}].spans[{index}]"
                _ids_to_base64(span, path)
                for l_index, link in enumerate(span.get("links") or []):
                    _ids_to_base64(link, f"{path}.links[{l_index}]")
    request = ExportTraceServiceRequest()
    try:
        json_format.ParseDict(data, request, ignore_unknown_fields=True)
    except json_format.ParseError as exc:
        raise OtlpDecodeError(f"{where}: {exc}") from exc
    return request


def decode_json_lines(data: bytes) -> list[ExportTraceServiceRequest]:
    """One request per non-empty line; a file holding a single (possibly pretty-printed) object also works."""
    text = data.strip()
    if not text:
        return []
    try:
        return [request_from_dict(orjson.loads(text), "$")]
    except orjson.JSONDecodeError:
        pass
    requests = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise OtlpDecodeError(f"line {number}: not JSON ({exc})") from exc
        requests.append(request_from_dict(obj, f"line {number}"))
    return requests


def decode_any(data: bytes) -> list[ExportTraceServiceRequest]:
    """OTLP/JSON (lines or one object) or a binary protobuf ``ExportTraceServiceRequest``."""
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        return decode_json_lines(data)
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(data)
    except Exception as exc:  # protobuf raises DecodeError, but upb may raise others on garbage
        raise OtlpDecodeError(f"neither OTLP/JSON nor a binary ExportTraceServiceRequest: {exc}") from exc
    return [request]


def _ids_to_hex(span: dict[str, Any]) -> None:
    for key in _ID_FIELDS:
        value = span.get(key)
        if isinstance(value, str) and value:
            try:
                span[key] = base64.b64decode(value).hex()
            except binascii.Error:
                pass


def encode_json_line(request: ExportTraceServiceRequest) -> bytes:
    """One OTLP/JSON line (with trailing newline) for ``request``."""
    data = json_format.MessageToDict(request, use_integers_for_enums=True)
    for resource_spans in data.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                _ids_to_hex(span)
                for link in span.get("links", []):
                    _ids_to_hex(link)
    return orjson.dumps(data) + b"\n"
