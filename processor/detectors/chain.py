"""The detector chain: runs detectors in order, isolates failures, bounds time, ranks findings, builds the diagnosis.

Isolation: a detector that raises yields a verifier result ``error``; the others still run.

Time bound (see :mod:`processor.detectors.base`): before each detector the chain sets ``context.deadline`` to the
earlier of ``now + time_budget_s`` and the trajectory's deadline (``trajectory_time_budget_s`` from the chain's
start). Detectors call ``context.check_budget()`` in their loops and are stopped by
:class:`~processor.detectors.base.DetectorDeadlineExceeded`; a detector that overran without checking is measured
afterwards and its findings discarded. Detectors that would start after the trajectory deadline are not run and
are reported ``error`` too. Durations are measured with an injectable clock and never enter deterministic output
other than ``VerifierResult.duration_s``.

Ranking: severity first, then causal depth (a finding whose node causally precedes another's has a smaller depth
and ranks first), then node id, category, detector and evidence. Depth is a linear extension of the causal partial
order, so concurrent findings are ordered by depth and node id, never by timestamp.

Nothing read: a trajectory with no node of agent work (no model call, tool, agent invocation, handoff, guardrail or
retrieval) that holds spans no convention reader recognised, as an instrumentation the mapping has not read yet
leaves an agent run, gives no check anything to look at. A check that found nothing there is ``indeterminate``, not
``pass``, and so is the verdict: a run that was not read is never reported as one that passed. A trajectory of
recognised spans with no agent work in them (an agent created at start-up, an MCP server's discovery exchange) is
checked as it is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final

from otel_mapper.diagnosis import Diagnosis, Finding, RankedFinding, VerifierResult
from otel_mapper.mapping.readers import FallbackReader
from otel_mapper.model import Trajectory
from processor.detectors.base import Detector, DetectorContext, DetectorDeadlineExceeded, DetectorReport
from processor.detectors.config import DetectorsConfig
from processor.detectors.terminal import terminal_status
from semconv.trajectory import (
    ROOT_CAUSE_NONE,
    SEVERITY_WEIGHT,
    FindingStatus,
    NodeKind,
    Verdict,
    VerifierStatus,
)

__all__ = ["NOTHING_TO_CHECK", "DetectorChain", "rank_findings", "verdict_of"]

logger = logging.getLogger(__name__)

MAX_FINDINGS_PER_DETECTOR = 1_000
"""A detector's findings beyond this are cut (the verifier output says so)."""
MAX_OUTPUT_CHARS = 200
"""Bound on exception text copied into a verifier output."""
_NO_FINDINGS = "no findings"
NOTHING_TO_CHECK: Final = (
    "nothing to check: no model call, tool, agent invocation, handoff, guardrail or retrieval was recognised, and the"
    " trace holds spans of a convention no reader knows"
)
"""Output of a check that found nothing in a trajectory that was not read (see the module)."""
_NO_AGENT_WORK: Final = frozenset({NodeKind.WORKFLOW_STEP, NodeKind.OTHER})
_NO_DEADLINE = float("inf")


