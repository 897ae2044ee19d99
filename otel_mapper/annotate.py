"""Trajectory + diagnosis -> annotations added to the original spans, in place.

Only additions in the ``agent_trajectory.*`` namespace (plus the standard ``gen_ai.evaluation.result`` event):
original attributes, events, links, status, ids, times, resource and scope are never touched (DESIGN
invariant 3). Callers hand over ownership of the spans (consumer ownership rule), so no copies are made.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Final

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.attribution import Attribution, attribute
from otel_mapper.diagnosis import Diagnosis, RankedFinding
from otel_mapper.mapping.build import MappingResult
from otel_mapper.mapping.run_state import finding_key
from otel_mapper.model import Trajectory, span_node_id
from otel_mapper.otlp.envelopes import SpanEnvelope
from semconv import genai
from semconv import trajectory as names
from semconv.trajectory import DeclarationCategory, DeclarationEffect, Verdict

__all__ = [
    "annotate",
    "annotate_failure",
    "evaluation_attributes",
    "finding_attributes",
    "local_root_indices",
    "run_attributes",
    "strip_annotations",
]

_SPAN_NODE_PREFIX: Final = span_node_id("")

MAX_ERROR_TEXT = 256


def _string(key: str, value: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def _int(key: str, value: int) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(int_value=value))


def _double(key: str, value: float) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(double_value=value))


def _bool(key: str, value: bool) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(bool_value=value))


def _strings(key: str, values: Sequence[str]) -> KeyValue:
    array = ArrayValue(values=[AnyValue(string_value=value) for value in values])
    return KeyValue(key=key, value=AnyValue(array_value=array))


def local_root_indices(envelopes: Sequence[SpanEnvelope], earlier: AbstractSet[bytes] = frozenset()) -> list[int]:
    """Spans whose parent is not in this trace: true roots, and roots of the part of the trace we hold.
    ``earlier``: span ids an earlier revision of the run already held (their children are not roots)."""
    present = {envelope.span.span_id for envelope in envelopes}
    if earlier:
        present |= earlier
    return [
        index
        for index, envelope in enumerate(envelopes)
        if not envelope.span.parent_span_id or envelope.span.parent_span_id not in present
    ]


def annotate(
    envelopes: Sequence[SpanEnvelope],
    mapping: MappingResult,
    diagnosis: Diagnosis,
    attribution: Attribution | None = None,
    earlier: AbstractSet[bytes] = frozenset(),
    findings: bool = True,
) -> set[str]:
    """Add node kinds, root-span verdict and attribution attributes and one finding event per ranked finding.

    ``attribution`` carries the costs of a price table; without one, usage and the critical path are still added.
    ``earlier``: span ids of the run's earlier revisions (already exported): the verdict goes on the spans whose
    parent is in neither. ``findings=False`` leaves finding events out (a run still under way: its findings may
    yet move or go, so they wait for the revision that has the run's top). Returns the
    :func:`~otel_mapper.mapping.run_state.finding_key` of each finding put on a span here.
    """
    trajectory = mapping.trajectory
    attribution = attribution if attribution is not None else attribute(trajectory)
    on_path = attribution.on_critical_path()
    node_cost = attribution.node_cost_usd
    kind_by_node = {node.id: node.kind.value for node in trajectory.nodes}
    anchor_index: dict[str, int] = {}
    kind_attributes: dict[str, KeyValue] = {}  # one message per kind: append copies it into each span
    path_attributes = (_bool(names.NODE_ON_CRITICAL_PATH, False), _bool(names.NODE_ON_CRITICAL_PATH, True))
    for index, node_id in enumerate(mapping.node_of_span):
        if node_id is None:
            continue
        kind = kind_by_node.get(node_id)
        if kind is not None:
            attribute_kv = kind_attributes.get(kind)
            if attribute_kv is None:
                attribute_kv = kind_attributes[kind] = _string(names.NODE_KIND, kind)
            attributes = envelopes[index].span.attributes
            attributes.append(attribute_kv)
            if node_id not in anchor_index:  # a node's first span: merged duplicates are references
                attributes.append(path_attributes[node_id in on_path])
                cost = node_cost.get(node_id)
                if cost is not None:
                    attributes.append(_double(names.NODE_COST_USD, cost))
        anchor_index.setdefault(node_id, index)

    root_attributes = run_attributes(trajectory, diagnosis, attribution)
    for index in local_root_indices(envelopes, earlier):
        envelopes[index].span.attributes.extend(root_attributes)

    delivered: set[str] = set()
    for item in diagnosis.chain if findings else ():
        finding = item.finding
        node_id = finding.node_id
        if node_id not in anchor_index:
            # Derived nodes (proposals) anchor on the span they came from.
            node_id = node_id.split("#", 1)[0]
        anchor = _own_span_index(node_id, anchor_index, envelopes, mapping.node_of_span)
        if anchor is None:
            continue  # its node's own span went out with an earlier revision: a log record carries it
        span = envelopes[anchor].span
        _add_event(span, names.FINDING_EVENT, finding_attributes(item))
        _add_event(span, genai.EVALUATION_RESULT_EVENT, evaluation_attributes(item))
        delivered.add(finding_key(finding.category.value, finding.node_id, finding.detector))
    return delivered


def _own_span_index(
    node_id: str, anchor_index: dict[str, int], envelopes: Sequence[SpanEnvelope], node_of_span: Sequence[str | None]
) -> int | None:
    """Index of the node's own span among ``envelopes`` (not a span merged into it), ``None`` when absent: a
    finding goes on the span its node is named after, whichever of the node's spans came first."""
    first = anchor_index.get(node_id)
    if first is None:
        return None
    own = node_id[len(_SPAN_NODE_PREFIX) :].split("#", 1)[0]
    if envelopes[first].span.span_id.hex() == own:
        return first
    for index in range(first + 1, len(envelopes)):
        if node_of_span[index] == node_id and envelopes[index].span.span_id.hex() == own:
            return index
    return None


def run_attributes(trajectory: Trajectory, diagnosis: Diagnosis, attribution: Attribution) -> list[KeyValue]:
    """What the root span of a run carries: verdict, root cause, counts, losses, completeness, attribution."""
    dropped = sorted({d.category.value for d in trajectory.declarations if d.effect is DeclarationEffect.DROPPED})
    approximated = sorted(
        {d.category.value for d in trajectory.declarations if d.effect is DeclarationEffect.APPROXIMATED}
    )
    attributes = [
        _string(names.VERDICT, diagnosis.verdict.value),
        _string(names.ROOT_CAUSE, diagnosis.root_cause),
        _string(names.TERMINAL_STATUS, diagnosis.terminal_status.value),
        _int(names.FINDINGS, diagnosis.failed_findings),
        _strings(names.INDETERMINATE, list(diagnosis.indeterminate)),
        _string(names.TRAJECTORY_ID, trajectory.trajectory_id),
        _int(names.REVISION, trajectory.revision),
        _strings(names.MAPPING_DROPPED, dropped),
        _strings(names.MAPPING_APPROXIMATED, approximated),
        _string(names.COMPLETENESS, trajectory.completeness.status.value),
        _string(names.DRIFT_VERDICT, diagnosis.drift.verdict.value),
        _strings(names.DRIFT_DIMENSIONS, list(diagnosis.drift.dimensions)),
    ]
    if diagnosis.error:
        attributes.append(_string(names.ANALYSIS_ERROR, diagnosis.error[:MAX_ERROR_TEXT]))
    attributes.extend(_attribution_attributes(attribution))
    return attributes


def finding_attributes(item: RankedFinding) -> list[KeyValue]:
    """The ``agent_trajectory.finding.*`` attributes of one ranked finding."""
    finding = item.finding
    return [
        _string(names.FINDING_CATEGORY, finding.category.value),
        _string(names.FINDING_SEVERITY, finding.severity.value),
        _int(names.FINDING_RANK, item.rank),
        _string(names.FINDING_STATUS, finding.status.value),
        _string(names.FINDING_DETECTOR, finding.detector),
        _string(names.FINDING_DETECTOR_VERSION, finding.detector_version),
        _string(names.FINDING_EVIDENCE, finding.evidence[: names.MAX_EVIDENCE_CHARS]),
        _string(names.FINDING_NODE_ID, finding.node_id),
    ]


def evaluation_attributes(item: RankedFinding) -> list[KeyValue]:
    """The ``gen_ai.evaluation.result`` attributes of one ranked finding."""
    finding = item.finding
    return [
        _string(genai.EVALUATION_NAME, finding.detector),
        _string(genai.EVALUATION_SCORE_LABEL, finding.status.value),
        _string(genai.EVALUATION_EXPLANATION, finding.evidence[: names.MAX_EVIDENCE_CHARS]),
    ]


def _attribution_attributes(attribution: Attribution) -> list[KeyValue]:
    usage = attribution.usage
    attributes = [
        _int(names.USAGE_INPUT_TOKENS, usage.input_tokens),
        _int(names.USAGE_OUTPUT_TOKENS, usage.output_tokens),
        _double(names.CRITICAL_PATH_DURATION_MS, attribution.path.duration_ns / 1e6),
        _int(names.CRITICAL_PATH_NODES, len(attribution.path.steps)),
        _int(names.RETRIES, len(attribution.retries.retries)),
        _int(names.CANCELLATIONS, len(attribution.retries.cancellations)),
    ]
    if attribution.cost_usd is not None:
        attributes.append(_double(names.COST_USD, attribution.cost_usd))
    return attributes


def _add_event(span: Span, name: str, attributes: list[KeyValue]) -> None:
    event = span.events.add()
    # The span's own end time: deterministic (no wall clock) and inside the span.
    event.time_unix_nano = span.end_time_unix_nano or span.start_time_unix_nano
    event.name = name
    event.attributes.extend(attributes)


def annotate_failure(envelopes: Sequence[SpanEnvelope], trajectory_id: str, revision: int, reason: str) -> None:
    """Analysis failed: the spans still go out, with verdict ``error`` and the reason declared (fail open)."""
    attributes = [
        _string(names.VERDICT, Verdict.ERROR.value),
        _string(names.ROOT_CAUSE, names.ROOT_CAUSE_NONE),
        _string(names.TERMINAL_STATUS, names.TerminalStatus.UNKNOWN.value),
        _int(names.FINDINGS, 0),
        _string(names.TRAJECTORY_ID, trajectory_id),
        _int(names.REVISION, revision),
        _strings(names.MAPPING_DROPPED, [DeclarationCategory.ANALYSIS.value]),
        _strings(names.MAPPING_APPROXIMATED, []),
        _string(names.ANALYSIS_ERROR, reason[:MAX_ERROR_TEXT]),
    ]
    for index in local_root_indices(envelopes):
        envelopes[index].span.attributes.extend(attributes)


def strip_annotations(span: Span) -> bool:
    """Remove what :func:`annotate` added to ``span`` (our attributes, finding events and, on spans we annotated,
    the evaluation events), so spans written by the processor can be analysed again as they arrived. Returns
    whether anything was removed."""
    prefix = names.NAMESPACE + "."
    ours = [kv for kv in span.attributes if kv.key.startswith(prefix)]
    if not ours and not any(event.name == names.FINDING_EVENT for event in span.events):
        return False
    kept = [kv for kv in span.attributes if not kv.key.startswith(prefix)]
    del span.attributes[:]
    span.attributes.extend(kept)
    added = (names.FINDING_EVENT, genai.EVALUATION_RESULT_EVENT)
    events = [event for event in span.events if event.name not in added]
    del span.events[:]
    span.events.extend(events)
    return True
