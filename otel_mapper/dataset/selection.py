"""Which bundles enter a dataset, and the labels each gets (the corpus ``labels.json`` format that
``otel-trajectory eval`` scores).

A bundle is selected when, in order: it is a bundle we can read (its diagnosis extension present), its verdict
matches (``fail`` | ``pass`` | ``any``), one of its findings has a requested category (when categories are given),
its review (when a review file is given) confirms it, and its rights grant the dataset's declared use
(``unknown`` is never permission, AT-13.3). Each exclusion is counted by its reason.

Labels: the diagnosis's findings (``fail`` and ``indeterminate``), anchored on their spans, and the terminal
status. A review that names a category keeps only the findings of that category; when the detectors reported
none, the label is that category anchored where the root cause was.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from otel_mapper.bundle.common import DIAGNOSIS_EXTENSION, RIGHTS

__all__ = [
    "DECLARED_USES",
    "Exclusion",
    "Review",
    "Selection",
    "bundle_trace_id",
    "labels_for",
    "select",
]

DECLARED_USES: Final = tuple(name for name in RIGHTS if name != "retention")
"""Uses a dataset can declare; ``retention`` is asked of every bundle besides."""
MAX_LABELS: Final = 1_000


class Exclusion(StrEnum):
    NOT_A_DIAGNOSED_BUNDLE = "not_a_diagnosed_bundle"
    VERDICT = "verdict"
    CATEGORY = "category"
    NOT_REVIEWED = "not_reviewed"
    REVIEW_REJECTED = "review_rejected"
    RIGHTS_DENIED = "rights_denied"
    RIGHTS_UNKNOWN = "rights_unknown"


@dataclass(frozen=True, slots=True, kw_only=True)
class Review:
    trace_id: str
    outcome: str
    """``confirmed`` or ``rejected``."""
    category: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Selection:
    verdict: str = "fail"
    categories: frozenset[str] = frozenset()
    reviews: dict[str, Review] | None = None
    """``None``: no review file; every bundle that matches is taken."""
    declared_use: str = "local_evaluation"


def _diagnosis(bundle: dict[str, object]) -> dict[str, object] | None:
    extensions = bundle.get("extensions")
    body = extensions.get(DIAGNOSIS_EXTENSION) if isinstance(extensions, dict) else None
    return body if isinstance(body, dict) else None


def bundle_trace_id(bundle: dict[str, object]) -> str | None:
    transform = bundle.get("transform")
    source = transform.get("source") if isinstance(transform, dict) else None
    trace_id = source.get("trace_id") if isinstance(source, dict) else None
    return trace_id if isinstance(trace_id, str) and trace_id else None


def _chain(diagnosis: dict[str, object]) -> list[dict[str, object]]:
    chain = diagnosis.get("causal_chain")
    return [item for item in chain if isinstance(item, dict)] if isinstance(chain, list) else []


def _right(bundle: dict[str, object], name: str) -> str:
    rights = bundle.get("rights")
    value = rights.get(name) if isinstance(rights, dict) else None
    return value if value in ("granted", "denied") else "unknown"


def select(bundle: dict[str, object], selection: Selection) -> Exclusion | None:
    """``None`` when the bundle enters the dataset, else why not."""
    diagnosis = _diagnosis(bundle)
    trace_id = bundle_trace_id(bundle)
    if diagnosis is None or trace_id is None:
        return Exclusion.NOT_A_DIAGNOSED_BUNDLE
    if selection.verdict != "any" and diagnosis.get("verdict") != selection.verdict:
        return Exclusion.VERDICT
    if selection.categories:
        found = {str(item.get("category")) for item in _chain(diagnosis)} | {str(diagnosis.get("root_cause"))}
        if not found & selection.categories:
            return Exclusion.CATEGORY
    if selection.reviews is not None:
        review = selection.reviews.get(trace_id)
        if review is None:
            return Exclusion.NOT_REVIEWED
        if review.outcome != "confirmed":
            return Exclusion.REVIEW_REJECTED
    statuses = {_right(bundle, selection.declared_use), _right(bundle, "retention")}
    if "denied" in statuses:
        return Exclusion.RIGHTS_DENIED
    if "unknown" in statuses:
        return Exclusion.RIGHTS_UNKNOWN
    return None


def _rank(value: object) -> int:
    return value if isinstance(value, int) else 0


def labels_for(bundle: dict[str, object], review: Review | None) -> dict[str, object]:
    """The bundle's labels in the corpus format (``trace_id``, ``findings``, ``terminal_status``)."""
    diagnosis = _diagnosis(bundle) or {}
    chain = sorted(_chain(diagnosis), key=lambda item: (_rank(item.get("rank")), str(item.get("node_id"))))
    findings = [
        {"category": item.get("category"), "status": item.get("status"), "anchor_span": item.get("span_id")}
        for item in chain
        if item.get("status") in ("fail", "indeterminate")
    ]
    basis = "detector chain diagnosis recorded in the bundle"
    if review is not None and review.category:
        reviewed = [item for item in findings if item["category"] == review.category]
        if not reviewed:
            anchor = chain[0].get("span_id") if chain else None
            reviewed = [{"category": review.category, "status": "fail", "anchor_span": anchor}]
        findings = reviewed
        basis = "review: category confirmed by a reviewer"
    elif review is not None:
        basis = "review: detector diagnosis confirmed by a reviewer"
    return {
        "trace_id": bundle_trace_id(bundle),
        "findings": findings[:MAX_LABELS],
        "terminal_status": diagnosis.get("terminal_status"),
        "label_basis": basis,
        "review": None if review is None else {"outcome": review.outcome, "category": review.category},
    }
