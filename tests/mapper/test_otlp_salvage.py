"""Requests that do not decode as a whole are split at the wire level; one bad span does not sink its batch."""

from __future__ import annotations

import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from otel_mapper.otlp.held import open_spans
from otel_mapper.otlp.protowire import fields
from otel_mapper.otlp.salvage import WireError, decode_trace_request, salvage_trace_request

TRACE = bytes(range(1, 17))


def nested_value(depth: int) -> bytes:
    """An AnyValue nested ``depth`` arrays deep, built at the wire level (no recursion)."""
    from otel_mapper.otlp.protowire import length_delimited

    inner = AnyValue(string_value="x").SerializeToString()
    for _ in range(depth):
        inner = length_delimited(5, length_delimited(1, inner))  # AnyValue.array_value{values: inner}
    return inner


def request_with_bad_span(bad: str) -> tuple[bytes, int]:
    """Four good spans and a MARKER span that does not decode, built at the wire level."""
    from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource
    from opentelemetry.proto.trace.v1.trace_pb2 import Span

    from otel_mapper.otlp.protowire import length_delimited as ld

    resource = Resource()
    resource.attributes.add(key="service.name").value.string_value = "agent"
    spans = [Span(trace_id=TRACE, span_id=n.to_bytes(8, "big"), name=f"s{n}").SerializeToString() for n in range(1, 5)]
    marker = Span(trace_id=TRACE, span_id=(9).to_bytes(8, "big"), name="MARKER").SerializeToString()
    if bad == "deep":
        marker += ld(9, ld(1, b"k") + ld(2, nested_value(1000)))  # attributes: {k: [[[...]]]}
    else:
        marker = marker.replace(b"MARKER", b"\xff\xfeRKER")
    scope_spans = ld(1, InstrumentationScope(name="lib").SerializeToString())
    scope_spans += b"".join(ld(2, span) for span in [*spans, marker])
    resource_spans = ld(1, resource.SerializeToString()) + ld(2, scope_spans) + ld(3, b"https://example/r")
    return ld(1, resource_spans), 4


@pytest.mark.parametrize("bad", ["deep", "utf8"])
def test_one_undecodable_span_is_forwarded_raw_and_the_rest_decoded(bad: str) -> None:
    body, good = request_with_bad_span(bad)
    with pytest.raises(DecodeError):
        ExportTraceServiceRequest.FromString(body)
    decoded = decode_trace_request(body)
    envelopes = open_spans(decoded.spans)
    assert [e.span.name for e in envelopes] == [f"s{n}" for n in range(1, good + 1)]
    assert envelopes[0].resource_schema_url == "https://example/r"
    assert envelopes[0].scope.name == "lib"
    assert decoded.spans[0].group.resource.service_name == "agent"
    assert len(decoded.raw_requests) == 1 and decoded.rejected == 0
    raw = decoded.raw_requests[0]
    # The raw request keeps the span's bytes exactly, under its resource and scope.
    assert raw.count(b"agent") == 1 and b"lib" in raw and (b"MARKER" in raw or b"\xff\xfeRKER" in raw)
    assert len(list(fields(memoryview(raw)))) == 1


def test_malformed_ids_are_still_rejected_when_salvaging() -> None:
    request = ExportTraceServiceRequest()
    scope_spans = request.resource_spans.add().scope_spans.add()
    scope_spans.spans.add(trace_id=bytes(16), span_id=b"\x01" * 8, name="zero trace")
    scope_spans.spans.add(trace_id=TRACE, span_id=b"\x02" * 8, name="BAD")
    body = request.SerializeToString().replace(b"BAD", b"\xff\xff\xff")
    salvaged = salvage_trace_request(body)
    assert salvaged.rejected == 1 and salvaged.undecodable == 1 and salvaged.spans == []


def test_a_broken_wire_structure_is_refused_as_a_whole() -> None:
    body, _ = request_with_bad_span("deep")
    with pytest.raises(WireError):
        decode_trace_request(body[: len(body) // 2])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_random_bytes_decode_or_raise_wire_error(data: bytes) -> None:
    try:
        decoded = decode_trace_request(data)
    except WireError:
        return
    assert decoded.rejected >= 0 and all(len(e.span.trace_id) == 16 for e in open_spans(decoded.spans))
