"""Self-metrics derived from trajectories: counters with a few bounded labels."""

from __future__ import annotations

from otel_mapper.attribution import ModelUsage
from otel_mapper.attribution.summary import TraceUsage
from otel_mapper.diagnosis import Diagnosis
from processor.telemetry.counters import Telemetry, labelled
from processor.telemetry.trajectory_metrics import COST_KEY, MAX_SERIES, TOKENS_KEY, VERDICTS_KEY, TrajectoryCounters
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
    snapshot = telemetry.snapshot()
    assert snapshot[labelled(VERDICTS_KEY, verdict="fail", root_cause="tool_loop")] == 2
    assert snapshot[labelled(VERDICTS_KEY, verdict="pass", root_cause="none")] == 1
    assert snapshot[labelled(TOKENS_KEY, service="shop", model="gpt-4o-mini", direction="input")] == 150
    assert snapshot[labelled(TOKENS_KEY, service="shop", model="gpt-4o-mini", direction="output")] == 15
    assert snapshot[labelled(COST_KEY, service="shop", model="gpt-4o-mini")] == 0.5


def test_label_sets_stay_bounded() -> None:
    counters = TrajectoryCounters()
    for number in range(MAX_SERIES + 50):
        counters.record(None, _usage("svc", f"model-{number}", (1, 1), None))
    models = {model for (_, model, _) in counters.tokens}
    assert len(models) == MAX_SERIES + 1 and "other" in models
    assert counters.tokens[("other", "other", "input")] == 50
