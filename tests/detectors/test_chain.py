"""The chain: configured order, isolation of a raising detector, the cooperative time bound, ranking."""

from __future__ import annotations

from collections.abc import Sequence

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.readers import FallbackReader
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from processor.detectors.chain import NOTHING_TO_CHECK, DetectorChain
from processor.detectors.registry import builtin_detectors, load_detectors
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, Severity, Verdict, VerifierStatus
from tests.support.clock import FakeClock

from .support import TrajectoryBuilder, config


class Fixed:
    """Returns the findings it was given, recording the order it ran in."""

    version = "1"
    checked_property = "test"

    def __init__(self, name: str, findings: Sequence[Finding] = (), log: list[str] | None = None) -> None:
        self.name = name
        self._findings = findings
        self._log = log if log is not None else []

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        self._log.append(self.name)
        return self._findings


class Raising(Fixed):
    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        raise RuntimeError("boom")


class Spinning(Fixed):
    """An endless loop that cooperates: checks its budget; the fake clock advances per iteration."""

    def __init__(self, name: str, clock: FakeClock) -> None:
        super().__init__(name)
        self.clock = clock

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        while True:
            self.clock.now += 0.5
            context.check_budget()


class Slow(Fixed):
    """Overruns without checking its budget."""

    def __init__(self, name: str, clock: FakeClock, seconds: float) -> None:
        super().__init__(name, [_finding("span:0000000000000001")])
        self.clock, self.seconds = clock, seconds

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> Sequence[Finding]:
        self.clock.now += self.seconds
        return self._findings


def _finding(node: str, severity: Severity = Severity.HIGH, category: FindingCategory = FindingCategory.TOOL_ERROR) -> Finding:
    return Finding(category=category, severity=severity, status=FindingStatus.FAIL, node_id=node, evidence="e")


def _three_step() -> tuple[Trajectory, list[str]]:
    b = TrajectoryBuilder()
    agent = b.agent()
    first = b.model(parent=agent)
    second = b.tool("t", parent=agent, after=[first])
    third = b.model(parent=agent, after=[second])
    return b.build(), [agent, first, second, third]


def test_runs_in_configured_order_and_isolates_a_raising_detector() -> None:
    trajectory, ids = _three_step()
    log: list[str] = []
    chain = DetectorChain([Fixed("a", log=log), Raising("broken", log=log), Fixed("b", [_finding(ids[1])], log)], config())

    diagnosis = chain.run(trajectory)

    assert log == ["a", "b"]
    statuses = {r.verifier: r.status for r in diagnosis.verifier_results}
    assert statuses == {"a": VerifierStatus.PASS, "broken": VerifierStatus.ERROR, "b": VerifierStatus.FAIL}
    assert "RuntimeError: boom" in diagnosis.verifier_results[1].output
    assert [r.verifier for r in diagnosis.verifier_results] == ["a", "broken", "b"]
    assert diagnosis.verdict is Verdict.FAIL and diagnosis.root_cause == "tool_error"


class Reporting(Fixed):
    """Returns a :class:`DetectorReport` (findings and what it could not decide)."""

    def __init__(self, name: str, report: object) -> None:
        super().__init__(name)
        self.report = report

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> DetectorReport:  # type: ignore[override]
        return self.report  # type: ignore[return-value]


def test_what_a_detector_returns_sets_its_verifier_result() -> None:
    trajectory, ids = _three_step()
    broken_report = DetectorReport.__new__(DetectorReport)  # findings that cannot be iterated
    object.__setattr__(broken_report, "findings", 7)
    object.__setattr__(broken_report, "undecided", 0)
    object.__setattr__(broken_report, "note", "")
    chain = DetectorChain(
        [
            Fixed("empty"),
            Fixed("generator", (f for f in [_finding(ids[1])])),  # type: ignore[arg-type]
            Reporting("undecided", DetectorReport(undecided=2, note="no schema")),
            Reporting("noted", DetectorReport(note="checked 0 of 0")),
            Reporting("broken", broken_report),
            Fixed("after"),
        ],
        config(),
    )

    results = {r.verifier: r for r in chain.run(trajectory).verifier_results}

    assert (results["empty"].status, results["empty"].output, results["empty"].findings) == (VerifierStatus.PASS, "no findings", 0)
    assert (results["generator"].status, results["generator"].findings) == (VerifierStatus.FAIL, 1)
    assert (results["undecided"].status, results["undecided"].output) == (VerifierStatus.INDETERMINATE, "2 not decidable: no schema")
    assert (results["noted"].status, results["noted"].output) == (VerifierStatus.PASS, "checked 0 of 0")
    assert results["broken"].status is VerifierStatus.ERROR and "TypeError" in results["broken"].output
    assert results["after"].status is VerifierStatus.PASS  # isolation: the chain goes on


