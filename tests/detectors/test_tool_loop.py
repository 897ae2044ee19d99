from __future__ import annotations

from processor.detectors.tool_loop import ToolLoopDetector
from semconv.trajectory import FindingStatus, NodeStatus

from .support import TrajectoryBuilder, config, run


def _loop(arguments: list[object]) -> tuple[object, list[str]]:
    b = TrajectoryBuilder()
    agent = b.agent()
    ids: list[str] = []
    previous: list[str] = []
    for args in arguments:
        model = b.model(parent=agent, after=previous)
        ids.append(b.tool("get_weather", parent=agent, after=[model], arguments=args))
        previous = [ids[-1]]
    return b.build(), ids


def test_canonical_json_equivalence_and_anchor_on_first_in_causal_order() -> None:
    trajectory, ids = _loop(['{"city": "Oslo", "unit": "C"}', '{"unit":"C","city":"Oslo"}', {"city": "Oslo", "unit": "C"}])
    (finding,) = run(ToolLoopDetector(), trajectory, config({"loop": {"fuzzy": False}}))
    assert finding.status is FindingStatus.FAIL
    assert finding.node_id == ids[0] and finding.related_nodes == tuple(ids[1:])


def test_below_min_repeats_is_not_a_loop() -> None:
    trajectory, _ = _loop([{"city": "Oslo"}] * 3)
    assert run(ToolLoopDetector(), trajectory, config({"loop": {"min_repeats": 4}})) == []


def test_fuzzy_mode_ignores_volatile_fields_strict_mode_does_not() -> None:
    trajectory, ids = _loop([{"city": "Oslo", "request_id": n, "meta": {"timestamp": n}} for n in range(3)])
    assert [f.node_id for f in run(ToolLoopDetector(), trajectory, config({"loop": {"fuzzy": True}}))] == [ids[0]]
    assert run(ToolLoopDetector(), trajectory, config({"loop": {"fuzzy": False}})) == []


def test_different_arguments_are_not_a_loop() -> None:
    trajectory, _ = _loop([{"city": c} for c in ("Oslo", "Rome", "Paris")])
    assert run(ToolLoopDetector(), trajectory) == []


def test_hidden_arguments_make_the_loop_indeterminate() -> None:
    trajectory, _ = _loop([None, None, None])
    (finding,) = run(ToolLoopDetector(), trajectory)
    assert finding.status is FindingStatus.INDETERMINATE and "not captured" in finding.evidence


def _unseen_proposals(arguments: list[object]) -> object:
    """The model proposed ``get_weather`` once per turn; no span ran it and no result came back (content off under
    an instrumentation that records no tool span)."""
    b = TrajectoryBuilder()
    agent = b.agent()
    previous: list[str] = []
    for args in arguments:
        model = b.model(parent=agent, after=previous)
        b.proposal("get_weather", model, arguments=args, status=NodeStatus.PROPOSED)
        previous = [model]
    return b.build()


def test_the_same_tool_proposed_again_and_again_without_arguments_is_undecided() -> None:
    (finding,) = run(ToolLoopDetector(), _unseen_proposals([None, None, None]))
    assert finding.status is FindingStatus.INDETERMINATE
    assert "proposed get_weather 3 times (arguments not recorded)" in finding.evidence
    (same,) = run(ToolLoopDetector(), _unseen_proposals([{"city": "Oslo"}] * 3))
    assert "with equivalent arguments" in same.evidence
    assert run(ToolLoopDetector(), _unseen_proposals([{"city": c} for c in ("Oslo", "Rome", "Paris")])) == []
