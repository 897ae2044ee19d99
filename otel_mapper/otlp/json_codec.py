"""OTLP/JSON codec, as the OTLP specification's JSON encoding says: lowerCamelCase field names (the proto field
names are accepted too), trace and span ids as hex strings (not base64), enums as integers.

``message_from_dict`` turns a decoded OTLP/JSON object into its protobuf message for any request type, given the
``JsonLevel`` layout of the repeated fields whose items carry ids (``TRACE_LAYOUT``, ``LOGS_LAYOUT``); both the
OTLP/HTTP receiver and the file readers use it. ``decode_json_lines`` reads one ``ExportTraceServiceRequest`` per
line (the Collector file exporter's format) or one per file, ``decode_log_lines`` the same for
``ExportLogsServiceRequest``; ``decode_any`` also accepts binary protobuf, detected from content.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

import orjson
from google.protobuf import json_format
from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

__all__ = [
    "LOGS_LAYOUT",
    "TRACE_LAYOUT",
    "JsonLevel",
    "OtlpDecodeError",
    "clip",
    "decode_any",
    "decode_json_lines",
    "decode_log_lines",
    "encode_json_line",
    "hex_ids_to_base64",
    "message_from_dict",
    "request_from_dict",
]

MAX_MESSAGE_CHARS: Final = 400
"""Longest decoder message quoted in an error (protobuf's messages name the field path first)."""
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")
_ID_KEYS = ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id")
_M = TypeVar("_M", bound=Message)


class OtlpDecodeError(ValueError):
    """Input is neither OTLP/JSON nor a binary ExportTraceServiceRequest."""


@dataclass(frozen=True, slots=True)
class JsonLevel:
    """One repeated field of an OTLP/JSON request: its keys, whether its items carry hex ids, what nests below."""

    keys: tuple[str, ...]
    """lowerCamelCase first, then the proto field name, which json_format also accepts."""
    has_ids: bool = False
    below: tuple[JsonLevel, ...] = ()


TRACE_LAYOUT: Final = (
    JsonLevel(("resourceSpans", "resource_spans"), below=(
        JsonLevel(("scopeSpans", "scope_spans"), below=(
            JsonLevel(("spans",), has_ids=True, below=(JsonLevel(("links",), has_ids=True),)),
        )),
    )),
)  # fmt: skip
LOGS_LAYOUT: Final = (
    JsonLevel(("resourceLogs", "resource_logs"), below=(
        JsonLevel(("scopeLogs", "scope_logs"), below=(JsonLevel(("logRecords", "log_records"), has_ids=True),)),
    )),
)  # fmt: skip


def clip(text: str) -> str:
    """``text`` cut to :data:`MAX_MESSAGE_CHARS`."""
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 3] + "..."


def hex_ids_to_base64(root: dict[str, object], layout: tuple[JsonLevel, ...], where: str = "$") -> None:
    """Rewrite OTLP/JSON's hex ids into the base64 json_format expects, checking the shape on the way.

    Iterative with a depth fixed by ``layout``, whatever the input's nesting."""
    pending: list[tuple[dict[str, object], tuple[JsonLevel, ...], str]] = [(root, layout, where)]
    while pending:
        obj, levels, path = pending.pop()
        for level in levels:
            for key in level.keys:
                items = obj.get(key)
                if items is None:
                    continue
                if not isinstance(items, list):
                    raise OtlpDecodeError(f"{path}.{key} must be an array, got {type(items).__name__}")
                for index, item in enumerate(items):
                    if not isinstance(item, dict):
                        raise OtlpDecodeError(f"{path}.{key}[{index}] must be an object, got {type(item).__name__}")
                    if level.has_ids:
                        _convert_ids(item, f"{path}.{key}[{index}]")
                    if level.below:
                        pending.append((item, level.below, f"{path}.{key}[{index}]"))


def _convert_ids(item: dict[str, object], path: str) -> None:
    for id_key in _ID_KEYS:
        value = item.get(id_key)
        if isinstance(value, str) and value:
            try:
                item[id_key] = base64.b64encode(binascii.unhexlify(value)).decode("ascii")
            except ValueError as exc:  # binascii.Error, or non-ASCII text
                raise OtlpDecodeError(f"{path}.{id_key} must be a hex string (OTLP/JSON ids are hex): {value[:40]!r}") from exc


def message_from_dict(data: object, message_type: type[_M], layout: tuple[JsonLevel, ...], where: str = "$") -> _M:
    """The ``message_type`` an OTLP/JSON object encodes (its id fields are rewritten in place). Unknown fields are
    ignored, as OTLP/JSON says; json_format caps message nesting (100 levels)."""
    name = message_type.__name__
    if not isinstance(data, dict):
        raise OtlpDecodeError(f"{where} must be a JSON object (an OTLP/JSON {name}), got {type(data).__name__}")
    hex_ids_to_base64(data, layout, where)
    message = message_type()
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=True)
    except Exception as exc:  # ParseError, or whatever json_format raises on shapes it does not expect
        raise OtlpDecodeError(f"{where} is not a valid OTLP/JSON {name}: {clip(str(exc))}") from exc
    return message


def request_from_dict(data: object, where: str = "$") -> ExportTraceServiceRequest:
    """Build a trace request from its OTLP/JSON object (mutates ``data``'s id fields)."""
    return message_from_dict(data, ExportTraceServiceRequest, TRACE_LAYOUT, where)


def _json_lines(data: bytes, parse: Callable[[object, str], _M]) -> list[_M]:
    text = data.strip()
    if not text:
        return []
    try:
        return [parse(orjson.loads(text), "$")]
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
        requests.append(parse(obj, f"line {number}"))
    return requests


def decode_json_lines(data: bytes) -> list[ExportTraceServiceRequest]:
    """One request per non-empty line; a file holding a single (possibly pretty-printed) object also works."""
    return _json_lines(data, request_from_dict)


def _logs_request_from_dict(data: object, where: str) -> ExportLogsServiceRequest:
    return message_from_dict(data, ExportLogsServiceRequest, LOGS_LAYOUT, where)


def decode_log_lines(data: bytes) -> list[ExportLogsServiceRequest]:
    """One ``ExportLogsServiceRequest`` per non-empty line, or one per file, as :func:`decode_json_lines`."""
    return _json_lines(data, _logs_request_from_dict)


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


def _ids_to_hex(span: dict[str, object]) -> None:
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
