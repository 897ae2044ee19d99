"""Hypothesis strategies for hostile OTLP trace requests: random bytes, mutated valid requests, and structurally
valid requests with wild contents (odd id lengths, deep AnyValues, NaN, unknown enums, odd text)."""

from __future__ import annotations

import math

from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

__all__ = ["FUZZ_TRACE_ID", "any_values", "hostile_bodies", "structured_requests"]

FUZZ_TRACE_ID = bytes.fromhex("f0" * 16)
"""Trace id of the valid part of structured requests (so a test can tell them from its canary)."""

_scalars = st.one_of(
    st.text(max_size=40).map(lambda text: AnyValue(string_value=text)),
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(lambda number: AnyValue(int_value=number)),
    st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e308]).map(lambda number: AnyValue(double_value=number)),
    st.booleans().map(lambda flag: AnyValue(bool_value=flag)),
    st.binary(max_size=40).map(lambda data: AnyValue(bytes_value=data)),
)


def _array(children: list[AnyValue]) -> AnyValue:
    value = AnyValue()
    value.array_value.values.extend(children)
    return value


def _kvlist(children: list[tuple[str, AnyValue]]) -> AnyValue:
    value = AnyValue()
    value.kvlist_value.values.extend(KeyValue(key=key, value=child) for key, child in children)
    return value


any_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(_array),
        st.lists(st.tuples(st.text(max_size=12), inner), max_size=4).map(_kvlist),
    ),
    max_leaves=30,
)

_ids = st.one_of(st.just(b""), st.binary(min_size=1, max_size=20), st.just(bytes(8)), st.just(bytes(16)))
_names = st.sampled_from(["gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.agent.name",
                          "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.usage.input_tokens", "x"])


@st.composite
def _span(draw: st.DrawFn, number: int) -> Span:
    span = Span(
        trace_id=draw(st.one_of(st.just(FUZZ_TRACE_ID), _ids)),
        span_id=draw(st.one_of(st.just((number + 1).to_bytes(8, "big")), _ids)),
        parent_span_id=draw(st.one_of(st.just(b""), st.just((number % 3 + 1).to_bytes(8, "big")), _ids)),
        name=draw(st.text(max_size=30)),
        kind=draw(st.integers(min_value=0, max_value=2**31 - 1)),  # type: ignore[arg-type]
        start_time_unix_nano=draw(st.integers(min_value=0, max_value=2**64 - 1)),
        end_time_unix_nano=draw(st.integers(min_value=0, max_value=2**64 - 1)),
    )
    span.status.code = draw(st.integers(min_value=0, max_value=2**31 - 1))  # type: ignore[assignment]
    for key, value in draw(st.lists(st.tuples(_names, any_values), max_size=6)):
        span.attributes.append(KeyValue(key=key, value=value))
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        event = span.events.add(name=draw(st.sampled_from(["exception", "gen_ai.choice", ""])))
        event.attributes.append(KeyValue(key="exception.type", value=draw(any_values)))
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        span.links.add(trace_id=draw(_ids), span_id=draw(_ids))
    return span


@st.composite
def structured_requests(draw: st.DrawFn) -> bytes:
    request = ExportTraceServiceRequest()
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        resource_spans = request.resource_spans.add()
        resource_spans.resource.attributes.append(KeyValue(key="service.name", value=draw(any_values)))
        for _ in range(draw(st.integers(min_value=0, max_value=2))):
            scope_spans = resource_spans.scope_spans.add()
            scope_spans.scope.name = draw(st.text(max_size=10))
            count = draw(st.integers(min_value=0, max_value=6))
            scope_spans.spans.extend(draw(_span(number)) for number in range(count))
    return request.SerializeToString()


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(structured_requests()))
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        if not data:
            break
        position = draw(st.integers(min_value=0, max_value=len(data) - 1))
        operation = draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        if operation == "flip":
            data[position] ^= draw(st.integers(min_value=1, max_value=255))
        elif operation == "cut":
            del data[position:]
        elif operation == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=8))
        else:
            del data[position : position + draw(st.integers(min_value=1, max_value=8))]
    return bytes(data)


hostile_bodies = st.one_of(st.binary(max_size=2048), _mutated(), structured_requests())
"""Random bytes, mutated requests, and structurally valid requests with wild contents."""
