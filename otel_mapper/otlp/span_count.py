"""How many spans a trace request carries, counted without decoding it: what a request refused before decoding
(the pipeline has no room) adds to the refused-spans count.

Binary protobuf (:func:`count_trace_spans`) is walked three levels deep: ``ExportTraceServiceRequest`` field 1
(``resource_spans``) → ``ResourceSpans`` field 2 (``scope_spans``) → ``ScopeSpans`` field 2 (``spans``), counting
the span entries without reading them. The protobuf runtime does the walk, against a schema of those three levels
only, with each span declared as ``bytes``: every other field is skipped by its length as an unknown field, and a
span is never decoded. That walk runs in the runtime's C parser: the same walk in Python over
:mod:`.protowire` costs more than ten times as much, about what the C parser takes to decode the whole request.
The schema is three levels deep whatever the input; unknown groups nest only as far as the parser's depth limit.
A field with the right number and another wire type is an unknown field here as in the full decoder, so it is no
span either; groups (a wire type OTLP does not use) are skipped as the full decoder skips them. So the count
equals what the decoder sees whenever the body decodes; where a span does not decode on its own (too deep, not
UTF-8) it is still counted, as the receivers forward such spans (:mod:`.salvage`).

A body whose wire structure is broken (truncated, a length running past its message) counts the spans walked
before the first field that cannot be read, with :func:`~otel_mapper.otlp.protowire.fields` (iterative, every
length checked): the count never raises.

OTLP/JSON (:func:`count_json_trace_spans`): the body is parsed as JSON (orjson) and the ``spans`` arrays are
counted at the three levels of :data:`~otel_mapper.otlp.json_codec.TRACE_LAYOUT`; the request message is not
built, which is where decoding OTLP/JSON spends its time. A body that is not JSON counts 0.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, Protocol, cast

import orjson
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from otel_mapper.otlp.json_codec import TRACE_LAYOUT
from otel_mapper.otlp.protowire import WireError, fields

__all__ = ["count_json_trace_spans", "count_trace_spans", "json_span_count"]

# Field numbers (opentelemetry/proto/collector/trace/v1, trace/v1).
_REQUEST_RESOURCE_SPANS: Final = 1
_CHILDREN: Final = 2
"""``ResourceSpans.scope_spans`` / ``ScopeSpans.spans``."""

_JSON_RESOURCE_SPANS: Final = TRACE_LAYOUT[0]
_JSON_SCOPE_SPANS: Final = _JSON_RESOURCE_SPANS.below[0]
_JSON_SPANS: Final = _JSON_SCOPE_SPANS.below[0]


class _ScopeSpans(Protocol):
    spans: Sequence[bytes]


class _ResourceSpans(Protocol):
    scope_spans: Sequence[_ScopeSpans]


class _Request(Protocol):
    resource_spans: Sequence[_ResourceSpans]


def _outline_schema() -> descriptor_pb2.FileDescriptorProto:
    """The request's path to its spans and nothing else, spans as ``bytes`` (their contents are not read)."""
    package = "otel_trajectory.span_count"
    schema = descriptor_pb2.FileDescriptorProto(name=f"{package.replace('.', '/')}.proto", package=package)
    schema.syntax = "proto3"
    repeated = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
    message = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
    levels = (
        ("Request", "resource_spans", _REQUEST_RESOURCE_SPANS, f".{package}.ResourceSpans"),
        ("ResourceSpans", "scope_spans", _CHILDREN, f".{package}.ScopeSpans"),
    )
    for name, field_name, number, type_name in levels:
        level = schema.message_type.add(name=name)
        level.field.add(name=field_name, number=number, label=repeated, type=message, type_name=type_name)
    spans = schema.message_type.add(name="ScopeSpans")
    spans.field.add(name="spans", number=_CHILDREN, label=repeated, type=descriptor_pb2.FieldDescriptorProto.TYPE_BYTES)
    return schema


_POOL: Final = descriptor_pool.DescriptorPool()  # its own pool: nothing else sees these names
_POOL.Add(_outline_schema())
_OUTLINE: Final = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("otel_trajectory.span_count.Request"))


def count_trace_spans(body: bytes) -> int:
    """The spans of a binary ``ExportTraceServiceRequest``, counted on the wire; never raises (module docstring)."""
    outline = _OUTLINE()
    try:
        outline.ParseFromString(body)
    except Exception:  # DecodeError, or anything upb raises on garbage: count what the wire structure allows
        return _walked_count(body)
    request = cast(_Request, outline)
    return sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)


def _walked_count(body: bytes) -> int:
    """The span entries before the first field of the three levels that cannot be read."""
    walked = 0
    try:
        for resource_spans in _children(memoryview(body), _REQUEST_RESOURCE_SPANS):
            for scope_spans in _children(resource_spans, _CHILDREN):
                for _span in _children(scope_spans, _CHILDREN):
                    walked += 1
    except WireError:
        pass  # the rest of the body cannot be read: what was walked is the count
    return walked


def _children(message: memoryview, number: int) -> Iterator[memoryview]:
    """The length-delimited fields numbered ``number`` of one message; raises :class:`WireError` where its wire
    format breaks."""
    for field_number, _wire_type, value in fields(message):
        if field_number == number and isinstance(value, memoryview):  # LEN fields only
            yield value


def count_json_trace_spans(payload: bytes) -> int:
    """The spans of an OTLP/JSON ``ExportTraceServiceRequest``: 0 when the body is not JSON. CPU-bound on large
    bodies (a JSON parse): run it off an event loop."""
    try:
        data = orjson.loads(payload)
    except orjson.JSONDecodeError:  # not JSON, nested past orjson's limit, not UTF-8
        return 0
    return json_span_count(data)


def json_span_count(data: object) -> int:
    """The entries of the ``spans`` arrays of a parsed OTLP/JSON request (either key spelling); parts of another
    shape count nothing. Iterative, three levels whatever the input's nesting."""
    resources = _items(data, _JSON_RESOURCE_SPANS.keys)
    scopes = (scope for resource in resources for scope in _items(resource, _JSON_SCOPE_SPANS.keys))
    return sum(len(spans) for scope in scopes for spans in _arrays(scope, _JSON_SPANS.keys))


def _items(obj: object, keys: tuple[str, ...]) -> Iterator[object]:
    for array in _arrays(obj, keys):
        yield from array


def _arrays(obj: object, keys: tuple[str, ...]) -> Iterator[list[object]]:
    if not isinstance(obj, dict):
        return
    for key in keys:
        array = obj.get(key)
        if isinstance(array, list):
            yield array
