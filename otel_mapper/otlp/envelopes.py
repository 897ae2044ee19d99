"""OTLP request handling that every stage shares: span envelopes, id checks, regrouping for export.

A :class:`SpanEnvelope` keeps a span together with the resource and scope it arrived under, so export can
rebuild the original nesting (Collector ``groupbytrace`` keeps the same triple).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

__all__ = [
    "RejectedSpans",
    "SpanEnvelope",
    "build_requests",
    "build_requests_with_origins",
    "fits_one_request",
    "split_request",
    "span_id_problem",
]

_ZERO_TRACE_ID = bytes(16)
_ZERO_SPAN_ID = bytes(8)


@dataclass(slots=True)
class SpanEnvelope:
    """A span with the resource and scope it was received under. Ownership passes with it."""

    resource: Resource
    resource_schema_url: str
    scope: InstrumentationScope
    scope_schema_url: str
    span: Span
    origin: int = -1
    """Spool entry the span arrived in (``-1``: not spooled); acknowledged once the span is delivered."""

    @property
    def trace_id(self) -> bytes:
        return self.span.trace_id


@dataclass(frozen=True, slots=True)
class RejectedSpans:
    """Spans refused from one request, reported back through OTLP ``partial_success``."""

    count: int
    reason: str


def span_id_problem(span: Span) -> str | None:
    """Why a span's ids make it unusable, or ``None`` when they are valid."""
    if len(span.trace_id) != 16:
        return f"trace_id must be 16 bytes, got {len(span.trace_id)}"
    if span.trace_id == _ZERO_TRACE_ID:
        return "trace_id is all zero"
    if len(span.span_id) != 8:
        return f"span_id must be 8 bytes, got {len(span.span_id)}"
    if span.span_id == _ZERO_SPAN_ID:
        return "span_id is all zero"
    if span.parent_span_id and len(span.parent_span_id) != 8:
        return f"parent_span_id must be empty or 8 bytes, got {len(span.parent_span_id)}"
    return None


def split_request(request: ExportTraceServiceRequest) -> tuple[list[SpanEnvelope], RejectedSpans | None]:
    """Unpack a request into envelopes; spans with malformed ids are counted and left out."""
    accepted: list[SpanEnvelope] = []
    rejected = 0
    first_reason = ""
    for resource_spans in request.resource_spans:
        resource = resource_spans.resource
        resource_schema = resource_spans.schema_url
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope
            scope_schema = scope_spans.schema_url
            for span in scope_spans.spans:
                problem = span_id_problem(span)
                if problem is not None:
                    rejected += 1
                    if not first_reason:
                        first_reason = problem
                    continue
                accepted.append(SpanEnvelope(resource, resource_schema, scope, scope_schema, span))
    if rejected:
        reason = f"{rejected} span(s) rejected for malformed ids (first: {first_reason})"
        return accepted, RejectedSpans(rejected, reason)
    return accepted, None


def _group(envelopes: Iterable[SpanEnvelope]) -> Iterator[list[SpanEnvelope]]:
    """Group envelopes by (resource, scope) identity, in first-seen order."""
    groups: dict[tuple[int, str, int, str], list[SpanEnvelope]] = {}
    for envelope in envelopes:
        key = (id(envelope.resource), envelope.resource_schema_url, id(envelope.scope), envelope.scope_schema_url)
        group = groups.get(key)
        if group is None:
            groups[key] = [envelope]
        else:
            group.append(envelope)
    yield from groups.values()


def build_requests(envelopes: Sequence[SpanEnvelope], max_bytes: int) -> list[ExportTraceServiceRequest]:
    """Rebuild OTLP requests from envelopes, each kept under ``max_bytes`` where a single span allows it.

    Resource and scope messages are copied once per output group; spans are copied into the request
    (protobuf has no shared ownership). Order of spans within a group is kept.
    """
    return [request for request, _ in build_requests_with_origins(envelopes, max_bytes)]


def fits_one_request(envelopes: Sequence[SpanEnvelope], max_bytes: int) -> bool:
    """Whether :func:`build_requests_with_origins` would put all of ``envelopes`` in one request (the same size
    accounting, without building anything)."""
    current_size = 0
    slots: set[tuple[int, int]] = set()
    resource_slots: set[int] = set()
    for group in _group(envelopes):
        head = group[0]
        group_key = (id(head.resource), id(head.scope))
        for envelope in group:
            span_size = envelope.span.ByteSize() + 8
            if current_size and current_size + span_size > max_bytes:
                return False
            if group_key not in slots:
                if group_key[0] not in resource_slots:
                    resource_slots.add(group_key[0])
                    current_size += head.resource.ByteSize() + 16
                slots.add(group_key)
                current_size += head.scope.ByteSize() + 16
            current_size += span_size
    return True


def build_requests_with_origins(
    envelopes: Sequence[SpanEnvelope], max_bytes: int
) -> list[tuple[ExportTraceServiceRequest, list[int]]]:
    """:func:`build_requests`, with the ``origin`` of every span each request holds (in no particular order)."""
    requests: list[tuple[ExportTraceServiceRequest, list[int]]] = []
    current = ExportTraceServiceRequest()
    origins: list[int] = []
    current_size = 0
    # Cache of the ResourceSpans/ScopeSpans in `current` per group key.
    slots: dict[tuple[int, int], ScopeSpans] = {}
    resource_slots: dict[int, ResourceSpans] = {}
    for group in _group(envelopes):
        head = group[0]
        group_key = (id(head.resource), id(head.scope))
        for envelope in group:
            span = envelope.span
            span_size = span.ByteSize() + 8
            if current_size and current_size + span_size > max_bytes:
                requests.append((current, origins))
                current = ExportTraceServiceRequest()
                origins = []
                current_size = 0
                slots.clear()
                resource_slots.clear()
            scope_spans = slots.get(group_key)
            if scope_spans is None:
                resource_spans = resource_slots.get(id(head.resource))
                if resource_spans is None:
                    resource_spans = current.resource_spans.add()
                    resource_spans.resource.CopyFrom(head.resource)
                    resource_spans.schema_url = head.resource_schema_url
                    resource_slots[id(head.resource)] = resource_spans
                    current_size += head.resource.ByteSize() + 16
                scope_spans = resource_spans.scope_spans.add()
                scope_spans.scope.CopyFrom(head.scope)
                scope_spans.schema_url = head.scope_schema_url
                slots[group_key] = scope_spans
                current_size += head.scope.ByteSize() + 16
            scope_spans.spans.append(span)
            origins.append(envelope.origin)
            current_size += span_size
    if current_size:
        requests.append((current, origins))
    return requests
