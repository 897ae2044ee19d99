"""A run mapped in pieces with the state each piece leaves (``map_trace(..., prior=state)``) is the run mapped at
once: the same nodes, edges, declarations and completeness, whatever the pieces, on every corpus trace. The state
keeps facts, never content."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from otel_mapper.mapping.build import MappingOptions, MappingResult, map_trace
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.run_state import RunState, earlier_revisions_missing
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope
from processor.cli.inputs import read_inputs
from processor.cli.offline import group_by_trace, read_envelopes
from semconv.trajectory import DeclarationCategory, NodeKind
from tests.mapper.test_properties import _mixed_trace
from tests.support.spans import envelopes, span

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
CORPUS_TRACES = (
    sorted(group_by_trace(read_envelopes(read_inputs(sorted(CORPUS.glob("*/*/trace.otlp.json"))).requests)[0]).items())
    if CORPUS.is_dir()
    else []
)


def in_pieces(pieces: Sequence[Sequence[SpanEnvelope]]) -> MappingResult:
    """Map each piece with the state the pieces before it left, as revisions 1, 2, ..."""
    state: RunState | None = None
    result: MappingResult | None = None
    for revision, piece in enumerate(pieces, start=1):
        result = map_trace(piece, MappingOptions(revision=revision, keep_run=True), state)
        state = result.state
    assert result is not None
    return result


def signature(trajectory: Trajectory) -> tuple[object, ...]:
    return trajectory.nodes, trajectory.edges, trajectory.declarations, trajectory.completeness, trajectory.span_count


def by_end_time(group: Sequence[SpanEnvelope]) -> list[SpanEnvelope]:
    """The order a live run exports its spans in: as they end."""
    return sorted(group, key=lambda item: (item.span.end_time_unix_nano, item.span.span_id))


@pytest.mark.skipif(not CORPUS_TRACES, reason="corpus/traces not generated")
@pytest.mark.parametrize(
    ("trace_id", "group"), CORPUS_TRACES, ids=[trace_id.hex()[:12] for trace_id, _ in CORPUS_TRACES]
)
def test_a_corpus_run_split_at_any_boundary_maps_as_the_whole_run(trace_id: bytes, group: list[SpanEnvelope]) -> None:
    whole = signature(map_trace(group).trajectory)
    ordered = by_end_time(group)
    for cut in range(1, len(ordered)):
        assert signature(in_pieces([ordered[:cut], ordered[cut:]]).trajectory) == whole, f"split after span {cut}"
    thirds = len(ordered) // 3
    three = [ordered[:thirds], ordered[thirds : 2 * thirds], ordered[2 * thirds :]]
    assert signature(in_pieces([piece for piece in three if piece]).trajectory) == whole


@given(st.lists(st.integers(0, 3), min_size=len(_mixed_trace()), max_size=len(_mixed_trace())))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pieces_in_any_order_and_grouping_map_as_the_whole_run(piece_of: list[int]) -> None:
    spans = envelopes(_mixed_trace())
    dup_a, dup_b = (index for index, item in enumerate(spans) if item.span.name.startswith("dup "))
    piece_of[dup_b] = piece_of[dup_a]  # two distinct spans sharing an id: see the test below when they are apart
    pieces = [[item for item, piece in zip(spans, piece_of, strict=True) if piece == number] for number in range(4)]
    pieces = [piece for piece in pieces if piece]
    assert signature(in_pieces(pieces).trajectory) == signature(map_trace(spans).trajectory)


def test_node_of_span_covers_the_new_spans_only() -> None:
    spans = envelopes([span(1, "root"), span(2, "child", parent=1), span(3, "leaf", parent=2)])
    first = map_trace(spans[2:], MappingOptions(keep_run=True))
    second = map_trace(spans[:2], MappingOptions(revision=2, keep_run=True), first.state)
    assert second.node_of_span == ("span:0000000000000001", "span:0000000000000002")
    assert second.trajectory.span_count == 3 and len(second.trajectory.nodes) == 3
    assert second.state is not None and second.state.revision == 2 and second.state.settled
    assert first.state is not None and not first.state.settled


def test_a_span_seen_in_an_earlier_revision_arriving_again_is_a_redelivery() -> None:
    spans = envelopes([span(1, "root"), span(2, "child", parent=1)])
    again = envelopes([span(2, "child", parent=1)])
    first = map_trace(spans, MappingOptions(keep_run=True))
    second = map_trace(again, MappingOptions(revision=2, keep_run=True), first.state)
    assert len(second.trajectory.nodes) == 2
    child = second.trajectory.node("span:0000000000000002")
    assert child is not None and len(child.references) == 1
    redelivered = [d for d in second.trajectory.declarations if d.qualifier == "redelivered"]
    assert redelivered and redelivered[0].count == 1
    # The same as the whole run with the copy in it.
    assert signature(second.trajectory)[:3] == signature(map_trace([*spans, *again]).trajectory)[:3]


def test_a_distinct_span_reusing_an_earlier_revisions_span_id_is_kept_apart() -> None:
    """Mapped at once, the two spans are ranked by their bytes; in pieces the earlier one keeps the plain id it
    was exported with, and the later one takes the next ``dup`` id. Either way both are nodes, declared."""
    first = map_trace(envelopes([span(1, "root"), span(2, "dup a", parent=1)]), MappingOptions(keep_run=True))
    second = map_trace(envelopes([span(2, "dup b", parent=1)]), MappingOptions(revision=2), first.state)
    names = {node.id: node.name for node in second.trajectory.nodes}
    assert names["span:0000000000000002"] == "dup a" and names["span:0000000000000002#dup:1"] == "dup b"
    kept_apart = [d for d in second.trajectory.declarations if d.qualifier == "kept_apart"]
    assert kept_apart and kept_apart[0].count == 1


def test_the_state_keeps_facts_not_content() -> None:
    content = "x" * 50_000
    spans = envelopes(
        [
            span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
            span(
                2,
                "chat m",
                parent=1,
                attrs={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": f'[{{"role": "user", "parts": [{{"type": "text", "content": "{content}"}}]}}]',
                },
            ),
        ]
    )
    state = map_trace(spans, MappingOptions(keep_run=True)).state
    assert state is not None
    for kept in state.spans:
        assert not kept.view.span.attributes and not kept.view.span.events and not kept.view.span.name
    wire = sum(item.span.ByteSize() for item in spans)
    assert state.size_bytes < wire / 10


def test_merging_double_instrumented_calls_never_changes_the_kept_facts() -> None:
    """Two nested spans of one call (same response id): the inner one keeps the node and takes the outer one's
    usage, in the mapping only; the kept facts stay as the reader read them, for every later revision."""
    chat = {"gen_ai.operation.name": "chat", "gen_ai.response.id": "r1"}
    spans = envelopes(
        [
            span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
            span(2, "chat m", parent=1, attrs={**chat, "gen_ai.usage.input_tokens": 7, "gen_ai.usage.output_tokens": 3}),
            span(3, "chat m", parent=2, attrs={**chat, "gen_ai.request.model": "m"}),
        ]
    )
    first = map_trace(spans[1:], MappingOptions(keep_run=True))
    merged = first.trajectory.node("span:0000000000000003")
    assert merged is not None and merged.usage is not None and merged.usage.input_tokens == 7
    assert first.state is not None
    inner = next(kept for kept in first.state.spans if kept.view.span_id == "0000000000000003")
    assert inner.facts.usage is None
    second = map_trace(spans[:1], MappingOptions(revision=2, keep_run=True), first.state)
    again = second.trajectory.node("span:0000000000000003")
    assert again is not None and again.usage == merged.usage and again.invocation == "span:0000000000000001"
    assert inner.facts.usage is None


def test_reader_failures_add_up_over_revisions() -> None:
    state = dataclasses.replace(
        map_trace(envelopes([span(2, "child", parent=1)]), MappingOptions(keep_run=True)).state,  # type: ignore[arg-type]
        reader_failures=2,
    )
    trajectory = map_trace(envelopes([span(1, "root")]), MappingOptions(revision=2), state).trajectory
    failures = [d for d in trajectory.declarations if d.category is DeclarationCategory.ANALYSIS]
    assert failures and failures[0].count == 2


def test_a_state_of_another_trace_is_refused() -> None:
    state = map_trace(envelopes([span(1, "root")]), MappingOptions(keep_run=True)).state
    other = envelopes([span(1, "root", trace_id=bytes.fromhex("11" * 16))])
    with pytest.raises(ValueError, match="earlier state is of trace"):
        map_trace(other, MappingOptions(revision=2), state)


def test_revisions_after_one_mapped_without_its_predecessors_say_so_too() -> None:
    """Revision 1 went out unanalysed (or its state was lost): revision 2 declares its spans missing, and so does
    every revision after it, whose trajectory lacks them as well."""
    second = map_trace(
        envelopes([span(2, "child", parent=1)]),
        MappingOptions(revision=2, keep_run=True, declarations=(earlier_revisions_missing(),)),
    )
    assert second.state is not None and second.state.earlier_missing
    third = map_trace(envelopes([span(3, "other child", parent=1)]), MappingOptions(revision=3, keep_run=True), second.state)
    qualifiers = [d.qualifier for d in third.trajectory.declarations]
    assert qualifiers.count("earlier_revisions") == 1
    assert third.state is not None and third.state.earlier_missing
    whole = map_trace(envelopes([span(1, "root"), span(2, "child", parent=1)]), MappingOptions(keep_run=True))
    assert whole.state is not None and not whole.state.earlier_missing
    later = map_trace(envelopes([span(3, "other child", parent=1)]), MappingOptions(revision=2), whole.state)
    assert "earlier_revisions" not in {d.qualifier for d in later.trajectory.declarations}


def test_a_state_spilled_before_a_field_was_added_restores_with_its_default() -> None:
    state = map_trace(envelopes([span(1, "root")]), MappingOptions(keep_run=True)).state
    assert state is not None
    values = [getattr(state, item.name) for item in dataclasses.fields(state)]
    restored = RunState.__new__(RunState)
    restored.__setstate__(values[:-1])  # as pickled by a version without the last field
    assert restored == state


def test_facts_pickled_before_a_field_was_added_get_its_default() -> None:
    """A spilled run's kept spans may have been written by a version whose facts had fewer fields."""
    facts = SpanFacts(kind=NodeKind.MODEL_CALL, convention="otel-genai", name="chat", consumed_call_ids=["call_1"])
    _, slots = facts.__reduce_ex__(4)[2]
    older = {name: value for name, value in slots.items() if name not in ("id_less_results", "consumed_evidence")}
    restored = SpanFacts.__new__(SpanFacts)
    restored.__setstate__((None, older))
    assert restored == facts
    assert restored.consumed_evidence == {} and restored.consumed_evidence is not facts.consumed_evidence
    assert pickle.loads(pickle.dumps(facts)) == facts
