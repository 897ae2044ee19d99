"""Reference tool paths: agentevals match modes on the causal partial order."""

from __future__ import annotations

from pathlib import Path

import pytest

from processor.detectors.drift_reference import ReferencePathDetector
from semconv.trajectory import FindingStatus

from .support import TrajectoryBuilder, config, run


def _config(tmp_path: Path, match: str, arguments: str = "ignore", tools: str = "[lookup_order, update_record]") -> object:
    (tmp_path / "refs.yaml").write_text(
        f"references:\n  - {{agent: support_agent, match: {match}, arguments: {arguments}, tools: {tools}}}\n"
    )
    return config({"drift": {"references": "refs.yaml"}}, base_dir=tmp_path)


def _sequential(*tools: tuple[str, dict]) -> object:
    b = TrajectoryBuilder()
    agent = b.agent()
    previous: list[str] = []
    for name, args in tools:
        model = b.model(parent=agent, after=previous)
        previous = [b.tool(name, parent=agent, after=[model], arguments=args)]
    return b.build()


def _concurrent(*tools: str) -> object:
    b = TrajectoryBuilder()
    agent = b.agent()
    model = b.model(parent=agent)
    for name in tools:
        b.tool(name, parent=agent, after=[model], arguments={})
    return b.build()


def test_strict_in_order_passes_and_reversed_fails(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "strict")
    assert run(ReferencePathDetector(), _sequential(("lookup_order", {}), ("update_record", {})), cfg) == []
    (finding,) = run(ReferencePathDetector(), _sequential(("update_record", {}), ("lookup_order", {})), cfg)
    assert finding.status is FindingStatus.FAIL and "out of order" in finding.evidence


def test_strict_on_concurrent_calls_is_indeterminate_not_a_mismatch(tmp_path: Path) -> None:
    (finding,) = run(ReferencePathDetector(), _concurrent("lookup_order", "update_record"), _config(tmp_path, "strict"))
    assert finding.status is FindingStatus.INDETERMINATE and "concurrent" in finding.evidence


def test_unordered_ignores_order(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "unordered")
    assert run(ReferencePathDetector(), _concurrent("update_record", "lookup_order"), cfg) == []
    (finding,) = run(ReferencePathDetector(), _concurrent("update_record"), cfg)
    assert "missing lookup_order" in finding.evidence


@pytest.mark.parametrize(
    ("match", "tools", "ok"),
    [
        ("subset", ("lookup_order",), True),
        ("subset", ("lookup_order", "delete_record"), False),
        ("superset", ("lookup_order", "update_record", "search_docs"), True),
        ("superset", ("lookup_order",), False),
    ],
)
def test_subset_and_superset(tmp_path: Path, match: str, tools: tuple[str, ...], ok: bool) -> None:
    found = run(ReferencePathDetector(), _concurrent(*tools), _config(tmp_path, match))
    assert (found == []) is ok


@pytest.mark.parametrize(
    ("mode", "args", "ok"),
    [
        ("exact", {"order_id": "A"}, True),
        ("exact", {"order_id": "A", "x": 1}, False),
        ("superset", {"order_id": "A", "x": 1}, True),
        ("superset", {}, False),
        ("subset", {}, True),
        ("subset", {"order_id": "A", "x": 1}, False),
        ("ignore", {"whatever": 2}, True),
    ],
)
def test_argument_modes(tmp_path: Path, mode: str, args: dict, ok: bool) -> None:
    cfg = _config(tmp_path, "unordered", mode, "[{name: lookup_order, args: {order_id: A}}]")
    found = run(ReferencePathDetector(), _sequential(("lookup_order", args)), cfg)
    assert (found == []) is ok


def test_no_reference_for_the_agent_means_no_finding(tmp_path: Path) -> None:
    (tmp_path / "refs.yaml").write_text("references:\n  - {agent: other_agent, tools: [x]}\n")
    cfg = config({"drift": {"references": "refs.yaml"}}, base_dir=tmp_path)
    assert run(ReferencePathDetector(), _concurrent("lookup_order"), cfg) == []
