"""Counting a trace request's spans without decoding it (what a request refused before decoding counts as refused):
the count equals the decoder's on every body that decodes, and never raises on one that does not."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp.json_codec import encode_json_line
from otel_mapper.otlp.protowire import length_delimited
from otel_mapper.otlp.salvage import WireError, decode_trace_request
from otel_mapper.otlp.span_count import count_json_trace_spans, count_trace_spans, json_span_count
from tests.support.otlp_strategies import hostile_bodies, structured_requests
from tests.support.room import layered_request


def decoded_count(body: bytes) -> int | None:
    """What the protobuf decoder counts, ``None`` when the body does not decode."""
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except Exception:
        return None
    return sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)


@pytest.mark.parametrize("layout", [[], [[]], [[0, 0]], [[1]], [[3, 0, 2], [], [4], [1, 1, 1]]], ids=str)
def test_spans_of_several_resources_and_scopes_are_counted(layout: list[list[int]]) -> None:
    request = layered_request(layout)
    body = request.SerializeToString()
    assert count_trace_spans(body) == sum(map(sum, layout))
    assert count_json_trace_spans(encode_json_line(request)) == sum(map(sum, layout))


@settings(max_examples=200, deadline=None, database=None)
@given(structured_requests())
def test_the_wire_count_equals_the_decoded_count(body: bytes) -> None:
    assert count_trace_spans(body) == decoded_count(body)


@settings(max_examples=300, deadline=None, database=None)
@given(hostile_bodies)
def test_any_body_is_counted_without_raising_and_as_decoded_when_it_decodes(body: bytes) -> None:
    count = count_trace_spans(body)
    decoded = decoded_count(body)
    assert count >= 0
    if decoded is not None:
        assert count == decoded


@settings(max_examples=100, deadline=None, database=None)
@given(structured_requests())
def test_the_json_count_equals_the_decoded_count(body: bytes) -> None:
    request = ExportTraceServiceRequest.FromString(body)
    assert count_json_trace_spans(encode_json_line(request)) == decoded_count(body)


def test_a_span_that_does_not_decode_on_its_own_is_counted_as_the_receivers_forward_it() -> None:
    request = layered_request([[2]])
    bad_span = b"\x0a\x05ab"  # a trace_id whose length runs past the end of its span
    body = request.SerializeToString() + length_delimited(1, length_delimited(2, length_delimited(2, bad_span)))
    decoded = decode_trace_request(body)
    assert decoded_count(body) is None and len(decoded.spans) + len(decoded.raw_requests) == 3
    assert count_trace_spans(body) == 3


def test_fields_the_decoder_keeps_as_unknown_are_not_spans() -> None:
    """Field 1 or 2 with another wire type, and a group: the decoder skips them, and so does the count."""
    one_span = length_delimited(1, length_delimited(2, length_delimited(2, b"")))
    odd = [
        b"\x08\x05",  # resource_spans as a varint
        length_delimited(1, b"\x10\x01" + length_delimited(2, b"\x10\x07")),  # scope_spans, then spans, as varints
        b"\x0b" + length_delimited(1, b"") + b"\x0c",  # a group holding what looks like resource_spans
    ]
    for extra in odd:
        body = one_span + extra + one_span
        assert decoded_count(body) == 2
        assert count_trace_spans(body) == 2


def test_a_broken_body_counts_the_spans_before_the_break() -> None:
    two_scopes = layered_request([[2, 3]]).SerializeToString()
    resource = length_delimited(1, b"")[:-1]  # a resource_spans whose length byte is missing
    with pytest.raises(WireError):
        decode_trace_request(two_scopes + resource)
    assert count_trace_spans(two_scopes + resource) == 5
    assert count_trace_spans(two_scopes[:-4]) == 0  # the only resource_spans runs past the end
    assert count_trace_spans(b"\xff\xff\xff\x07garbage") == 0
    assert count_trace_spans(b"\x00") == 0  # field number 0


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"not json",
        b"[" * 5000 + b"]" * 5000,
        b'{"resourceSpans": 7}',
        b'[{"spans": [1]}]',
        b'{"resourceSpans": [7, {"scopeSpans": {"spans": [1]}}, {"scopeSpans": [null, {"spans": "x"}]}]}',
    ],
    ids=["empty", "not json", "too deep", "not an array", "top-level array", "wrong shapes"],
)
def test_json_that_is_not_a_request_counts_nothing(payload: bytes) -> None:
    assert count_json_trace_spans(payload) == 0


def test_json_counts_both_key_spellings_and_every_entry() -> None:
    data = orjson.loads(
        b'{"resource_spans": [{"scope_spans": [{"spans": [{}, 7]}]}, {"scopeSpans": [{"spans": [{}]}]}]}'
    )
    assert json_span_count(data) == 3


@settings(max_examples=200, deadline=None, database=None)
@given(st.binary(max_size=64))
def test_json_counting_never_raises(payload: bytes) -> None:
    assert count_json_trace_spans(payload) >= 0
