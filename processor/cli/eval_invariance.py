"""Invariance checks for ``otel-trajectory eval``: the analysis of a labelled trace must not change when its spans
arrive in another order or carry other timestamps.

Each perturbation is seeded (the trace id and the perturbation's number), so a run is reproducible:

- the spans are shuffled (arrival order, resource and scope kept with each span);
- every span is moved to a random start within a window as wide as the trace, its duration kept, and its
  events moved with it. Spans then overlap, nest and follow each other in orders the real run never had.

Durations are kept because they are facts of one span (a latency budget may read them); what moves is every
relation in time between two spans, which the mapping must never read as causality. What is compared is the
diagnosis a user reads (verdict, root cause, terminal status, each finding's rank, category, status, node and
related nodes) and the causal graph (every edge, every node's kind and status). Evidence texts are left out: they
may quote a duration or a count, never an order, and a changed finding shows in the fields above.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope

__all__ = ["InvarianceTally", "Signature", "check_invariance", "perturbed", "signature"]

DEFAULT_PERTURBATIONS: Final = 2
MIN_WINDOW_NS: Final = 1_000_000_000
"""The shortest window spans are moved within (1 s), so a trace of instantaneous spans is still reordered."""

Signature = tuple[object, ...]
Analyse = Callable[[list[SpanEnvelope]], tuple[Trajectory, Diagnosis]]


@dataclass(slots=True)
class InvarianceTally:
    """Traces checked, and how many of them gave the same analysis under every perturbation."""

    checked: int = 0
    invariant: int = 0
    perturbations: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"checked": self.checked, "invariant": self.invariant, "perturbations": self.perturbations,
                "rate": self.invariant / self.checked if self.checked else None}


def signature(trajectory: Trajectory, diagnosis: Diagnosis) -> Signature:
    """What must not move when arrival order or timestamps do."""
    findings = tuple(
        (item.rank, item.finding.category.value, item.finding.status.value, item.finding.node_id,
         tuple(sorted(item.finding.related_nodes)))
        for item in diagnosis.chain
    )
    edges = tuple(sorted((edge.from_node, edge.type.value, edge.to_node) for edge in trajectory.edges))
    nodes = tuple(sorted((node.id, node.kind.value, node.status.value) for node in trajectory.nodes))
    return (diagnosis.verdict.value, diagnosis.root_cause, diagnosis.terminal_status.value, findings, edges, nodes)


_PARTS: Final = ("verdict", "root cause", "terminal status", "findings", "edges", "nodes")


def _moved(span: Span, start: int) -> Span:
    moved = Span()
    moved.CopyFrom(span)
    delta = start - span.start_time_unix_nano
    duration = max(0, span.end_time_unix_nano - span.start_time_unix_nano)
    moved.start_time_unix_nano = start
    moved.end_time_unix_nano = start + duration
    for event in moved.events:
        event.time_unix_nano = max(0, event.time_unix_nano + delta)
    return moved


def perturbed(envelopes: Sequence[SpanEnvelope], seed: str) -> list[SpanEnvelope]:
    """The same spans, shuffled and each moved to a random start within the trace's own window (see module doc)."""
    rng = random.Random(seed)
    starts = [item.span.start_time_unix_nano for item in envelopes if item.span.start_time_unix_nano]
    ends = [item.span.end_time_unix_nano for item in envelopes if item.span.end_time_unix_nano]
    low = min(starts, default=MIN_WINDOW_NS)
    window = max(MIN_WINDOW_NS, max(ends, default=low) - low)
    result = [replace(item, span=_moved(item.span, low + rng.randrange(window))) for item in envelopes]
    rng.shuffle(result)
    return result


def _first_difference(before: Signature, after: Signature) -> str:
    for name, old, new in zip(_PARTS, before, after, strict=True):
        if old != new:
            return f"{name} changed: {str(old)[:120]} -> {str(new)[:120]}"
    return "unchanged"


def check_invariance(envelopes: Sequence[SpanEnvelope], trace_id: str, baseline: Signature, analyse: Analyse,
                     perturbations: int) -> tuple[bool, str]:
    """Whether ``perturbations`` seeded perturbations all give ``baseline``; else what changed in the first that did not."""
    for number in range(perturbations):
        trajectory, diagnosis = analyse(perturbed(envelopes, f"{trace_id}:{number}"))
        after = signature(trajectory, diagnosis)
        if after != baseline:
            return False, f"perturbation {number}: {_first_difference(baseline, after)}"
    return True, ""
