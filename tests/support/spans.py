"""Helpers to build spans, envelopes and OTLP requests in tests, with deterministic ids and times.

``span(1, "chat gpt-4o", parent=0, attrs={...})``: integer ids become 8-byte span ids (``hex_id(1)`` is their
hex form); attribute values are Python values (str, int, float, bool, bytes, list, dict) converted to AnyValue.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from otel_mapper.mapping.build import MappingResult, map_trace
from otel_mapper.mapping.graph import CausalIndex
from otel_mapper.model import Edge, Node, Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope, split_request
from semconv.trajectory import EdgeType, NodeKind

__all__ = [
    "AGENTS_SDK_RUN_KINDS",
    "TRACE_ID",
    "categories",
    "edges_from",
    "get_node",
    "has_edge",
    "kinds",
    "ordered",
    "any_value",
    "envelopes",
    "hex_id",
    "map_envelopes",
    "map_spans",
    "node_id",
    "request",
    "span",
]

TRACE_ID = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")
AGENTS_SDK_RUN_KINDS = {
    1: NodeKind.WORKFLOW_STEP, 2: NodeKind.WORKFLOW_STEP, 3: NodeKind.AGENT_INVOCATION, 4: NodeKind.WORKFLOW_STEP,
    5: NodeKind.MODEL_CALL, 6: NodeKind.TOOL_EXECUTION, 7: NodeKind.WORKFLOW_STEP, 8: NodeKind.MODEL_CALL,
}
"""Node kinds of one OpenAI Agents SDK ``Runner.run`` built as spans 1-8, as every instrumentation of the SDK nests
them: the trace, the task, the agent, a turn with its generation and function span, a second turn with its
generation."""
BASE_TIME = 1_700_000_000_000_000_000


def hex_id(number: int) -> str:
    return number.to_bytes(8, "big").hex()


def node_id(number: int, suffix: str | None = None) -> str:
    return f"span:{hex_id(number)}" + (f"#{suffix}" if suffix else "")


def any_value(value: Any) -> AnyValue:
    result = AnyValue()
    if isinstance(value, bool):
        result.bool_value = value
    elif isinstance(value, int):
        result.int_value = value
    elif isinstance(value, float):
        result.double_value = value
    elif isinstance(value, str):
        result.string_value = value
    elif isinstance(value, bytes):
        result.bytes_value = value
    elif isinstance(value, (list, tuple)):
        result.array_value.values.extend(any_value(item) for item in value)
    elif isinstance(value, Mapping):
        result.kvlist_value.values.extend(KeyValue(key=str(key), value=any_value(item)) for key, item in value.items())
    elif value is not None:
        raise TypeError(f"no AnyValue for {type(value).__name__}")
    return result


def span(
    number: int,
    name: str,
    *,
    parent: int | None = None,
    attrs: Mapping[str, Any] | None = None,
    trace_id: bytes = TRACE_ID,
    error: str | None = None,
    events: Iterable[tuple[str, Mapping[str, Any]]] = (),
    links: Iterable[tuple[int, Mapping[str, Any]]] = (),
    start: int | None = None,
    end: int | None = None,
    kind: int = Span.SPAN_KIND_INTERNAL,
) -> Span:
    """One span. ``error`` sets status ERROR with that message; times default to a fixed base plus the id."""
    result = Span(
        trace_id=trace_id,
        span_id=number.to_bytes(8, "big"),
        parent_span_id=parent.to_bytes(8, "big") if parent is not None else b"",
        name=name,
        kind=kind,  # type: ignore[arg-type]
        start_time_unix_nano=BASE_TIME + number * 1_000 if start is None else start,
        end_time_unix_nano=BASE_TIME + number * 1_000 + 500 if end is None else end,
    )
    for key, value in (attrs or {}).items():
        result.attributes.append(KeyValue(key=key, value=any_value(value)))
    if error is not None:
        result.status.code = Status.STATUS_CODE_ERROR
        result.status.message = error
    for event_name, event_attrs in events:
        event = result.events.add(name=event_name, time_unix_nano=result.start_time_unix_nano)
        for key, value in event_attrs.items():
            event.attributes.append(KeyValue(key=key, value=any_value(value)))
    for target, link_attrs in links:
        link = result.links.add(trace_id=trace_id, span_id=target.to_bytes(8, "big"))
        for key, value in link_attrs.items():
            link.attributes.append(KeyValue(key=key, value=any_value(value)))
    return result


def request(spans: Sequence[Span], *, service: str = "test-service", scope: str = "tests") -> ExportTraceServiceRequest:
    result = ExportTraceServiceRequest()
    resource_spans = result.resource_spans.add()
    resource_spans.resource.CopyFrom(Resource(attributes=[KeyValue(key="service.name", value=any_value(service))]))
    scope_spans = resource_spans.scope_spans.add()
    scope_spans.scope.CopyFrom(InstrumentationScope(name=scope))
    scope_spans.spans.extend(spans)
    return result


def envelopes(spans: Sequence[Span], *, service: str = "test-service", scope: str = "tests") -> list[SpanEnvelope]:
    accepted, rejected = split_request(request(spans, service=service, scope=scope))
    assert rejected is None, rejected
    return accepted


def map_envelopes(items: Sequence[SpanEnvelope]) -> MappingResult:
    return map_trace(items)


def map_spans(spans: Sequence[Span], *, scope: str = "tests") -> Trajectory:
    return map_trace(envelopes(spans, scope=scope)).trajectory


# --- assertions over mapped trajectories ------------------------------------------------------------------


def map_scoped_spans(scoped: Sequence[tuple[str, Sequence[Span]]]) -> Trajectory:
    """Map spans of several instrumentation scopes, one resource: ``(scope name, spans)`` pairs in order."""
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    for scope, spans in scoped:
        scope_spans = resource_spans.scope_spans.add()
        scope_spans.scope.CopyFrom(InstrumentationScope(name=scope))
        scope_spans.spans.extend(spans)
    accepted, rejected = split_request(request)
    assert rejected is None
    return map_trace(accepted).trajectory


def get_node(trajectory: Trajectory, node_id_: str) -> Node:
    found = trajectory.node(node_id_)
    assert found is not None, f"no node {node_id_}; have {[n.id for n in trajectory.nodes]}"
    return found


def edges_from(trajectory: Trajectory, node_id_: str, edge_type: EdgeType | None = None) -> list[Edge]:
    return [e for e in trajectory.edges if e.from_node == node_id_ and (edge_type is None or e.type is edge_type)]


def has_edge(trajectory: Trajectory, from_node: str, edge_type: EdgeType, to_node: str) -> bool:
    return any(e.from_node == from_node and e.type is edge_type and e.to_node == to_node for e in trajectory.edges)


def kinds(trajectory: Trajectory) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in trajectory.nodes:
        counts[item.kind.value] = counts.get(item.kind.value, 0) + 1
    return counts


def categories(trajectory: Trajectory) -> set[str]:
    return {d.category.value for d in trajectory.declarations}


def ordered(trajectory: Trajectory, first: str, second: str) -> bool | None:
    index = CausalIndex.build((n.id for n in trajectory.nodes), trajectory.edges)
    return index.ordered(first, second)
