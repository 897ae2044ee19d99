"""Spans held as their own protobuf bytes between the receiver and analysis.

A receiver decodes a request once (that validates it), then keeps each span as its serialized bytes together
with the little the assembler needs: its trace id and whether it is a local root. The resource and the scope
are serialized once per request and shared by their spans. A buffered span then costs its wire size plus a
small fixed overhead, where a parsed message costs more than twice its wire size.

Analysis parses the spans of a released trace once (:func:`open_spans`, or the worker's own unpacking), and
export without analysis concatenates the bytes into requests without parsing them at all
(:func:`wire_requests`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.otlp.envelopes import RejectedSpans, SpanEnvelope, span_id_problem
from otel_mapper.otlp.protowire import field_prefix

__all__ = [
    "HeldResource",
    "HeldSpan",
    "SpanGroup",
    "hold_envelopes",
    "hold_request",
    "open_spans",
    "service_name",
    "wire_requests",
]

MAX_SERVICE_NAME_CHARS = 256
_ZERO_TRACE_ID = bytes(16)
_ZERO_SPAN_ID = bytes(8)

# Field numbers shared by ExportTraceServiceRequest, ResourceSpans and ScopeSpans (opentelemetry/proto/trace/v1).
_RESOURCE_SPANS = 1
_HEAD = 1
"""``ResourceSpans.resource`` / ``ScopeSpans.scope``."""
_CHILDREN = 2
"""``ResourceSpans.scope_spans`` / ``ScopeSpans.spans``."""
_SCHEMA_URL = 3


@dataclass(slots=True, eq=False)
class HeldResource:
    """One ``ResourceSpans``' resource, serialized; shared by every span that arrived under it."""

    data: bytes
    schema_url: str
    service_name: str
    """``service.name`` (at most :data:`MAX_SERVICE_NAME_CHARS`), ``""`` when absent."""


@dataclass(slots=True, eq=False)
class SpanGroup:
    """One ``ScopeSpans``: its scope, serialized, under its resource. Identity matters: spans of one group are
    exported together in one ``ScopeSpans``, as they arrived."""

    resource: HeldResource
    scope: bytes
    scope_schema_url: str


@dataclass(slots=True, eq=False)
class HeldSpan:
    trace_id: bytes
    data: bytes
    """The span, serialized."""
    group: SpanGroup
    is_root: bool
    """No parent span id: a local root of its trace."""
    origin: int = -1
    """Spool entry the span arrived in (``-1``: not spooled); acknowledged once the span is delivered."""


def service_name(resource: Resource) -> str:
    for attribute in resource.attributes:
        if attribute.key == "service.name":
            return attribute.value.string_value[:MAX_SERVICE_NAME_CHARS]
    return ""


def hold_request(request: ExportTraceServiceRequest) -> tuple[list[HeldSpan], RejectedSpans | None]:
    """Every span of a decoded request as :class:`HeldSpan`; spans with malformed ids are counted and left out
    (the same rule as :func:`otel_mapper.otlp.envelopes.split_request`)."""
    held: list[HeldSpan] = []
    trace_ids: dict[bytes, bytes] = {}
    rejected = 0
    first_reason = ""
    for resource_spans in request.resource_spans:
        resource = resource_spans.resource
        held_resource = HeldResource(resource.SerializeToString(), resource_spans.schema_url, service_name(resource))
        for scope_spans in resource_spans.scope_spans:
            group = SpanGroup(held_resource, scope_spans.scope.SerializeToString(), scope_spans.schema_url)
            for span in scope_spans.spans:
                trace_id, span_id, parent = span.trace_id, span.span_id, span.parent_span_id
                if (
                    len(trace_id) != 16 or len(span_id) != 8 or (parent and len(parent) != 8)
                    or trace_id == _ZERO_TRACE_ID or span_id == _ZERO_SPAN_ID
                ):
                    rejected += 1
                    first_reason = first_reason or span_id_problem(span) or ""
                    continue
                trace_id = trace_ids.setdefault(trace_id, trace_id)  # one bytes object per trace and request
                held.append(HeldSpan(trace_id, span.SerializeToString(), group, not parent))
    if rejected:
        return held, RejectedSpans(rejected, f"{rejected} span(s) rejected for malformed ids (first: {first_reason})")
    return held, None


