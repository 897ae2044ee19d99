"""Spans held as bytes between receiver and analysis: nothing is lost or reordered on the way through, and export
without parsing gives the same requests as export from parsed spans."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from bench.synthetic import make_request
from otel_mapper.otlp.envelopes import build_requests_with_origins, split_request
from otel_mapper.otlp.held import MAX_SERVICE_NAME_CHARS, hold_envelopes, hold_request, open_spans, wire_requests
from otel_mapper.otlp.json_codec import decode_json_lines

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def corpus_requests() -> list[ExportTraceServiceRequest]:
    paths = sorted(CORPUS.glob("traces/*/*/trace.otlp.json")) + sorted(CORPUS.glob("edge_cases/*.otlp.json"))
    assert paths
    return [request for path in paths for request in decode_json_lines(path.read_bytes())]


def mixed_request() -> ExportTraceServiceRequest:
    """Two resources (one with two scopes, one scope empty of name), schema URLs, spans of two traces interleaved."""
    request = ExportTraceServiceRequest()
    for resource_number in range(2):
        resource_spans = request.resource_spans.add(schema_url=f"https://example/r{resource_number}")
        resource_spans.resource.attributes.add(key="service.name").value.string_value = f"svc{resource_number}"
        for scope_number in range(2 - resource_number):
            scope_spans = resource_spans.scope_spans.add(schema_url="https://example/s" if scope_number else "")
            if scope_number:
                scope_spans.scope.CopyFrom(InstrumentationScope(name="lib", version="1"))
            for number in range(1, 6):
                scope_spans.spans.add(
                    trace_id=(number % 2 + 1).to_bytes(16, "big"),
                    span_id=(100 * resource_number + 10 * scope_number + number).to_bytes(8, "big"),
                    parent_span_id=b"" if number == 1 else (1).to_bytes(8, "big"),
                    name=f"span {number}",
                )
    return request


def serialized(pairs: list[tuple[ExportTraceServiceRequest, list[int]]]) -> list[tuple[bytes, list[int]]]:
    return [(request.SerializeToString(), origins) for request, origins in pairs]


@pytest.mark.parametrize("max_bytes", [4 * 1024 * 1024, 300])
def test_held_spans_export_exactly_as_parsed_spans_do(max_bytes: int) -> None:
    for request in [*corpus_requests(), mixed_request(), make_request(1, 3, 7)]:
        envelopes, rejected = split_request(request)
        held, held_rejected = hold_request(request)
        assert rejected == held_rejected
        for number, span in enumerate(held):
            span.origin = number
        for number, envelope in enumerate(envelopes):
            envelope.origin = number
        expected = serialized(build_requests_with_origins(envelopes, max_bytes))
        assert serialized(build_requests_with_origins(open_spans(held), max_bytes)) == expected
        # Without parsing: the same requests, message for message (the bytes may order fields differently).
        unparsed = wire_requests(held, max_bytes)
        assert [origins for _, origins in unparsed] == [origins for _, origins in expected]
        assert [ExportTraceServiceRequest.FromString(payload) for payload, _ in unparsed] == [
            ExportTraceServiceRequest.FromString(payload) for payload, _ in expected
        ]


def test_small_requests_split_by_size_and_keep_every_span_once() -> None:
    request = make_request(1, 4, 10)
    held, _ = hold_request(request)
    limit = 4 * max(len(span.data) for span in held)
    parts = wire_requests(held, limit)
    assert len(parts) > 1
    assert all(len(payload) <= limit + 64 for payload, _ in parts)  # envelope overhead is estimated, not exact
    spans = [
        span
        for payload, _ in parts
        for resource in ExportTraceServiceRequest.FromString(payload).resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    assert [span.SerializeToString() for span in spans] == [span.data for span in held]


def test_hold_keeps_what_the_assembler_needs_and_rejects_bad_ids_like_split_request() -> None:
    request = mixed_request()
    bad = request.resource_spans[0].scope_spans[0].spans.add(trace_id=bytes(16), span_id=b"\x01" * 8)
    held, rejected = hold_request(request)
    assert rejected is not None and rejected.count == 1 and "all zero" in rejected.reason
    assert all(span.data != bad.SerializeToString() for span in held)
    parsed = [Span.FromString(span.data) for span in held]
    assert [span.trace_id for span in held] == [span.trace_id for span in parsed]
    assert [span.is_root for span in held] == [not span.parent_span_id for span in parsed]
    assert {span.group.resource.service_name for span in held} == {"svc0", "svc1"}
    # One trace id object per trace and request, shared by its spans.
    assert len({id(span.trace_id) for span in held}) == len({span.trace_id for span in held}) == 2


def test_service_name_is_bounded() -> None:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.CopyFrom(Resource())
    resource_spans.resource.attributes.add(key="service.name").value.string_value = "s" * 10_000
    resource_spans.scope_spans.add().spans.add(trace_id=b"\x01" * 16, span_id=b"\x02" * 8)
    (held,), _ = hold_request(request)
    assert held.group.resource.service_name == "s" * MAX_SERVICE_NAME_CHARS


def test_hold_envelopes_round_trips_with_grouping_and_origins() -> None:
    envelopes, _ = split_request(mixed_request())
    for number, envelope in enumerate(envelopes):
        envelope.origin = 40 + number
    reopened = open_spans(hold_envelopes(envelopes))
    assert [(e.span, e.resource, e.resource_schema_url, e.scope, e.scope_schema_url, e.origin) for e in reopened] == [
        (e.span, e.resource, e.resource_schema_url, e.scope, e.scope_schema_url, e.origin) for e in envelopes
    ]
    assert serialized(build_requests_with_origins(reopened, 1 << 20)) == serialized(
        build_requests_with_origins(envelopes, 1 << 20)
    )
