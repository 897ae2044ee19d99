"""The analysis of one trace, written once: map -> detect -> (drift) -> annotate, failing open.

Used in a thread of ``serve`` (:class:`processor.pipeline.analysis.Analyser`), in analysis worker processes
(:mod:`processor.pipeline.analysis_worker`, which runs the two halves on either side of the main process's drift
evaluation) and offline by ``map``. Pure: no clock, no file, no thread; callers time it and count it.

A trace analysed before leaves a :class:`~otel_mapper.mapping.run_state.RunState`; its next revision is analysed
with it (``prior``), over the whole run: the trajectory, the verdict and the artifacts are the run's, the new spans
are annotated (the verdict on the run's local roots among them), and what can no longer go on an exported span
becomes log records (:mod:`otel_mapper.finding_records`). The outcome carries the state for the next revision.

Fail open (DESIGN invariant 2): when mapping, the detector chain, drift or annotation raises, the spans are
annotated with verdict ``error`` and the reason (:func:`failure_reason`, one truncation rule everywhere) and go
out all the same.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError, version
from typing import Final

from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from otel_mapper.annotate import annotate, annotate_failure
from otel_mapper.attribution import PriceTable, attribute
from otel_mapper.attribution.summary import TraceUsage, trace_usage
from otel_mapper.diagnosis import Diagnosis, DriftResult
from otel_mapper.finding_records import EvaluationRecordMode, finding_records
from otel_mapper.mapping.build import MappingOptions, MappingResult, map_trace, trajectory_id_for
from otel_mapper.mapping.log_events import events_in_logs_declaration, mapping_envelopes
from otel_mapper.mapping.run_state import RunState, earlier_revisions_missing
from otel_mapper.model import CompletenessStatus, Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import joins_baseline
from semconv.genai import SERVICE_NAME

__all__ = [
    "MAX_REASON_CHARS",
    "Detected",
    "TraceAnalysis",
    "analyse_trace",
    "complete_trace",
    "detect_trace",
    "fail_open",
    "failure_reason",
    "mapping_options",
    "run_revision",
]

logger = logging.getLogger(__name__)

MAX_REASON_CHARS: Final = 200
"""Characters of an exception's message kept in the ``error`` verdict's reason (span content may be in it)."""

DriftJudge = Callable[[Trajectory, Diagnosis, bool], DriftResult]
"""Judges drift of a trajectory; the flag says whether the run already joined its baseline."""


def _package_version() -> str:
    try:
        return version("otel-trajectory")
    except PackageNotFoundError:
        return "0.0.0"


SCOPE_VERSION: Final = _package_version()


@dataclass(frozen=True, slots=True)
class Detected:
    """The first half of an analysis: the mapping and the detector chain's diagnosis (drift not yet judged)."""

    mapping: MappingResult
    diagnosis: Diagnosis


@dataclass(frozen=True, slots=True)
class TraceAnalysis:
    """The outcome: ``trajectory`` and ``diagnosis`` when the analysis succeeded, else ``error`` (the reason the
    spans were annotated with). The envelopes passed in are annotated in place either way."""

    trajectory: Trajectory | None
    diagnosis: Diagnosis | None
    error: str | None
    usage: TraceUsage | None = None
    """Tokens and cost by model, for self-metrics (``None`` when analysis failed)."""
    state: RunState | None = None
    """The run so far, for the trace's next revision (``None`` when analysis failed or was not asked to keep it)."""
    log_request: bytes | None = None
    """A serialized ``ExportLogsServiceRequest``: findings and the verdict for spans already exported."""
    log_records: int = 0


def failure_reason(cause: BaseException | str) -> str:
    """The reason written on spans whose analysis failed: an exception (its type and the start of its message),
    or a description of what went wrong around it (a worker lost, the stage closed)."""
    if isinstance(cause, BaseException):
        return f"analysis failed: {type(cause).__name__}: {str(cause)[:MAX_REASON_CHARS]}"
    return f"analysis failed: {cause[:MAX_REASON_CHARS]}"


def run_revision(released_revision: int, prior: RunState | None) -> int:
    """The revision a trace's release is analysed as: after the one its run state came from (which may be a
    previous process's, when the state survived a restart on disk)."""
    if prior is None:
        return released_revision
    return max(released_revision, prior.revision + 1)


def mapping_options(
    *, revision: int, early: bool, reason: str, logs_missing: bool, keep_run: bool = False,
    earlier_missing: bool = False,
) -> MappingOptions:
    """How a released trace is mapped: its revision, why it was released (``reason`` is the
    :class:`~processor.pipeline.assembler.ReleaseReason` value), and what is known lost already (``logs_missing``:
    its service sends trace-correlated log records but none arrived for it; ``earlier_missing``: a later revision
    analysed without its run's state)."""
    return MappingOptions(
        revision=revision,
        released_early=early,
        release_reason=f"released by {reason}",
        declarations=(
            *((events_in_logs_declaration(),) if logs_missing else ()),
            *((earlier_revisions_missing(),) if earlier_missing else ()),
        ),
        keep_run=keep_run,
    )


