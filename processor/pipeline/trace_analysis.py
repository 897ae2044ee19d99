"""The analysis of one trace, written once: map -> detect -> (drift) -> annotate, failing open.

Used in a thread of ``serve`` (:class:`processor.pipeline.analysis.Analyser`), in analysis worker processes
(:mod:`processor.pipeline.analysis_worker`, which runs the two halves on either side of the main process's drift
evaluation) and offline by ``map``. Pure: no clock, no file, no thread; callers time it and count it.

Fail open (DESIGN invariant 2): when mapping, the detector chain, drift or annotation raises, the spans are
annotated with verdict ``error`` and the reason (:func:`failure_reason`, one truncation rule everywhere) and go
out all the same.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from otel_mapper.annotate import annotate, annotate_failure
from otel_mapper.attribution import PriceTable, attribute
from otel_mapper.attribution.summary import TraceUsage, trace_usage
from otel_mapper.diagnosis import Diagnosis, DriftResult
from otel_mapper.mapping.build import MappingOptions, MappingResult, map_trace, trajectory_id_for
from otel_mapper.mapping.log_events import events_in_logs_declaration, mapping_envelopes
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope
from processor.detectors.chain import DetectorChain

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
]

logger = logging.getLogger(__name__)

MAX_REASON_CHARS: Final = 200
"""Characters of an exception's message kept in the ``error`` verdict's reason (span content may be in it)."""

DriftJudge = Callable[[Trajectory, Diagnosis], DriftResult]


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


def failure_reason(cause: BaseException | str) -> str:
    """The reason written on spans whose analysis failed: an exception (its type and the start of its message),
    or a description of what went wrong around it (a worker lost, the stage closed)."""
    if isinstance(cause, BaseException):
        return f"analysis failed: {type(cause).__name__}: {str(cause)[:MAX_REASON_CHARS]}"
    return f"analysis failed: {cause[:MAX_REASON_CHARS]}"


def mapping_options(*, revision: int, early: bool, reason: str, logs_missing: bool) -> MappingOptions:
    """How a released trace is mapped: its revision, why it was released (``reason`` is the
    :class:`~processor.pipeline.assembler.ReleaseReason` value), and what is known lost already (``logs_missing``:
    its service sends trace-correlated log records but none arrived for it)."""
    return MappingOptions(
        revision=revision,
        released_early=early,
        release_reason=f"released by {reason}",
        declarations=(events_in_logs_declaration(),) if logs_missing else (),
    )


def detect_trace(
    envelopes: Sequence[SpanEnvelope],
    options: MappingOptions,
    chain: DetectorChain,
    logs: Mapping[bytes, Sequence[LogRecord]] | None = None,
) -> Detected:
    """Map the spans (with their joined log records folded into copies) and run the detector chain. Raises on
    failure; the caller fails open."""
    mapping = map_trace(mapping_envelopes(envelopes, logs), options)
    return Detected(mapping, chain.run(mapping.trajectory))


def complete_trace(
    envelopes: Sequence[SpanEnvelope], detected: Detected, trace_hex: str, prices: PriceTable | None = None
) -> TraceAnalysis:
    """The second half: attribute usage and cost (``prices``: ``pricing`` of the config) and annotate the spans in
    place with ``detected`` (its diagnosis with drift judged)."""
    trajectory = detected.mapping.trajectory
    try:
        attribution = attribute(trajectory, prices)
        annotate(envelopes, detected.mapping, detected.diagnosis, attribution)
        usage = trace_usage(trajectory, attribution)
    except Exception as exc:  # fail open: never lose spans because analysis broke
        return fail_open(envelopes, trace_hex, trajectory.revision, exc)
    return TraceAnalysis(trajectory, detected.diagnosis, None, usage)


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
) -> TraceAnalysis:
    """Map, detect, judge drift (when ``drift`` is given), attribute cost (``prices``) and annotate ``envelopes``
    in place; fails open."""
    try:
        detected = detect_trace(envelopes, options, chain, logs)
        if drift is not None:
            judged = drift(detected.mapping.trajectory, detected.diagnosis)
            detected = Detected(detected.mapping, replace(detected.diagnosis, drift=judged))
    except Exception as exc:  # fail open: never lose spans because analysis broke
        return fail_open(envelopes, trace_hex, options.revision, exc)
    return complete_trace(envelopes, detected, trace_hex, prices)
