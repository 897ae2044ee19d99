"""Self-metrics derived from trajectories: counters with a few bounded labels."""

from __future__ import annotations

import asyncio

from otel_mapper.attribution import ModelUsage
from otel_mapper.attribution.summary import TraceUsage
from otel_mapper.diagnosis import Diagnosis
from processor.telemetry.counters import Telemetry
from processor.telemetry.self_metrics import SelfMetrics
from processor.telemetry.trajectory_metrics import MAX_SERIES, TrajectoryCounters
from semconv.trajectory import TerminalStatus, Verdict


def _diagnosis(verdict: Verdict, cause: str) -> Diagnosis:
    return Diagnosis(verdict=verdict, root_cause=cause, terminal_status=TerminalStatus.SUCCESS, chain=(),
                     verifier_results=())


def _usage(service: str, model: str, tokens: tuple[int, int], cost: float | None) -> TraceUsage:
    row = ModelUsage(model=model, calls=1, input_tokens=tokens[0], output_tokens=tokens[1], cached_input_tokens=0,
                     cost_usd=cost)
    return TraceUsage(service=service, models=(row,))


def test_verdicts_tokens_and_cost_are_counted_by_their_labels() -> None:
    telemetry = Telemetry()
    counters = telemetry.trajectories
    counters.record(_diagnosis(Verdict.FAIL, "tool_loop"), _usage("shop", "gpt-4o-mini", (100, 10), 0.5))
    counters.record(_diagnosis(Verdict.FAIL, "tool_loop"), _usage("shop", "gpt-4o-mini", (50, 5), None))
    counters.record(_diagnosis(Verdict.PASS, "none"), None)

    metrics = SelfMetrics(lambda: telemetry, prometheus=True)
    try:
        text = metrics.prometheus_text().decode()
    finally:
        asyncio.run(metrics.close())

    assert 'otel_trajectory_trajectory_verdicts_total{root_cause="tool_loop",verdict="fail"} 2.0' in text
    assert 'otel_trajectory_trajectory_verdicts_total{root_cause="none",verdict="pass"} 1.0' in text
    assert 'otel_trajectory_trajectory_tokens_total{direction="input",model="gpt-4o-mini",service="shop"} 150.0' in text
    assert 'otel_trajectory_trajectory_tokens_total{direction="output",model="gpt-4o-mini",service="shop"} 15.0' in text
    assert 'otel_trajectory_trajectory_cost_usd_total{model="gpt-4o-mini",service="shop"} 0.5' in text


def test_label_sets_stay_bounded() -> None:
    counters = TrajectoryCounters()
    for number in range(MAX_SERIES + 50):
        counters.record(None, _usage("svc", f"model-{number}", (1, 1), None))
    models = {model for (_, model, _) in counters.tokens}
    assert len(models) == MAX_SERIES + 1 and "other" in models
    assert counters.tokens[("other", "other", "input")] == 50