def test_a_cooperating_runaway_detector_is_stopped_and_the_rest_still_run() -> None:
    trajectory, ids = _three_step()
    clock = FakeClock()
    chain = DetectorChain([Spinning("spin", clock), Fixed("after", [_finding(ids[2])])], config({"time_budget_s": 2}), clock=clock)

    diagnosis = chain.run(trajectory)

    spin, after = diagnosis.verifier_results
    assert spin.status is VerifierStatus.ERROR and "stopped at its deadline" in spin.output
    assert after.status is VerifierStatus.FAIL
    assert len(diagnosis.chain) == 1


def test_an_overrun_without_checks_is_reported_and_its_findings_discarded() -> None:
    trajectory, _ = _three_step()
    clock = FakeClock()
    chain = DetectorChain([Slow("slow", clock, 5.0)], config({"time_budget_s": 1}), clock=clock)

    diagnosis = chain.run(trajectory)

    assert diagnosis.verifier_results[0].status is VerifierStatus.ERROR
    assert "findings discarded" in diagnosis.verifier_results[0].output
    assert diagnosis.chain == () and diagnosis.verdict is Verdict.ERROR


def test_detectors_after_the_trajectory_budget_are_not_run() -> None:
    trajectory, _ = _three_step()
    clock = FakeClock()
    log: list[str] = []
    chain = DetectorChain(
        [Slow("slow", clock, 0.9), Slow("slow2", clock, 0.9), Fixed("late", log=log)],
        config({"time_budget_s": 1, "trajectory_time_budget_s": 1.5}),
        clock=clock,
    )

    results = chain.run(trajectory).verifier_results

    assert [r.status for r in results] == [VerifierStatus.FAIL, VerifierStatus.ERROR, VerifierStatus.ERROR]
    assert "not run" in results[2].output and log == []


def test_ranking_is_severity_then_causal_depth_then_node_id_never_time() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    # The early node has the LATER timestamp: ranking must follow the causal order, not time.
    early = b.model(parent=agent, start_unix_nano=900, end_unix_nano=950)
    late = b.tool("t", parent=agent, after=[early], start_unix_nano=100, end_unix_nano=150)
    concurrent_a = b.tool("u", parent=agent, node_id="span:00000000000000aa")
    concurrent_b = b.tool("u", parent=agent, node_id="span:00000000000000ab")
    trajectory = b.build()
    findings = [_finding(late), _finding(early), _finding(concurrent_b), _finding(concurrent_a),
                _finding(agent, Severity.LOW), _finding(late, Severity.CRITICAL)]

    diagnosis = DetectorChain([Fixed("x", findings)], config()).run(trajectory)

    order = [(item.finding.node_id, item.finding.severity) for item in diagnosis.chain]
    assert order == [
        (late, Severity.CRITICAL),
        (early, Severity.HIGH),  # depth 1; ties at depth 1 are broken by node id
        (concurrent_a, Severity.HIGH),
        (concurrent_b, Severity.HIGH),
        (late, Severity.HIGH),  # depth 2, though its timestamp is the earliest
        (agent, Severity.LOW),
    ]
    assert [item.rank for item in diagnosis.chain] == [1, 2, 3, 4, 5, 6]
    assert diagnosis.chain[0].span_id == late.split(":")[1]


