"""Static replay: what a configuration change would have said about recorded runs.

Pure comparison of two diagnoses of the same trajectory (before: the baseline configuration, after: the new
one). The change kinds, in the order they are decided:

- ``new_failure``: a failing finding (category on a node) that the baseline did not report, or a verdict that
  became ``fail`` or ``error``;
- ``fixed``: the verdict was ``fail`` and no longer is;
- ``root_cause_changed``: both fail, with a different root cause;
- ``anchor_changed``: same root cause, anchored on another node;
- ``fixed`` too when some failing finding is gone and nothing else changed;
- ``unchanged``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from otel_mapper.diagnosis import Diagnosis
from semconv.trajectory import FindingStatus, Verdict

__all__ = ["Change", "ReplayOutcome", "compare", "summary"]

_FAILING = frozenset({Verdict.FAIL, Verdict.ERROR})


class Change(StrEnum):
    NEW_FAILURE = "new_failure"
    FIXED = "fixed"
    ROOT_CAUSE_CHANGED = "root_cause_changed"
    ANCHOR_CHANGED = "anchor_changed"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayOutcome:
    change: Change
    new_findings: tuple[tuple[str, str], ...]
    """(category, node id) failing after, not before."""
    resolved_findings: tuple[tuple[str, str], ...]
    """(category, node id) failing before, not after."""


def _failing(diagnosis: Diagnosis) -> set[tuple[str, str]]:
    return {
        (item.finding.category.value, item.finding.node_id)
        for item in diagnosis.chain
        if item.finding.status is FindingStatus.FAIL
    }


def _anchor(diagnosis: Diagnosis) -> str | None:
    primary = [item for item in diagnosis.chain if item.rank == 1]
    return primary[0].finding.node_id if primary else None


def compare(before: Diagnosis, after: Diagnosis) -> ReplayOutcome:
    old, new = _failing(before), _failing(after)
    added = tuple(sorted(new - old))
    resolved = tuple(sorted(old - new))
    if added or (after.verdict in _FAILING and before.verdict not in _FAILING):
        change = Change.NEW_FAILURE
    elif before.verdict in _FAILING and after.verdict not in _FAILING:
        change = Change.FIXED
    elif before.root_cause != after.root_cause:
        change = Change.ROOT_CAUSE_CHANGED
    elif _anchor(before) != _anchor(after):
        change = Change.ANCHOR_CHANGED
    elif resolved:
        change = Change.FIXED
    else:
        change = Change.UNCHANGED
    return ReplayOutcome(change=change, new_findings=added, resolved_findings=resolved)


def summary(diagnosis: Diagnosis) -> dict[str, object]:
    """The part of a diagnosis a replay report shows."""
    return {
        "verdict": diagnosis.verdict.value,
        "root_cause": diagnosis.root_cause,
        "terminal_status": diagnosis.terminal_status.value,
        "anchor": _anchor(diagnosis),
        "failing_findings": [
            {"category": category, "node_id": node} for category, node in sorted(_failing(diagnosis))
        ][:256],
        "error": diagnosis.error,
    }
