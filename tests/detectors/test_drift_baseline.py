"""Rolling baselines: verdict only after min_runs, drift on a changed run, JSON round trip, determinism."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import BASELINE_FILE, DriftEvaluator
from processor.detectors.registry import load_detectors
from semconv.trajectory import DriftVerdict, NodeKind, NodeStatus

from .support import TrajectoryBuilder, config


def _run(tools: list[str], models: int = 2, tokens: int = 100, failed: int = 0, agent: str = "support_agent") -> Trajectory:
    b = TrajectoryBuilder(service="checkout")
    root = b.node(NodeKind.WORKFLOW_STEP, "workflow", start_unix_nano=1_000_000_000, end_unix_nano=3_000_000_000)
    invocation = b.agent(agent, parent=root)
    previous: list[str] = []
    for _ in range(models):
        previous = [b.model(parent=invocation, after=previous, tokens=(tokens, 0))]
    for position, name in enumerate(tools):
        status = NodeStatus.FAILED if position < failed else NodeStatus.COMMITTED
        b.tool(name, parent=invocation, after=previous, status=status, error_type="E" if status is NodeStatus.FAILED else None)
    return b.build()


def _evaluate(evaluator: DriftEvaluator, trajectory: Trajectory, cfg: object = None) -> object:
    chain = DetectorChain(load_detectors(cfg or config()), cfg or config())
    diagnosis: Diagnosis = chain.run(trajectory)
    return evaluator.evaluate(trajectory, diagnosis)


DRIFT = {"drift": {"min_runs": 5, "window": 20}}


def test_baseline_building_then_stable_then_drifted(tmp_path: Path) -> None:
    cfg = config(DRIFT)
    evaluator = DriftEvaluator(cfg.drift, tmp_path)
    normal = _run(["lookup_order", "update_record"])

    verdicts = [_evaluate(evaluator, normal, cfg).verdict for _ in range(6)]  # type: ignore[attr-defined]
    changed = _evaluate(evaluator, _run(["delete_record"] * 6, models=12, tokens=5_000, failed=3), cfg)

    assert verdicts == [DriftVerdict.BASELINE_BUILDING] * 5 + [DriftVerdict.STABLE]
    assert changed.verdict is DriftVerdict.DRIFTED  # type: ignore[attr-defined]
    assert set(changed.dimensions) >= {"tool_path", "tool_mix", "model_calls", "tokens", "tool_error_rate"}  # type: ignore[attr-defined]


def test_unnamed_agent_is_not_evaluated(tmp_path: Path) -> None:
    b = TrajectoryBuilder()
    b.model()
    result = _evaluate(DriftEvaluator(config().drift, tmp_path), b.build())
    assert result.verdict is DriftVerdict.NOT_EVALUATED  # type: ignore[attr-defined]


def test_baselines_round_trip_through_the_json_file(tmp_path: Path) -> None:
    cfg = config(DRIFT)
    first = DriftEvaluator(cfg.drift, tmp_path)
    for _ in range(5):
        _evaluate(first, _run(["lookup_order"]), cfg)
    first.save()

    second = DriftEvaluator(cfg.drift, tmp_path)

    assert (tmp_path / BASELINE_FILE).exists()
    assert second.store.to_json() == first.store.to_json()
    assert _evaluate(second, _run(["lookup_order"]), cfg).verdict is DriftVerdict.STABLE  # type: ignore[attr-defined]


def test_same_sequence_same_verdicts_and_same_file(tmp_path: Path) -> None:
    cfg = config(DRIFT)
    sequence = [_run(["a"] * (n % 3 + 1), models=n % 4 + 1, tokens=100 + 37 * n, failed=n % 2) for n in range(15)]
    outputs = []
    for name in ("one", "two"):
        evaluator = DriftEvaluator(cfg.drift, tmp_path / name)
        outputs.append([_evaluate(evaluator, trajectory, cfg) for trajectory in sequence])
        evaluator.save()
    assert outputs[0] == outputs[1]
    assert (tmp_path / "one" / BASELINE_FILE).read_bytes() == (tmp_path / "two" / BASELINE_FILE).read_bytes()


def test_re_releases_and_early_releases_are_judged_but_not_counted(tmp_path: Path) -> None:
    evaluator = DriftEvaluator(config(DRIFT).drift, tmp_path)
    _evaluate(evaluator, _run(["a"]))
    _evaluate(evaluator, replace(_run(["a"]), revision=2))
    _evaluate(evaluator, replace(_run(["a"]), released_early=True))
    assert len(evaluator.store.history("checkout", "support_agent")) == 1


def test_corrupt_file_is_moved_aside_and_the_store_starts_empty(tmp_path: Path) -> None:
    (tmp_path / BASELINE_FILE).write_text("{not json")
    evaluator = DriftEvaluator(config(DRIFT).drift, tmp_path)
    assert evaluator.store.keys() == []
    assert (tmp_path / (BASELINE_FILE + ".corrupt")).exists()


def test_periodic_saves_wait_for_the_save_interval(tmp_path: Path) -> None:
    now = [100.0]
    evaluator = DriftEvaluator(config(DRIFT).drift, tmp_path, save_every=2, save_interval=5.0, clock=lambda: now[0])
    for _ in range(3):
        _evaluate(evaluator, _run(["a"]))
    assert not (tmp_path / BASELINE_FILE).exists()  # enough runs, but too soon after the start

    now[0] += 5.0
    _evaluate(evaluator, _run(["a"]))
    assert len(DriftEvaluator(config(DRIFT).drift, tmp_path).store.history("checkout", "support_agent")) == 4

    _evaluate(evaluator, _run(["a"]))
    _evaluate(evaluator, _run(["a"]))  # two more runs, but within the interval: the file keeps four
    assert len(DriftEvaluator(config(DRIFT).drift, tmp_path).store.history("checkout", "support_agent")) == 4