def test_an_indeterminate_finding_is_never_the_root_cause_nor_counted_as_failed() -> None:
    trajectory, ids = _three_step()
    undecided = Finding(category=FindingCategory.TOOL_LOOP, severity=Severity.CRITICAL,
                        status=FindingStatus.INDETERMINATE, node_id=ids[0], evidence="arguments not captured")
    lacking_input = Fixed("budget_exceeded")
    lacking_input.detect = lambda *_: DetectorReport(undecided=1, note="token usage not recorded")  # type: ignore[method-assign]

    only_undecided = DetectorChain([Fixed("tool_loop", [undecided]), lacking_input], config()).run(trajectory)
    with_a_failure = DetectorChain(
        [Fixed("tool_loop", [undecided]), Fixed("tool_error", [_finding(ids[2], Severity.LOW)]), lacking_input], config()
    ).run(trajectory)

    assert (only_undecided.verdict, only_undecided.root_cause) == (Verdict.INDETERMINATE, "none")
    assert only_undecided.failed_findings == 0
    assert only_undecided.indeterminate == ("budget_exceeded", "tool_loop")
    # A low-severity failure outranks a critical indeterminate finding: rank 1 is always a failed one.
    assert (with_a_failure.verdict, with_a_failure.root_cause) == (Verdict.FAIL, "tool_error")
    assert [item.finding.status for item in with_a_failure.chain] == [FindingStatus.FAIL, FindingStatus.INDETERMINATE]
    assert with_a_failure.failed_findings == 1
    assert with_a_failure.indeterminate == ("budget_exceeded", "tool_loop")


def test_every_builtin_detector_runs_on_an_empty_and_a_small_trajectory() -> None:
    trajectory, _ = _three_step()
    empty = TrajectoryBuilder().build()
    chain = DetectorChain(load_detectors(config()), config())

    for subject in (trajectory, empty):
        diagnosis = chain.run(subject)
        assert [r.verifier for r in diagnosis.verifier_results] == list(builtin_detectors())
        assert all(r.status is not VerifierStatus.ERROR for r in diagnosis.verifier_results), diagnosis.verifier_results


def test_builtin_names_are_the_categories_they_report() -> None:
    categories = {c.value for c in FindingCategory}
    assert set(builtin_detectors()) == categories


def test_enabled_picks_and_orders_detectors() -> None:
    detectors = load_detectors(config({"enabled": ["tool_loop", "tool_error"]}))
    assert [d.name for d in detectors] == ["tool_loop", "tool_error"]


def test_a_run_no_reader_recognised_is_indeterminate_never_pass() -> None:
    # An instrumentation the mapping has not read: every span an `other` node of the fallback reader.
    b = TrajectoryBuilder()
    root = b.node(NodeKind.OTHER, "haystack.pipeline.run", convention=FallbackReader.name)
    b.node(NodeKind.OTHER, "haystack.agent.step.tool", parent=root, convention=FallbackReader.name)
    diagnosis = DetectorChain(load_detectors(config()), config()).run(b.build())
    assert diagnosis.verdict is Verdict.INDETERMINATE
    assert {result.status for result in diagnosis.verifier_results} == {VerifierStatus.INDETERMINATE}
    assert {result.output for result in diagnosis.verifier_results} == {NOTHING_TO_CHECK}
    assert diagnosis.root_cause == "none"


def test_recognised_spans_without_agent_work_are_checked_as_they_are() -> None:
    # An agent created at start-up, in a trace of its own: read, nothing wrong in it.
    b = TrajectoryBuilder()
    b.node(NodeKind.OTHER, "create_agent support_agent", convention="genai")
    assert DetectorChain(load_detectors(config()), config()).run(b.build()).verdict is Verdict.PASS


def test_agent_work_beside_unread_spans_is_checked_as_it_is() -> None:
    b = TrajectoryBuilder()
    agent = b.agent()
    b.node(NodeKind.OTHER, "GET /orders", parent=agent, convention=FallbackReader.name)
    b.model(parent=agent)
    assert DetectorChain(load_detectors(config()), config()).run(b.build()).verdict is Verdict.PASS
