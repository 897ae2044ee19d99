"""``otel-trajectory eval --content-off``: the analysis of a labelled trace whose content was never captured.

Production agents often run with content capture off (prompts, answers, tool arguments and results left out of
telemetry for privacy). Each labelled trace is analysed again with its spans reduced as a dataset's ``drop`` content
mode reduces them (:mod:`otel_mapper.dataset.span_redaction`: every convention's message, argument and result
attributes, on spans and on their events) and without its log records. Less can be found then; what must not happen
is a failure claimed without evidence. Counted per trace:

- *kept*: labelled ``fail`` categories the reduced trace still fails;
- *undecided*: labelled ``fail`` categories the reduced trace reports ``indeterminate`` (the analysis says it could
  not check them: reported apart, as a user would see it), and *unreported* the rest of the missed ones (nothing in
  the analysis points at them);
- *unsupported*: categories the reduced trace fails that no ``fail`` label of the trace gives (each listed with its
  evidence: a claim the content would have corrected, or a less specific one, such as a model error where the
  content said rate limit);
- *unfounded*: a root cause in such a category.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.dataset.span_redaction import redact_span
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope
from semconv.trajectory import ROOT_CAUSE_NONE, FindingStatus

__all__ = ["CategoryTally", "ContentOffTally", "check_content_off", "without_content"]

Analyse = Callable[[list[SpanEnvelope]], tuple[Trajectory, Diagnosis]]

MAX_EVIDENCE = 160


@dataclass(slots=True)
class CategoryTally:
    labelled: int = 0
    kept: int = 0
    undecided: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"labelled": self.labelled, "kept": self.kept, "undecided": self.undecided,
                "unreported": self.labelled - self.kept - self.undecided}


@dataclass(slots=True)
class ContentOffTally:
    traces: int = 0
    labelled: int = 0
    """Labelled ``fail`` categories whose evidence is in the trace, one per trace and category."""
    kept: int = 0
    undecided: int = 0
    categories: dict[str, CategoryTally] = field(default_factory=dict)
    """The labelled failures per category: found, undecided, unreported."""
    unsupported: list[dict[str, str]] = field(default_factory=list)
    missed: list[dict[str, str]] = field(default_factory=list)
    """Each labelled failure not found: trace, category, and whether it was reported ``indeterminate``."""
    unfounded_root_causes: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "traces": self.traces,
            "labelled_failures": self.labelled,
            "kept": self.kept,
            "recall": self.kept / self.labelled if self.labelled else None,
            "undecided": self.undecided,
            "unreported": self.labelled - self.kept - self.undecided,
            "categories": {name: row.as_dict() for name, row in sorted(self.categories.items())},
            "unsupported_failures": len(self.unsupported),
            "unfounded_root_causes": self.unfounded_root_causes,
            "unsupported": self.unsupported,
            "missed": self.missed,
        }


def without_content(envelopes: Sequence[SpanEnvelope]) -> list[SpanEnvelope]:
    """Copies of the envelopes with their spans' content dropped (the originals untouched)."""
    reduced: list[SpanEnvelope] = []
    for envelope in envelopes:
        span = Span()
        span.CopyFrom(envelope.span)
        redact_span(span, "drop")
        reduced.append(replace(envelope, span=span))
    return reduced


def check_content_off(
    tally: ContentOffTally, where: str, labels: dict[str, Any], envelopes: Sequence[SpanEnvelope], analyse: Analyse
) -> None:
    """Analyse ``envelopes`` (the trace's spans, without log records) with their content dropped; add to ``tally``."""
    _, diagnosis = analyse(without_content(envelopes))
    failures = [item for item in labels.get("findings") or [] if item.get("status", "fail") == "fail"]
    labelled = {str(item.get("category")) for item in failures}
    to_find = {str(item.get("category")) for item in failures if item.get("in_trace", True) is not False}
    failing: dict[str, str] = {}
    for item in diagnosis.chain:
        if item.finding.status is FindingStatus.FAIL:
            failing.setdefault(item.finding.category.value, item.finding.evidence)
    undecided = set(diagnosis.indeterminate)  # a detector is named after the category it reports
    tally.traces += 1
    tally.labelled += len(to_find)
    tally.kept += len(to_find & failing.keys())
    for category in sorted(to_find):
        row = tally.categories.setdefault(category, CategoryTally())
        row.labelled += 1
        if category in failing:
            row.kept += 1
            continue
        if category in undecided:
            row.undecided += 1
            tally.undecided += 1
        tally.missed.append({"trace": where, "category": category,
                             "reported": "indeterminate" if category in undecided else "nothing"})
    for category in sorted(failing.keys() - labelled):
        tally.unsupported.append({"trace": where, "category": category, "evidence": failing[category][:MAX_EVIDENCE]})
    if diagnosis.root_cause != ROOT_CAUSE_NONE and diagnosis.root_cause not in labelled:
        tally.unfounded_root_causes += 1
