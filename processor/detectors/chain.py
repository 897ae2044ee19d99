"""The detector chain: runs detectors in order, isolates failures, ranks findings, builds the diagnosis.

Ranking: severity first, then causal depth (a finding whose node causally precedes another's has a smaller
depth and ranks first), then node id, category and evidence. Depth is a linear extension of the causal partial
order, so concurrent findings are ordered by depth and node id, never by timestamp.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from otel_mapper.diagnosis import Diagnosis, Finding, RankedFinding, VerifierResult
from otel_mapper.model import Trajectory
from processor.detectors.base import Detector, DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.terminal import terminal_status
from semconv.trajectory import (
    ROOT_CAUSE_NONE,
    SEVERITY_WEIGHT,
    FindingStatus,
    Verdict,
    VerifierStatus,
)

__all__ = ["DetectorChain", "rank_findings", "verdict_of"]

logger = logging.getLogger(__name__)

MAX_FINDINGS_PER_DETECTOR = 1_000
"""A detector's findings beyond this are cut (the verifier output says so)."""


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

    def run(self, trajectory: Trajectory) -> Diagnosis:
        context = DetectorContext.build(trajectory, self._config)
        findings: list[Finding] = []
        results: list[VerifierResult] = []
        for detector in self._detectors:
            started = self._clock()
            try:
                found = list(detector.detect(trajectory, context))
            except Exception as exc:  # isolation: one broken detector never hides the others' findings
                logger.warning("detector %s failed: %s", detector.name, type(exc).__name__, exc_info=logger.isEnabledFor(logging.DEBUG))
                results.append(
                    VerifierResult(
                        verifier=detector.name,
                        version=detector.version,
                        checked_property=detector.checked_property,
                        status=VerifierStatus.ERROR,
                        output=f"detector raised {type(exc).__name__}: {str(exc)[:200]}",
                        duration_s=self._clock() - started,
                    )
                )
                continue
            elapsed = self._clock() - started
            if elapsed > self._config.time_budget_s:
                # Over budget: its findings are not trusted, and the overrun is visible.
                results.append(
                    VerifierResult(
                        verifier=detector.name,
                        version=detector.version,
                        checked_property=detector.checked_property,
                        status=VerifierStatus.ERROR,
                        output=f"exceeded the time budget of {self._config.time_budget_s:g}s",
                        duration_s=elapsed,
                    )
                )
                continue
            cut = len(found) > MAX_FINDINGS_PER_DETECTOR
            found = found[:MAX_FINDINGS_PER_DETECTOR]
            stamped = [_stamp(finding, detector) for finding in found]
            findings.extend(stamped)
            results.append(
                VerifierResult(
                    verifier=detector.name,
                    version=detector.version,
                    checked_property=detector.checked_property,
                    status=_status_of(stamped),
                    output=_summary(stamped, cut),
                    findings=len(stamped),
                    duration_s=elapsed,
                )
            )
        ranked = rank_findings(findings, trajectory, context)
        return Diagnosis(
            verdict=verdict_of(ranked, results),
            root_cause=ranked[0].finding.category.value if ranked else ROOT_CAUSE_NONE,
            terminal_status=terminal_status(trajectory, [item.finding for item in ranked], context),
            chain=tuple(ranked),
            verifier_results=tuple(results),
        )


def _stamp(finding: Finding, detector: Detector) -> Finding:
    if finding.detector == detector.name and finding.detector_version == detector.version:
        return finding
    from dataclasses import replace

    return replace(finding, detector=detector.name, detector_version=detector.version)


def _status_of(findings: list[Finding]) -> VerifierStatus:
    if any(f.status is FindingStatus.FAIL for f in findings):
        return VerifierStatus.FAIL
    if findings:
        return VerifierStatus.INDETERMINATE
    return VerifierStatus.PASS


def _summary(findings: list[Finding], cut: bool) -> str:
    if not findings:
        return "no findings"
    failed = sum(1 for f in findings if f.status is FindingStatus.FAIL)
    text = f"{failed} fail, {len(findings) - failed} indeterminate"
    if cut:
        text += f" (only the first {MAX_FINDINGS_PER_DETECTOR} kept)"
    return text


def rank_findings(findings: list[Finding], trajectory: Trajectory, context: DetectorContext) -> list[RankedFinding]:
    depth = context.index.depth

    def key(finding: Finding) -> tuple[int, int, str, str, str, str]:
        return (
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


def verdict_of(ranked: Sequence[RankedFinding], results: Sequence[VerifierResult]) -> Verdict:
    """fail > error > indeterminate > pass: a check that errored means the trajectory cannot pass."""
    if any(item.finding.status is FindingStatus.FAIL for item in ranked):
        return Verdict.FAIL
    if any(result.status is VerifierStatus.ERROR for result in results):
        return Verdict.ERROR
    if ranked or any(result.status is VerifierStatus.INDETERMINATE for result in results):
        return Verdict.INDETERMINATE
    return Verdict.PASS
