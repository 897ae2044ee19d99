"""A trace request that does not decode as a whole, split at the wire level and decoded span by span.

The protobuf decoder refuses a whole request when one span inside it nests deeper than its depth limit or holds
a string that is not UTF-8. Refusing the request would drop every other span of the batch, so instead:

- the request's wire structure is walked (``ResourceSpans`` → ``ScopeSpans`` → ``Span``); if that structure itself
  is broken (truncated, bad lengths) the request is malformed and refused as a whole;
- each span is decoded on its own; the ones that decode become envelopes as usual (analysed and annotated);
- a span that does not decode is forwarded unchanged, as raw bytes under its raw resource and scope, without
  analysis (the next hop decides about it); it is counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.otlp import SpanEnvelope, span_id_problem
from otel_mapper.protowire import LEN, WireError, fields, length_delimited

__all__ = ["DecodedTraces", "Salvaged", "WireError", "decode_trace_request", "salvage_trace_request"]

# Field numbers (opentelemetry/proto/collector/trace/v1, trace/v1).
_REQUEST_RESOURCE_SPANS = 1
_RESOURCE = 1
_SCOPE_SPANS = 2
_SCHEMA_URL = 3
_SCOPE = 1
_SPANS = 2


@dataclass(slots=True)
class Salvaged:
    envelopes: list[SpanEnvelope] = field(default_factory=list)
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
        resource_raw = b""
        resource_schema = ""
        scope_spans_list: list[memoryview] = []
        for sub, sub_type, value in fields(resource_spans):
            if sub == _RESOURCE and isinstance(value, memoryview):
                resource_raw = bytes(value)
            elif sub == _SCOPE_SPANS and isinstance(value, memoryview):
                scope_spans_list.append(value)
            elif sub == _SCHEMA_URL:
                resource_schema = _text(value)
        resource = _decode(Resource, resource_raw)
        for scope_spans in scope_spans_list:
            scope_raw = b""
            scope_schema = ""
            spans: list[memoryview] = []
            for sub, sub_type, value in fields(scope_spans):
                if sub == _SCOPE and isinstance(value, memoryview):
                    scope_raw = bytes(value)
                elif sub == _SPANS and isinstance(value, memoryview):
                    spans.append(value)
                elif sub == _SCHEMA_URL:
                    scope_schema = _text(value)
            scope = _decode(InstrumentationScope, scope_raw)
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
                assert resource is not None and scope is not None
                out.envelopes.append(SpanEnvelope(resource, resource_schema, scope, scope_schema, span))
    return out


def _decode(message_type: type[Span] | type[Resource] | type[InstrumentationScope], raw: bytes | memoryview):  # type: ignore[no-untyped-def]
    try:
        return message_type.FromString(bytes(raw))
    except Exception:  # DecodeError: depth limit, bad UTF-8, bad field contents
        return None


def _single_span_request(resource: bytes, resource_schema: str, scope: bytes, scope_schema: str, span: memoryview) -> bytes:
    scope_spans = length_delimited(_SCOPE, scope) + length_delimited(_SPANS, span)
    if scope_schema:
        scope_spans += length_delimited(_SCHEMA_URL, scope_schema.encode())
    resource_spans = length_delimited(_RESOURCE, resource) + length_delimited(_SCOPE_SPANS, scope_spans)
    if resource_schema:
        resource_spans += length_delimited(_SCHEMA_URL, resource_schema.encode())
    return length_delimited(_REQUEST_RESOURCE_SPANS, resource_spans)


@dataclass(slots=True)
class DecodedTraces:
    """A trace request as the receivers see it: spans to analyse, spans to forward as they are, spans refused."""

    envelopes: list[SpanEnvelope]
    raw_requests: list[bytes]
    rejected: int
    reason: str


def decode_trace_request(body: bytes) -> DecodedTraces:
    """Decode an ExportTraceServiceRequest body; salvage span by span when it does not decode as a whole.

    Raises :class:`WireError` (a ``ValueError``) when the body is not a well-formed request at all.
    """
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from otel_mapper.otlp import split_request

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except Exception:  # DecodeError, or anything upb raises on garbage: try span by span
        salvaged = salvage_trace_request(body)
        reason = ""
        if salvaged.rejected:
            reason = f"{salvaged.rejected} span(s) rejected for malformed ids (first: {salvaged.first_problem})"
        return DecodedTraces(salvaged.envelopes, salvaged.raw_requests, salvaged.rejected, reason)
    envelopes, rejected = split_request(request)
    if rejected is None:
        return DecodedTraces(envelopes, [], 0, "")
    return DecodedTraces(envelopes, [], rejected.count, rejected.reason)
