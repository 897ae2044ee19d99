"""A span that arrives twice (at-least-once export: a retried request whose first attempt was received) is one span.

Every corpus trace mapped with each of its spans delivered twice gives the trajectory it gives with each span once:
the same nodes (a copy is only a reference of its node) and the same edges. A copy read as one more span would
change what rules that count spans or children find (two children where one span arrived)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from otel_mapper.mapping.build import map_trace
from otel_mapper.model import CompletenessStatus, Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope, split_request
from otel_mapper.otlp.json_codec import decode_json_lines
from semconv.trajectory import DeclarationCategory
from tests.support.spans import envelopes, span

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
TRACES = sorted(path.parent for path in CORPUS.glob("*/*/labels.json"))


def _envelopes(directory: Path) -> list[SpanEnvelope]:
    trace_id = json.loads((directory / "labels.json").read_text())["trace_id"]
    envelopes: list[SpanEnvelope] = []
    for request in decode_json_lines((directory / "trace.otlp.json").read_bytes()):
        accepted, rejected = split_request(request)
        assert rejected is None
        envelopes.extend(item for item in accepted if item.span.trace_id.hex() == trace_id)
    return envelopes


def _shape(trajectory: Trajectory) -> tuple[object, ...]:
    nodes = tuple(dataclasses.replace(node, references=()) for node in trajectory.nodes)
    return nodes, trajectory.edges, trajectory.root_node_ids


@pytest.mark.parametrize("directory", TRACES, ids=[f"{p.parent.name}/{p.name}" for p in TRACES])
def test_every_span_delivered_twice_maps_as_delivered_once(directory: Path) -> None:
    envelopes = _envelopes(directory)
    once = map_trace(envelopes)
    twice = map_trace(envelopes + envelopes)
    assert _shape(twice.trajectory) == _shape(once.trajectory)
    redelivered = [
        note
        for note in twice.trajectory.declarations
        if note.category is DeclarationCategory.DUPLICATE_SPAN_ID and note.qualifier == "redelivered"
    ]
    assert [note.count for note in redelivered] == [len(envelopes)]
    node_ids = {node.id for node in twice.trajectory.nodes}
    assert all(node_id is None or node_id in node_ids for node_id in twice.node_of_span)


def test_copies_of_spans_received_again_lose_nothing() -> None:
    """Copies are declared (``duplicate_span_id``, ``redelivered``) but lose nothing: a complete run stays complete."""
    spans = envelopes([span(1, "root"), span(2, "child", parent=1)])
    once = map_trace(spans).trajectory
    twice = map_trace([*spans, *spans]).trajectory
    assert once.completeness.status is CompletenessStatus.COMPLETE
    assert twice.completeness == once.completeness
    duplicates = [d for d in twice.declarations if d.category is DeclarationCategory.DUPLICATE_SPAN_ID]
    assert [(d.qualifier, d.count) for d in duplicates] == [("redelivered", 2)]


def test_distinct_spans_sharing_a_span_id_make_the_run_partial() -> None:
    trajectory = map_trace(envelopes([span(1, "root"), span(2, "child", parent=1), span(2, "other", parent=1)])).trajectory
    assert trajectory.completeness.status is CompletenessStatus.PARTIAL
    assert "duplicate_span_id" in trajectory.completeness.qualifier
