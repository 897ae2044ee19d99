"""The perturbations ``otel-trajectory eval`` analyses each labelled trace under (shuffled arrival order, moved
timestamps), and the check that compares the analyses; the command's report of it: ``test_eval_cmd.py``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from otel_mapper.diagnosis import Diagnosis
from otel_mapper.mapping.build import map_trace
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope
from processor.cli import eval_cmd
from processor.cli.eval_invariance import check_invariance, perturbed, signature
from processor.detectors.chain import DetectorChain
from processor.detectors.config import DetectorsConfig
from processor.detectors.registry import load_detectors

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
TRACE = CORPUS / "openai-v2-content-on" / "parallel_tools"


def _envelopes() -> list[SpanEnvelope]:
    if not (TRACE / "trace.otlp.json").exists():
        pytest.skip("corpus traces not present")
    trace_id, spans = eval_cmd._spans(TRACE / "trace.otlp.json", None)
    return eval_cmd._with_logs(TRACE / "trace.otlp.json", trace_id, spans)


def _analyse(envelopes: list[SpanEnvelope]) -> tuple[Trajectory, Diagnosis]:
    config = DetectorsConfig()
    trajectory = map_trace(envelopes).trajectory
    return trajectory, DetectorChain(load_detectors(config), config).run(trajectory)


def test_a_perturbation_keeps_every_span_and_duration_and_moves_their_order() -> None:
    envelopes = _envelopes()
    moved = perturbed(envelopes, "seed")

    def by_id(items: list[SpanEnvelope]) -> dict[bytes, SpanEnvelope]:
        return {item.span.span_id: item for item in items}

    before, after = by_id(envelopes), by_id(moved)
    assert before.keys() == after.keys()
    for span_id, item in before.items():
        span, other = item.span, after[span_id].span
        assert other.end_time_unix_nano - other.start_time_unix_nano == span.end_time_unix_nano - span.start_time_unix_nano
        assert other.name == span.name and other.attributes == span.attributes and after[span_id].resource == item.resource
    assert [item.span.span_id for item in moved] != [item.span.span_id for item in envelopes]

    def start_order(items: list[SpanEnvelope]) -> list[bytes]:
        return [item.span.span_id for item in sorted(items, key=lambda item: item.span.start_time_unix_nano)]

    assert start_order(moved) != start_order(envelopes)  # time order changed, not just the list
    assert [item.span.span_id for item in perturbed(envelopes, "seed")] == [item.span.span_id for item in moved]  # seeded
    assert all(e.span.start_time_unix_nano > 0 for e in envelopes)  # the originals are copied, never changed


def test_an_analysis_that_reads_timestamps_is_caught() -> None:
    envelopes = _envelopes()

    def reads_time(items: list[SpanEnvelope]) -> tuple[Trajectory, Diagnosis]:
        trajectory, diagnosis = _analyse(items)
        earliest = min(items, key=lambda item: item.span.start_time_unix_nano).span.name
        return trajectory, dataclasses.replace(diagnosis, root_cause=earliest)

    baseline = signature(*reads_time(envelopes))
    invariant, why = check_invariance(envelopes, "t", baseline, reads_time, 5)
    assert not invariant and "root cause changed" in why

    honest, note = check_invariance(envelopes, "t", signature(*_analyse(envelopes)), _analyse, 3)
    assert honest and note == ""