def hold_envelopes(envelopes: Iterable[SpanEnvelope]) -> list[HeldSpan]:
    """Envelopes (already decoded, ids checked) as held spans, keeping their resource and scope grouping."""
    resources: dict[tuple[int, str], HeldResource] = {}
    groups: dict[tuple[int, str, int, str], SpanGroup] = {}
    held: list[HeldSpan] = []
    for envelope in envelopes:
        key = (id(envelope.resource), envelope.resource_schema_url, id(envelope.scope), envelope.scope_schema_url)
        group = groups.get(key)
        if group is None:
            resource = resources.get(key[:2])
            if resource is None:
                resource = resources[key[:2]] = HeldResource(
                    envelope.resource.SerializeToString(), envelope.resource_schema_url, service_name(envelope.resource)
                )
            group = groups[key] = SpanGroup(resource, envelope.scope.SerializeToString(), envelope.scope_schema_url)
        span = envelope.span
        held.append(HeldSpan(span.trace_id, span.SerializeToString(), group, not span.parent_span_id, envelope.origin))
    return held


def open_spans(held: Sequence[HeldSpan]) -> list[SpanEnvelope]:
    """Parse held spans into envelopes, in order; spans of one group share one parsed resource and scope."""
    parsed_resources: dict[int, Resource] = {}
    parsed_groups: dict[int, tuple[Resource, str, InstrumentationScope, str]] = {}
    envelopes: list[SpanEnvelope] = []
    for span in held:
        group = span.group
        parsed = parsed_groups.get(id(group))
        if parsed is None:
            resource = parsed_resources.get(id(group.resource))
            if resource is None:
                resource = parsed_resources[id(group.resource)] = Resource.FromString(group.resource.data)
            scope = InstrumentationScope.FromString(group.scope)
            parsed = parsed_groups[id(group)] = (resource, group.resource.schema_url, scope, group.scope_schema_url)
        envelopes.append(SpanEnvelope(parsed[0], parsed[1], parsed[2], parsed[3], Span.FromString(span.data), span.origin))
    return envelopes


def wire_requests(held: Sequence[HeldSpan], max_bytes: int) -> list[tuple[bytes, list[int]]]:
    """Serialized Export requests holding ``held`` unparsed, each under ``max_bytes`` where a single span allows
    it, with the spool origin of every span. Grouping and size accounting follow
    :func:`otel_mapper.otlp.envelopes.build_requests_with_origins`: one ``ResourceSpans`` per resource and one
    ``ScopeSpans`` per group in each request, spans of a group in arrival order."""
    by_group: dict[int, list[HeldSpan]] = {}
    for span in held:
        members = by_group.get(id(span.group))
        if members is None:
            by_group[id(span.group)] = [span]
        else:
            members.append(span)
    requests: list[tuple[bytes, list[int]]] = []
    # resource id -> (resource, {group id -> (group, serialized spans)}), in first-seen order
    current: dict[int, tuple[HeldResource, dict[int, tuple[SpanGroup, list[bytes]]]]] = {}
    origins: list[int] = []
    size = 0
    for members in by_group.values():
        group = members[0].group
        slot: tuple[SpanGroup, list[bytes]] | None = None  # the group's place in the request: looked up once per request
        for span in members:
            span_size = len(span.data) + 8
            if size and size + span_size > max_bytes:
                requests.append((_encode_request(current), origins))
                current, origins, size = {}, [], 0
                slot = None
            if slot is None:
                entry = current.get(id(group.resource))
                if entry is None:
                    entry = current[id(group.resource)] = (group.resource, {})
                    size += len(group.resource.data) + 16
                slot = entry[1].get(id(group))
                if slot is None:
                    slot = entry[1][id(group)] = (group, [])
                    size += len(group.scope) + 16
            slot[1].append(span.data)
            origins.append(span.origin)
            size += span_size
    if size:
        requests.append((_encode_request(current), origins))
    return requests


def _encode_request(resources: dict[int, tuple[HeldResource, dict[int, tuple[SpanGroup, list[bytes]]]]]) -> bytes:
    """The Export request's bytes, joined once: each message's pieces are listed after its key and length, which
    are computed from the pieces' sizes (no nested message is serialized on its own and copied again)."""
    out: list[bytes] = []
    for resource, groups in resources.values():
        body: list[bytes] = [field_prefix(_HEAD, len(resource.data)), resource.data]
        for group, spans in groups.values():
            scope: list[bytes] = [field_prefix(_HEAD, len(group.scope)), group.scope]
            for data in spans:
                scope.append(field_prefix(_CHILDREN, len(data)))
                scope.append(data)
            if group.scope_schema_url:
                url = group.scope_schema_url.encode()
                scope += (field_prefix(_SCHEMA_URL, len(url)), url)
            body.append(field_prefix(_CHILDREN, sum(map(len, scope))))
            body += scope
        if resource.schema_url:
            url = resource.schema_url.encode()
            body += (field_prefix(_SCHEMA_URL, len(url)), url)
        out.append(field_prefix(_RESOURCE_SPANS, sum(map(len, body))))
        out += body
    return b"".join(out)
