"""The detector chain's output: findings, verifier results and the diagnosis of one trajectory.

Lives here (not in ``processor``) because the annotator and the writers, which are pure, read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from otel_mapper.pickling import pickled_by_fields
from semconv.trajectory import (
    DriftVerdict,
    FindingCategory,
    FindingStatus,
    Severity,
    TerminalStatus,
    Verdict,
    VerifierStatus,
)

__all__ = ["Diagnosis", "DriftResult", "Finding", "RankedFinding", "VerifierResult"]


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One thing a detector found, anchored to a node (and so to a span)."""

    category: FindingCategory
    severity: Severity
    status: FindingStatus
    node_id: str
    evidence: str
    detector: str = ""
    detector_version: str = ""
    related_nodes: tuple[str, ...] = ()
    recovered: bool | None = None
    """For errors: whether a later, causally dependent call recovered (``None``: not assessed)."""


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class RankedFinding:
    finding: Finding
    rank: int
    """1 = primary (root cause)."""
    span_id: str
    causal_depth: int


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class VerifierResult:
    """One result per detector (AT-10.2a)."""

    verifier: str
    version: str
    checked_property: str
    status: VerifierStatus
    output: str
    findings: int = 0
    duration_s: float | None = None
    """Time the detector took; filled by the chain's wrapper, never part of deterministic outputs."""


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class DriftResult:
    verdict: DriftVerdict = DriftVerdict.NOT_EVALUATED
    dimensions: tuple[str, ...] = ()
    detail: str = ""


@pickled_by_fields
@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnosis:
    verdict: Verdict
    root_cause: str
    terminal_status: TerminalStatus
    chain: tuple[RankedFinding, ...]
    verifier_results: tuple[VerifierResult, ...]
    drift: DriftResult = field(default_factory=DriftResult)
    error: str | None = None
    """Why analysis failed, when ``verdict`` is ``error``."""

    @property
    def failed_findings(self) -> int:
        """Findings with status ``fail``: what ``agent_trajectory.findings`` counts."""
        return sum(1 for item in self.chain if item.finding.status is FindingStatus.FAIL)

    @property
    def indeterminate(self) -> tuple[str, ...]:
        """What could not be decided, sorted: categories of indeterminate findings, and the names of checks that
        ended indeterminate without a finding (a detector that lacked its input)."""
        undecided = {item.finding.category.value for item in self.chain if item.finding.status is FindingStatus.INDETERMINATE}
        with_findings = {item.finding.detector for item in self.chain}
        undecided.update(
            result.verifier
            for result in self.verifier_results
            if result.status is VerifierStatus.INDETERMINATE and result.verifier not in with_findings
        )
        return tuple(sorted(undecided))
