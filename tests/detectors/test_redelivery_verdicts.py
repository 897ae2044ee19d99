"""Spans received twice change no verdict: every corpus trace with each span delivered twice gets the diagnosis it
gets with each span once (verdict, root cause, terminal status, findings and every check's result), under the
corpus's detector config. The mapping side is :mod:`tests.mapper.test_redelivery`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from otel_mapper.diagnosis import Diagnosis
from otel_mapper.mapping.build import map_trace
from otel_mapper.otlp.envelopes import SpanEnvelope, split_request
from otel_mapper.otlp.json_codec import decode_json_lines
from processor.config.loader import load_config
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted(path.parent for path in (ROOT / "corpus" / "traces").glob("*/*/labels.json"))


@pytest.fixture(scope="module")
def chain() -> DetectorChain:
    config = load_config(ROOT / "corpus" / "config.yaml")
    return DetectorChain(load_detectors(config.detectors), config.detectors)


def _envelopes(directory: Path) -> list[SpanEnvelope]:
    trace_id = json.loads((directory / "labels.json").read_text())["trace_id"]
    envelopes: list[SpanEnvelope] = []
    for request in decode_json_lines((directory / "trace.otlp.json").read_bytes()):
        accepted, _ = split_request(request)
        envelopes.extend(item for item in accepted if item.span.trace_id.hex() == trace_id)
    return envelopes


def _outcome(diagnosis: Diagnosis) -> tuple[object, ...]:
    findings = tuple((item.finding.category, item.finding.status, item.finding.node_id) for item in diagnosis.chain)
    checks = tuple((result.verifier, result.status) for result in diagnosis.verifier_results)
    return diagnosis.verdict, diagnosis.root_cause, diagnosis.terminal_status, findings, checks


@pytest.mark.parametrize("directory", TRACES, ids=[f"{p.parent.name}/{p.name}" for p in TRACES])
def test_every_span_delivered_twice_gets_the_diagnosis_of_once(directory: Path, chain: DetectorChain) -> None:
    envelopes = _envelopes(directory)
    once = chain.run(map_trace(envelopes).trajectory)
    twice = chain.run(map_trace(envelopes + envelopes).trajectory)
    assert _outcome(twice) == _outcome(once)