class DetectorChain:
    """Runs ``detectors`` over trajectories. Thread-compatible: holds no per-run state."""

    def __init__(
        self,
        detectors: Sequence[Detector],
        config: DetectorsConfig,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._detectors = tuple(detectors)
        self._config = config
        self._clock = clock

    @property
    def detectors(self) -> tuple[Detector, ...]:
        return self._detectors

    @property
    def config(self) -> DetectorsConfig:
        return self._config

    def run(self, trajectory: Trajectory) -> Diagnosis:
        chain_start = self._clock()
        context = DetectorContext.build(trajectory, self._config, clock=self._clock)
        trajectory_deadline = chain_start + self._config.trajectory_time_budget_s
        findings: list[Finding] = []
        results: list[VerifierResult] = []
        for detector in self._detectors:
            found, result = self._run_one(detector, trajectory, context, trajectory_deadline)
            findings.extend(found)
            results.append(result)
        context.deadline = _NO_DEADLINE
        if _not_read(trajectory):
            results = [
                replace(result, status=VerifierStatus.INDETERMINATE, output=NOTHING_TO_CHECK)
                if result.status is VerifierStatus.PASS else result
                for result in results
            ]
        ranked = rank_findings(findings, trajectory, context)
        return Diagnosis(
            verdict=verdict_of(ranked, results),
            root_cause=root_cause_of(ranked),
            terminal_status=terminal_status(trajectory, [item.finding for item in ranked], context),
            chain=tuple(ranked),
            verifier_results=tuple(results),
        )

    def _run_one(
        self, detector: Detector, trajectory: Trajectory, context: DetectorContext, trajectory_deadline: float
    ) -> tuple[list[Finding], VerifierResult]:
        started = self._clock()
        if started >= trajectory_deadline:
            return self._error(
                detector, started, f"not run: the trajectory time budget of {self._config.trajectory_time_budget_s:g}s was spent"
            )
        deadline = min(started + self._config.time_budget_s, trajectory_deadline)
        context.deadline = deadline
        try:
            raw = detector.detect(trajectory, context)
            report = raw if isinstance(raw, DetectorReport) else None
            found = list(raw.findings if isinstance(raw, DetectorReport) else raw)
        except DetectorDeadlineExceeded:
            logger.warning("detector %s stopped at its deadline", detector.name)
            return self._error(detector, started, f"stopped at its deadline ({self._budget_text(started, trajectory_deadline)})")
        except Exception as exc:  # isolation: one broken detector never hides the others' findings
            logger.warning("detector %s failed: %s", detector.name, type(exc).__name__, exc_info=logger.isEnabledFor(logging.DEBUG))
            return self._error(detector, started, f"detector raised {type(exc).__name__}: {str(exc)[:MAX_OUTPUT_CHARS]}")
        finally:
            context.deadline = _NO_DEADLINE
        elapsed = self._clock() - started
        if started + elapsed > deadline:
            # Overran without checking its budget: its findings are not trusted, and the overrun is visible.
            logger.warning("detector %s overran its time budget (%.3fs)", detector.name, elapsed)
            return self._error(
                detector,
                started,
                f"exceeded its time budget ({self._budget_text(started, trajectory_deadline)}); findings discarded",
            )
        if not found and (report is None or (not report.undecided and not report.note)):
            stamped, status, output = [], VerifierStatus.PASS, _NO_FINDINGS  # the common case, without the summing
        else:
            report = report or DetectorReport()
            stamped = [_stamp(finding, detector) for finding in found[:MAX_FINDINGS_PER_DETECTOR]]
            status = _status_of(stamped, report.undecided)
            output = _summary(stamped, len(found) > MAX_FINDINGS_PER_DETECTOR, report)
        return stamped, VerifierResult(
            verifier=detector.name,
            version=detector.version,
            checked_property=detector.checked_property,
            status=status,
            output=output,
            findings=len(stamped),
            duration_s=elapsed,
        )

    def _error(self, detector: Detector, started: float, output: str) -> tuple[list[Finding], VerifierResult]:
        return [], VerifierResult(
            verifier=detector.name,
            version=detector.version,
            checked_property=detector.checked_property,
            status=VerifierStatus.ERROR,
            output=output,
            duration_s=self._clock() - started,
        )

    def _budget_text(self, started: float, trajectory_deadline: float) -> str:
        if started + self._config.time_budget_s <= trajectory_deadline:
            return f"time_budget_s {self._config.time_budget_s:g}s"
        return f"trajectory_time_budget_s {self._config.trajectory_time_budget_s:g}s"


def _stamp(finding: Finding, detector: Detector) -> Finding:
    if finding.detector == detector.name and finding.detector_version == detector.version:
        return finding
    return replace(finding, detector=detector.name, detector_version=detector.version)


def _status_of(findings: list[Finding], undecided: int) -> VerifierStatus:
    if any(f.status is FindingStatus.FAIL for f in findings):
        return VerifierStatus.FAIL
    if findings or undecided:
        return VerifierStatus.INDETERMINATE
    return VerifierStatus.PASS


def _summary(findings: list[Finding], cut: bool, report: DetectorReport) -> str:
    parts: list[str] = []
    if findings:
        failed = sum(1 for f in findings if f.status is FindingStatus.FAIL)
        parts.append(f"{failed} fail, {len(findings) - failed} indeterminate")
    if cut:
        parts.append(f"only the first {MAX_FINDINGS_PER_DETECTOR} kept")
    if report.undecided:
        parts.append(f"{report.undecided} not decidable: {report.note}" if report.note else f"{report.undecided} not decidable")
    elif report.note:
        parts.append(report.note)
    return "; ".join(parts) if parts else _NO_FINDINGS


def rank_findings(findings: list[Finding], trajectory: Trajectory, context: DetectorContext) -> list[RankedFinding]:
    depth = context.index.depth

    def key(finding: Finding) -> tuple[bool, int, int, str, str, str, str]:
        return (
            finding.status is not FindingStatus.FAIL,  # failed findings first: rank 1 is never an indeterminate one
            -SEVERITY_WEIGHT[finding.severity],
            depth.get(finding.node_id, 0),
            finding.node_id,
            finding.category.value,
            finding.detector,
            finding.evidence,
        )

    ordered = sorted(findings, key=key)
    ranked: list[RankedFinding] = []
    for position, finding in enumerate(ordered, start=1):
        node = trajectory.node(finding.node_id)
        ranked.append(
            RankedFinding(
                finding=finding,
                rank=position,
                span_id=node.source.span_id if node else "",
                causal_depth=depth.get(finding.node_id, 0),
            )
        )
    return ranked


def root_cause_of(ranked: Sequence[RankedFinding]) -> str:
    """The category of the first failed finding; ``none`` when nothing failed (indeterminate is not a cause)."""
    if ranked and ranked[0].finding.status is FindingStatus.FAIL:
        return ranked[0].finding.category.value
    return ROOT_CAUSE_NONE


def _not_read(trajectory: Trajectory) -> bool:
    """No node of agent work, and nodes of spans no reader recognised (see the module)."""
    unread = False
    for node in trajectory.nodes:
        if node.kind not in _NO_AGENT_WORK:
            return False
        unread = unread or node.convention == FallbackReader.name
    return unread


def verdict_of(ranked: Sequence[RankedFinding], results: Sequence[VerifierResult]) -> Verdict:
    """fail > error > indeterminate > pass: a check that errored means the trajectory cannot pass."""
    if any(item.finding.status is FindingStatus.FAIL for item in ranked):
        return Verdict.FAIL
    if any(result.status is VerifierStatus.ERROR for result in results):
        return Verdict.ERROR
    if ranked or any(result.status is VerifierStatus.INDETERMINATE for result in results):
        return Verdict.INDETERMINATE
    return Verdict.PASS
