"""The pipeline's room as the trace receivers ask it before decoding (a fake ``RoomCheck``), and trace requests
that spread their spans over several resources and scopes, for counting what a refusal refuses."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from processor.pipeline.intake import Backpressure

__all__ = ["MESSAGE", "Room", "layered_request"]

MESSAGE = "analysis and export are behind"
"""What a full :class:`Room` says, as admission control does."""
TRACE_ID = bytes(range(1, 17))


class Room:
    """Full or not (the test sets ``full``), and how often it was asked."""

    def __init__(self, *, full: bool, retry_after: float = 2.0) -> None:
        self.full = full
        self.retry_after = retry_after
        self.asked = 0

    def __call__(self) -> None:
        self.asked += 1
        if self.full:
            raise Backpressure(MESSAGE, retry_after=self.retry_after)


def layered_request(layout: Sequence[Sequence[int]]) -> ExportTraceServiceRequest:
    """One resource per inner sequence, one scope per number in it holding that many spans (ids 1, 2, ...)."""
    request = ExportTraceServiceRequest()
    number = 0
    for scopes in layout:
        resource_spans = request.resource_spans.add()
        resource_spans.resource.attributes.add(key="service.name").value.string_value = "agent"
        for count in scopes:
            scope_spans = resource_spans.scope_spans.add()
            scope_spans.scope.name = "scope"
            for _ in range(count):
                number += 1
                scope_spans.spans.add(trace_id=TRACE_ID, span_id=number.to_bytes(8, "big"), name=f"s{number}")
    return request
