"""``serve`` end to end: a priced corpus trace through a running service (its analysis worker process) reaches
the sink with the attribution on its root span, and the trajectory self-metrics count it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from otel_mapper.attribution import ModelPrice, PriceTable
from otel_mapper.otlp.json_codec import decode_json_lines
from semconv import trajectory as names
from tests.cli.conftest import CORPUS
from tests.support.service_thread import ServiceThread


@pytest.mark.parametrize("workers", [0, 1], ids=["in-process", "worker"])
def test_served_trace_carries_cost_and_is_counted(tmp_path: Path, workers: int) -> None:
    directory = CORPUS / "openai-v2-content-on" / "plain_tool_use"
    labels = json.loads((directory / "labels.json").read_text())
    billed = [r["usage"] for r in labels["ground_truth"]["model_requests"] if r.get("usage")]
    prices = PriceTable.of({"gpt-4o-mini": ModelPrice(input_per_million=1.0, output_per_million=2.0)})
    with ServiceThread(tmp_path, pricing=prices, analysis_workers=workers) as running:
        for request in decode_json_lines((directory / "trace.otlp.json").read_bytes()):
            assert running.send_grpc(request.SerializeToString()) == "ok"
        running.drained()
        assert running.service is not None
        trajectories = running.service.telemetry.trajectories
        roots = [span for r in running.sink.requests for rs in r.resource_spans for ss in rs.scope_spans
                 for span in ss.spans if not span.parent_span_id]
    assert len(roots) == 1
    attributes = {kv.key: kv.value for kv in roots[0].attributes}
    tokens_in, tokens_out = sum(u[0] for u in billed), sum(u[1] for u in billed)
    assert attributes[names.USAGE_INPUT_TOKENS].int_value == tokens_in
    assert attributes[names.COST_USD].double_value == pytest.approx((tokens_in * 1.0 + tokens_out * 2.0) / 1e6)
    verdict = attributes[names.VERDICT].string_value
    assert trajectories.verdicts == {(verdict, "none"): 1}
    inputs = {key: value for key, value in trajectories.tokens.items() if key[2] == "input"}
    assert list(inputs.values()) == [tokens_in] and next(iter(inputs))[1] == "gpt-4o-mini-2024-07-18"
    assert list(trajectories.cost_usd.values()) == [pytest.approx(attributes[names.COST_USD].double_value)]
