"""Every built-in detector on a 100,000-node trajectory: linear-ish work, no recursion, no per-pair loops."""

from __future__ import annotations

import time

from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from semconv.trajectory import VerifierStatus

from .support import TrajectoryBuilder, config

CFG = {
    "policy": {"forbidden_tools": ["delete_*"], "approval_required_tools": ["transfer_*"]},
    "ordering": {"rules": [{"name": "rbw", "before": ["get_*"], "then": ["update_*"]}]},
    "budget": {"max_total_tokens": 10},
    "time_budget_s": 60,
    "trajectory_time_budget_s": 300,
}


def test_wide_and_deep_trajectory() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    previous: list[str] = []
    for turn in range(20_000):  # a 20,000-turn causal chain: model -> proposal -> execution -> model ...
        model = b.model(parent=agent, after=previous, tools=("get_x", "update_x"), output=f"sha256:{turn % 7}")
        proposal = b.proposal("update_x" if turn % 2 else "get_x", model, arguments={"n": turn % 5})
        previous = [b.tool("update_x" if turn % 2 else "get_x", parent=agent, after=[proposal], arguments={"n": turn % 5})]
    for _ in range(40_000):  # wide: concurrent siblings
        b.tool("update_y", parent=agent, arguments={"k": 1})
    trajectory = b.build()
    assert len(trajectory.nodes) > 100_000
    cfg = config(CFG)

    started = time.perf_counter()
    diagnosis = DetectorChain(load_detectors(cfg), cfg).run(trajectory)
    elapsed = time.perf_counter() - started

    assert all(r.status is not VerifierStatus.ERROR for r in diagnosis.verifier_results), diagnosis.verifier_results
    assert elapsed < 120, elapsed
