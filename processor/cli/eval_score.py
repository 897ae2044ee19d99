"""Scoring one labelled trace for ``otel-trajectory eval``: findings per category, anchors, root cause, terminal
status, model->tool links; tallies per convention (the library directory a trace sits in).

Matching. A ``fail`` label is matched by a ``fail`` finding of its category, on the labelled span if one is there.
An ``indeterminate`` label is matched by an ``indeterminate`` finding of its category, or by the check ending
undecided without a finding (the category among ``Diagnosis.indeterminate``: a detector that lacked its input
says so once, not per call); such a match has no anchor to check. Predicted ``indeterminate`` findings no label
asks for are counted apart, never as false alarms.

Hidden labels. A label with ``"in_trace": false`` states a fact of the run that the trace holds no evidence of (a
429 that the client retried inside the span of the request that then succeeded: the span ends OK and records
nothing of it). It is scored apart, as ``hidden``, and enters neither precision nor recall: no analysis of the
trace can find it, and a finding of its category on its span is not counted a false alarm either.

Anchors. A matched finding is on the labelled span, or it is not. When it is not, but the labelled node is one of
the finding's own nodes and no causal path orders it against the node the finding chose (e.g. the "first" of four
identical executions that nothing but timestamps tells apart), the anchor is *undecidable* from the trace: counted
apart and left out of anchor accuracy, which is therefore ``anchored / (matched with an anchor - undecidable)``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Final

from otel_mapper.diagnosis import Diagnosis, Finding
from otel_mapper.mapping.graph import causal_index
from otel_mapper.model import Trajectory
from processor.cli.eval_content import ContentOffTally
from processor.cli.eval_invariance import InvarianceTally
from processor.cli.eval_links import LinkTally
from semconv.trajectory import ROOT_CAUSE_NONE, FindingStatus

__all__ = ["ConventionReport", "Report", "Tally", "score_invariance", "score_trace"]

MAX_EVIDENCE: Final = 160


@dataclass(slots=True)
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    anchored: int = 0
    anchor_checked: int = 0
    """Matches whose anchor could be compared (findings, not undecided checks)."""
    anchor_undecidable: int = 0
    indeterminate: int = 0
    hidden: int = 0
    """Labels whose evidence is not in the trace (``"in_trace": false``): outside precision and recall."""

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.anchored += other.anchored
        self.anchor_checked += other.anchor_checked
        self.anchor_undecidable += other.anchor_undecidable
        self.indeterminate += other.indeterminate
        self.hidden += other.hidden

    def as_dict(self) -> dict[str, Any]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else None
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else None
        judged = self.anchor_checked - self.anchor_undecidable
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": precision, "recall": recall,
                "anchor_accuracy": self.anchored / judged if judged else None,
                "anchor_undecidable": self.anchor_undecidable, "indeterminate": self.indeterminate,
                "hidden": self.hidden}


@dataclass(slots=True)
class ConventionReport:
    """Everything scored for the traces of one library directory."""

    categories: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    links: LinkTally = field(default_factory=LinkTally)
    invariance: InvarianceTally = field(default_factory=InvarianceTally)
    traces: int = 0
    terminal_right: int = 0
    root_causes: int = 0
    unfounded_root_causes: int = 0

    def total(self) -> Tally:
        total = Tally()
        for tally in self.categories.values():
            total.add(tally)
        return total


@dataclass(slots=True)
class Report:
    categories: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    conventions: dict[str, ConventionReport] = field(default_factory=lambda: defaultdict(ConventionReport))
    links: LinkTally = field(default_factory=LinkTally)
    invariance: InvarianceTally = field(default_factory=InvarianceTally)
    traces: int = 0
    terminal_right: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)
    root_causes: int = 0
    """Traces whose diagnosis names a root cause (anything but ``none``)."""
    unfounded_root_causes: int = 0
    """Root causes that no failed finding of the diagnosis, or no ``fail`` label of the trace, supports."""
    content_off: ContentOffTally | None = None
    """With ``--content-off``: the same traces analysed with their content dropped."""


def _span_of(trajectory: Trajectory, finding: Finding) -> str:
    node = trajectory.node(finding.node_id)
    return node.source.span_id if node else ""


def _anchor_undecidable(trajectory: Trajectory, finding: Finding, labelled_span: object) -> bool:
    labelled = f"span:{labelled_span}"
    if labelled not in finding.related_nodes:
        return False
    return causal_index(trajectory).ordered(labelled, finding.node_id) is False


def _score_findings(
    tallies: dict[str, Tally], misses: list[dict[str, Any]], where: str, labels: dict[str, Any], trajectory: Trajectory,
    diagnosis: Diagnosis,
) -> None:
    predicted: dict[str, list[Finding]] = defaultdict(list)
    for item in diagnosis.chain:
        predicted[item.finding.category.value].append(item.finding)
    expected: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for label in labels.get("findings") or []:
        expected[str(label.get("category"))].append(label)
    undecided_checks = set(diagnosis.indeterminate)
    for category in sorted(set(predicted) | set(expected)):
        tally = tallies[category]
        free = list(predicted.get(category, []))
        for label in expected.get(category, []):
            if label.get("in_trace", True) is False:
                tally.hidden += 1
                free = [f for f in free if _span_of(trajectory, f) != label.get("anchor_span")]
                continue
            status = label.get("status", "fail")
            candidates = [f for f in free if f.status.value == status]
            on_span = [f for f in candidates if _span_of(trajectory, f) == label.get("anchor_span")]
            chosen = on_span[0] if on_span else candidates[0] if candidates else None
            if chosen is None:
                if status == FindingStatus.INDETERMINATE.value and category in undecided_checks:
                    tally.tp += 1  # the check said, once, that it could not decide: no anchor to compare
                    continue
                tally.fn += 1
                near = next((f for f in free if f.status.value != status), None)
                note = f"predicted {near.status.value}: {near.evidence[:MAX_EVIDENCE]}" if near else "no finding"
                misses.append({"trace": where, "category": category, "kind": "missed", "span": label.get("anchor_span"), "evidence": note})
                continue
            free.remove(chosen)
            tally.tp += 1
            tally.anchor_checked += 1
            if on_span:
                tally.anchored += 1
            elif _anchor_undecidable(trajectory, chosen, label.get("anchor_span")):
                tally.anchor_undecidable += 1
                misses.append({"trace": where, "category": category, "kind": "anchor undecidable", "span": _span_of(trajectory, chosen),
                               "evidence": f"labelled {label.get('anchor_span')}, one of the finding's nodes that no causal path orders "
                                           f"against the chosen one; found: {chosen.evidence[:MAX_EVIDENCE]}"})
            else:
                misses.append({"trace": where, "category": category, "kind": "wrong anchor", "span": _span_of(trajectory, chosen),
                               "evidence": f"labelled {label.get('anchor_span')}; found: {chosen.evidence[:MAX_EVIDENCE]}"})
        for finding in free:
            if finding.status is FindingStatus.INDETERMINATE:
                tally.indeterminate += 1
                continue
            tally.fp += 1
            misses.append({"trace": where, "category": category, "kind": "false alarm", "span": _span_of(trajectory, finding),
                           "evidence": finding.evidence[:MAX_EVIDENCE]})


def _unfounded_root_cause(labels: dict[str, Any], diagnosis: Diagnosis) -> str | None:
    """Why the root cause is unfounded, or ``None`` when it is founded (or there is none). A root cause is founded
    when a failed finding of its category exists and a ``fail`` label names it."""
    cause = diagnosis.root_cause
    if cause == ROOT_CAUSE_NONE:
        return None
    failed = {item.finding.category.value for item in diagnosis.chain if item.finding.status is FindingStatus.FAIL}
    labelled = {str(label.get("category")) for label in labels.get("findings") or [] if label.get("status", "fail") == "fail"}
    if cause in failed and cause in labelled:
        return None
    return "no failed finding of that category" if cause not in failed else "no fail label of that category"


def score_trace(
    report: Report, where: str, convention: str, labels: dict[str, Any], trajectory: Trajectory, diagnosis: Diagnosis,
    links: LinkTally,
) -> None:
    """Add one trace's scores to the report's totals and to its convention's."""
    per_convention = report.conventions[convention]
    own: dict[str, Tally] = defaultdict(Tally)
    _score_findings(own, report.misses, where, labels, trajectory, diagnosis)
    for category, tally in own.items():
        report.categories[category].add(tally)
        per_convention.categories[category].add(tally)
    report.links.add(links)
    per_convention.links.add(links)
    report.traces += 1
    per_convention.traces += 1
    if diagnosis.root_cause != ROOT_CAUSE_NONE:
        report.root_causes += 1
        per_convention.root_causes += 1
    why = _unfounded_root_cause(labels, diagnosis)
    if why is not None:
        report.unfounded_root_causes += 1
        per_convention.unfounded_root_causes += 1
        report.misses.append({"trace": where, "category": "root_cause", "kind": "unfounded root cause", "span": "",
                              "evidence": f"root cause {diagnosis.root_cause}: {why}"})
    expected_terminal = labels.get("terminal_status")
    if expected_terminal == diagnosis.terminal_status.value:
        report.terminal_right += 1
        per_convention.terminal_right += 1
    elif expected_terminal is not None:
        report.misses.append({"trace": where, "category": "terminal_status", "kind": "wrong terminal status", "span": "",
                              "evidence": f"labelled {expected_terminal}, got {diagnosis.terminal_status.value}"})


def score_invariance(report: Report, where: str, convention: str, invariant: bool, perturbations: int, why: str) -> None:
    """Add one trace's invariance check (``perturbations`` seeded perturbations, see :mod:`eval_invariance`)."""
    for tally in (report.invariance, report.conventions[convention].invariance):
        tally.checked += 1
        tally.perturbations = perturbations
        tally.invariant += invariant
    if not invariant:
        report.misses.append({"trace": where, "category": "invariance", "kind": "not invariant", "span": "", "evidence": why})