def detect_trace(
    envelopes: Sequence[SpanEnvelope],
    options: MappingOptions,
    chain: DetectorChain,
    logs: Mapping[bytes, Sequence[LogRecord]] | None = None,
    prior: RunState | None = None,
) -> Detected:
    """Map the spans (with their joined log records folded into copies), over the run so far when ``prior`` is
    given, and run the detector chain. Raises on failure; the caller fails open."""
    mapping = map_trace(mapping_envelopes(envelopes, logs), options, prior)
    return Detected(mapping, chain.run(mapping.trajectory))


def already_counted(prior: RunState | None, revision: int) -> bool:
    """Whether the run joined its drift baseline before this revision (a later revision without its run state
    is assumed to have: a run is never counted twice)."""
    return prior.drift_counted if prior is not None else revision > 1


def complete_trace(
    envelopes: Sequence[SpanEnvelope],
    detected: Detected,
    trace_hex: str,
    prices: PriceTable | None = None,
    prior: RunState | None = None,
    records: EvaluationRecordMode = "late",
) -> TraceAnalysis:
    """The second half: attribute usage and cost (``prices``: ``pricing`` of the config), annotate the spans in
    place with ``detected`` (its diagnosis with drift judged) and make the log records ``records`` asks for."""
    trajectory = detected.mapping.trajectory
    try:
        attribution = attribute(trajectory, prices)
        earlier = prior.span_ids if prior is not None else frozenset()
        settled = trajectory.completeness.status is not CompletenessStatus.OPEN
        on_spans = annotate(
            envelopes, detected.mapping, detected.diagnosis, attribution, frozenset(bytes.fromhex(s) for s in earlier),
            findings=settled,
        )
        usage = trace_usage(trajectory, attribution)
        recorded = finding_records(
            trajectory,
            detected.diagnosis,
            attribution,
            on_spans=on_spans,
            reported=prior.reported if prior is not None else frozenset(),
            earlier_spans=earlier,
            span_facts=_span_facts(envelopes, prior),
            mode=records if settled else "none",
            scope_version=SCOPE_VERSION,
        )
    except Exception as exc:  # fail open: never lose spans because analysis broke
        return fail_open(envelopes, trace_hex, trajectory.revision, exc)
    state = detected.mapping.state
    if state is not None:
        counted = already_counted(prior, trajectory.revision) or joins_baseline(trajectory, already_counted=False)
        reported = recorded.delivered if settled else (prior.reported if prior is not None else frozenset())
        state = replace(state, reported=reported, drift_counted=counted)
    log_request = recorded.request.SerializeToString() if recorded.request is not None else None
    return TraceAnalysis(trajectory, detected.diagnosis, None, usage, state, log_request, recorded.records)


def _span_facts(
    envelopes: Sequence[SpanEnvelope], prior: RunState | None
) -> Callable[[str], tuple[str | None, int]]:
    """Service name and end time of any span of the run, by hex span id (looked up only for records)."""
    table: dict[str, tuple[str | None, int]] = {}

    def lookup(span_id: str) -> tuple[str | None, int]:
        if not table:
            if prior is not None:
                for kept in prior.spans:
                    span = kept.view.span
                    table[kept.view.span_id] = (kept.view.service_name, span.end_time_unix_nano or span.start_time_unix_nano)
            services: dict[int, str | None] = {}
            for envelope in envelopes:
                key = id(envelope.resource)
                if key not in services:
                    services[key] = next(
                        (kv.value.string_value for kv in envelope.resource.attributes if kv.key == SERVICE_NAME), None
                    )
                span = envelope.span
                table[span.span_id.hex()] = (services[key], span.end_time_unix_nano or span.start_time_unix_nano)
        return table.get(span_id, (None, 0))

    return lookup


def fail_open(
    envelopes: Sequence[SpanEnvelope], trace_hex: str, revision: int, cause: BaseException | str
) -> TraceAnalysis:
    """Annotate the spans with verdict ``error`` and why; the outcome carries the same reason."""
    reason = failure_reason(cause)
    logger.error("trace %s: %s", trace_hex, reason, exc_info=isinstance(cause, BaseException) and logger.isEnabledFor(logging.DEBUG))
    annotate_failure(envelopes, trajectory_id_for(trace_hex), revision, reason)
    return TraceAnalysis(None, None, reason)


def analyse_trace(
    envelopes: Sequence[SpanEnvelope],
    options: MappingOptions,
    chain: DetectorChain,
    *,
    trace_hex: str,
    logs: Mapping[bytes, Sequence[LogRecord]] | None = None,
    drift: DriftJudge | None = None,
    prices: PriceTable | None = None,
    prior: RunState | None = None,
    records: EvaluationRecordMode = "late",
) -> TraceAnalysis:
    """Map (over the run so far, with ``prior``), detect, judge drift (when ``drift`` is given), attribute cost
    (``prices``) and annotate ``envelopes`` in place; fails open."""
    try:
        detected = detect_trace(envelopes, options, chain, logs, prior)
        if drift is not None:
            judged = drift(detected.mapping.trajectory, detected.diagnosis, already_counted(prior, options.revision))
            detected = Detected(detected.mapping, replace(detected.diagnosis, drift=judged))
    except Exception as exc:  # fail open: never lose spans because analysis broke
        return fail_open(envelopes, trace_hex, options.revision, exc)
    return complete_trace(envelopes, detected, trace_hex, prices, prior, records)
