"""Released traces as bytes for an analysis worker, and back: :class:`PackedTrace` keeps the spans serialized with
the resource/scope structure and order they arrived in, so a worker regroups them exactly as the main process
would."""

from __future__ import annotations

from dataclasses import dataclass

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from otel_mapper.otlp.envelopes import SpanEnvelope
from otel_mapper.pickling import pickled_by_fields
from processor.pipeline.assembler import ReleasedTrace

__all__ = ["PackedTrace", "pack_trace", "packed_logs", "unpack_into_request", "unpack_trace"]


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class PackedTrace:
    """The spans of one released trace as bytes, with the resource/scope structure and order they arrived in."""

    resources: tuple[bytes, ...]
    scopes: tuple[bytes, ...]
    groups: tuple[tuple[int, str, int, str], ...]
    """(resource index, resource schema URL, scope index, scope schema URL) per distinct envelope group."""
    spans: tuple[bytes, ...]
    group_of_span: tuple[int, ...]
    origins: tuple[int, ...]
    revision: int
    reason: str
    early: bool
    logs: tuple[tuple[bytes, tuple[bytes, ...]], ...] = ()
    """(span id, serialized log records joined to that span)."""
    logs_expected: bool = False




def pack_trace(released: ReleasedTrace) -> PackedTrace:
    """A released trace for a worker. Spans are held serialized already; resource and scope identity is kept,
    so the worker regroups the spans exactly as the main process would."""
    resource_index: dict[int, int] = {}
    resources: list[bytes] = []
    group_index: dict[int, int] = {}
    groups: list[tuple[int, str, int, str]] = []
    scopes: list[bytes] = []
    group_of_span: list[int] = []
    for span in released.spans:
        group = span.group
        number = group_index.get(id(group))
        if number is None:
            resource = resource_index.get(id(group.resource))
            if resource is None:
                resource = resource_index[id(group.resource)] = len(resources)
                resources.append(group.resource.data)
            number = group_index[id(group)] = len(groups)
            groups.append((resource, group.resource.schema_url, len(scopes), group.scope_schema_url))
            scopes.append(group.scope)
        group_of_span.append(number)
    logs: tuple[tuple[bytes, tuple[bytes, ...]], ...] = ()
    if released.logs:
        logs = tuple(
            (span_id, tuple(record.SerializeToString() for record in records))
            for span_id, records in released.logs.items()
        )
    return PackedTrace(
        logs=logs,
        logs_expected=released.logs_expected,
        resources=tuple(resources),
        scopes=tuple(scopes),
        groups=tuple(groups),
        spans=tuple(span.data for span in released.spans),
        group_of_span=tuple(group_of_span),
        origins=tuple(span.origin for span in released.spans),
        revision=released.revision,
        reason=released.reason.value,
        early=released.reason.early,
    )


def unpack_into_request(packed: PackedTrace) -> tuple[list[SpanEnvelope], ExportTraceServiceRequest, list[int]]:
    """:func:`unpack_trace`, with the spans parsed straight into the Export request that
    :func:`~otel_mapper.otlp.envelopes.build_requests_with_origins` would build when they fit in one: annotating the
    envelopes then annotates that request, which serializes without copying a span. Also returns the spool
    origins in request order."""
    resources = [Resource.FromString(data) for data in packed.resources]
    scopes = [InstrumentationScope.FromString(data) for data in packed.scopes]
    positions: list[list[int]] = [[] for _ in packed.groups]
    for position, group in enumerate(packed.group_of_span):
        positions[group].append(position)
    request = ExportTraceServiceRequest()
    resource_slots: dict[int, ResourceSpans] = {}
    scope_slots: dict[tuple[int, int], ScopeSpans] = {}
    envelopes: list[SpanEnvelope | None] = [None] * len(packed.spans)
    origins: list[int] = []
    for (resource_index, resource_schema, scope_index, scope_schema), members in zip(packed.groups, positions, strict=False):
        scope_spans = scope_slots.get((resource_index, scope_index))
        if scope_spans is None:
            resource_spans = resource_slots.get(resource_index)
            if resource_spans is None:
                resource_spans = resource_slots[resource_index] = request.resource_spans.add()
                resource_spans.resource.CopyFrom(resources[resource_index])
                resource_spans.schema_url = resource_schema
            scope_spans = scope_slots[(resource_index, scope_index)] = resource_spans.scope_spans.add()
            scope_spans.scope.CopyFrom(scopes[scope_index])
            scope_spans.schema_url = scope_schema
        resource, scope, spans = resources[resource_index], scopes[scope_index], scope_spans.spans
        for position in members:
            span = spans.add()
            span.MergeFromString(packed.spans[position])
            origin = packed.origins[position]
            envelopes[position] = SpanEnvelope(resource, resource_schema, scope, scope_schema, span, origin)
            origins.append(origin)
    return [envelope for envelope in envelopes if envelope is not None], request, origins


def unpack_trace(packed: PackedTrace) -> list[SpanEnvelope]:
    """The envelopes of :func:`pack_trace`, in their original order, sharing resources and scopes as before."""
    resources = [Resource.FromString(data) for data in packed.resources]
    scopes = [InstrumentationScope.FromString(data) for data in packed.scopes]
    groups = [(resources[r], r_schema, scopes[s], s_schema) for r, r_schema, s, s_schema in packed.groups]
    envelopes: list[SpanEnvelope] = []
    for data, group, origin in zip(packed.spans, packed.group_of_span, packed.origins, strict=False):
        resource, resource_schema, scope, scope_schema = groups[group]
        envelopes.append(SpanEnvelope(resource, resource_schema, scope, scope_schema, Span.FromString(data), origin))
    return envelopes


def packed_logs(packed: PackedTrace) -> dict[bytes, list[LogRecord]] | None:
    """The log records joined to the trace's spans, parsed (``None`` when there are none)."""
    if not packed.logs:
        return None
    return {span_id: [LogRecord.FromString(data) for data in records] for span_id, records in packed.logs}
