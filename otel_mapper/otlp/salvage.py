"""A trace request that does not decode as a whole, split at the wire level and decoded span by span.

The protobuf decoder refuses a whole request when one span inside it nests deeper than its depth limit or holds
a string that is not UTF-8. Refusing the request would drop every other span of the batch, so instead:

- the request's wire structure is walked (``ResourceSpans`` → ``ScopeSpans`` → ``Span``); if that structure itself
  is broken (truncated, bad lengths) the request is malformed and refused as a whole;
- each span is decoded on its own; the ones that decode are held as usual (analysed and annotated);
- a span that does not decode is forwarded unchanged, as raw bytes under its raw resource and scope, without
  analysis (the next hop decides about it); it is counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.otlp.envelopes import span_id_problem
from otel_mapper.otlp.held import HeldResource, HeldSpan, SpanGroup, hold_request, service_name
from otel_mapper.otlp.protowire import LEN, WireError, fields, length_delimited

__all__ = ["DecodedTraces", "Salvaged", "WireError", "decode_trace_request", "salvage_trace_request"]

# Field numbers (opentelemetry/proto/collector/trace/v1, trace/v1).
_REQUEST_RESOURCE_SPANS = 1
_HEAD = 1
"""``ResourceSpans.resource`` / ``ScopeSpans.scope``."""
_CHILDREN = 2
"""``ResourceSpans.scope_spans`` / ``ScopeSpans.spans``."""
_SCHEMA_URL = 3


@dataclass(slots=True)
class Salvaged:
    spans: list[HeldSpan] = field(default_factory=list)
    raw_requests: list[bytes] = field(default_factory=list)
    """One serialized ExportTraceServiceRequest per span that did not decode, to forward as it is."""
    undecodable: int = 0
    rejected: int = 0
    """Decoded spans with malformed ids (refused through partial success, as usual)."""
    first_problem: str = ""


def _text(value: memoryview | int) -> str:
    if not isinstance(value, memoryview):
        raise WireError("schema_url is not length-delimited")
    return bytes(value).decode("utf-8", errors="replace")


def salvage_trace_request(body: bytes) -> Salvaged:
    """Raises :class:`WireError` when the request's wire structure is broken."""
    out = Salvaged()
    for number, wire_type, resource_spans in fields(memoryview(body)):
        if number != _REQUEST_RESOURCE_SPANS:
            continue
        if wire_type != LEN or not isinstance(resource_spans, memoryview):
            raise WireError("resource_spans is not length-delimited")
        resource_raw, scope_spans_list, resource_schema = _level(resource_spans)
        resource = _decode(Resource, resource_raw)
        held_resource = HeldResource(resource_raw, resource_schema, service_name(resource) if resource is not None else "")
        for scope_spans in scope_spans_list:
            scope_raw, spans, scope_schema = _level(scope_spans)
            scope = _decode(InstrumentationScope, scope_raw)
            group = SpanGroup(held_resource, scope_raw, scope_schema)
            trace_ids: dict[bytes, bytes] = {}
            for raw_span in spans:
                span = _decode(Span, raw_span) if resource is not None and scope is not None else None
                if span is None:
                    out.undecodable += 1
                    out.first_problem = out.first_problem or "a span did not decode (nesting too deep or bad UTF-8)"
                    out.raw_requests.append(_single_span_request(resource_raw, resource_schema, scope_raw, scope_schema, raw_span))
                    continue
                problem = span_id_problem(span)
                if problem is not None:
                    out.rejected += 1
                    out.first_problem = out.first_problem or problem
                    continue
                trace_id = trace_ids.setdefault(span.trace_id, span.trace_id)
                out.spans.append(HeldSpan(trace_id, bytes(raw_span), group, not span.parent_span_id))
    return out


def _level(message: memoryview) -> tuple[bytes, list[memoryview], str]:
    """``ResourceSpans`` and ``ScopeSpans`` share one shape: field 1 its resource or scope, field 2 its repeated
    children, field 3 its schema URL."""
    head = b""
    children: list[memoryview] = []
    schema = ""
    for number, _wire_type, value in fields(message):
        if number == _HEAD and isinstance(value, memoryview):
            head = bytes(value)
        elif number == _CHILDREN and isinstance(value, memoryview):
            children.append(value)
        elif number == _SCHEMA_URL:
            schema = _text(value)
    return head, children, schema


_Part = TypeVar("_Part", Span, Resource, InstrumentationScope)


def _decode(message_type: type[_Part], raw: bytes | memoryview) -> _Part | None:
    try:
        return message_type.FromString(bytes(raw))
    except Exception:  # DecodeError: depth limit, bad UTF-8, bad field contents
        return None


def _single_span_request(resource: bytes, resource_schema: str, scope: bytes, scope_schema: str, span: memoryview) -> bytes:
    scope_spans = length_delimited(_HEAD, scope) + length_delimited(_CHILDREN, span)
    if scope_schema:
        scope_spans += length_delimited(_SCHEMA_URL, scope_schema.encode())
    resource_spans = length_delimited(_HEAD, resource) + length_delimited(_CHILDREN, scope_spans)
    if resource_schema:
        resource_spans += length_delimited(_SCHEMA_URL, resource_schema.encode())
    return length_delimited(_REQUEST_RESOURCE_SPANS, resource_spans)


@dataclass(slots=True)
class DecodedTraces:
    """A trace request as the receivers see it: spans to analyse, spans to forward as they are, spans refused."""

    spans: list[HeldSpan]
    raw_requests: list[bytes]
    rejected: int
    reason: str


def decode_trace_request(body: bytes) -> DecodedTraces:
    """Decode an ExportTraceServiceRequest body; salvage span by span when it does not decode as a whole.

    Raises :class:`WireError` (a ``ValueError``) when the body is not a well-formed request at all.
    """
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except Exception:  # DecodeError, or anything upb raises on garbage: try span by span
        salvaged = salvage_trace_request(body)
        reason = ""
        if salvaged.rejected:
            reason = f"{salvaged.rejected} span(s) rejected for malformed ids (first: {salvaged.first_problem})"
        return DecodedTraces(salvaged.spans, salvaged.raw_requests, salvaged.rejected, reason)
    spans, rejected = hold_request(request)
    if rejected is None:
        return DecodedTraces(spans, [], 0, "")
    return DecodedTraces(spans, [], rejected.count, rejected.reason)
