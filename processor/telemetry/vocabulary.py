"""Every self-metric: its OpenTelemetry instrument and where its value comes from in :class:`Telemetry`.

A :class:`MetricSpec` names one instrument (the Collector's vocabulary under the ``otel_trajectory`` prefix),
its kind, unit and description, and reads its data points straight from the typed counters: a number, or one
data point per detector with the attribute ``detector``. Nothing is encoded into strings and parsed back.

The Prometheus names are what ``opentelemetry-exporter-prometheus`` derives from the instrument: dots become
underscores, the unit is appended (``s`` → ``_seconds``, ``By`` → ``_bytes``; ``{span}``-style units and ``1`` add
nothing) and counters end in ``_total``. :data:`VOCABULARY` is the authoritative list; the README's
self-telemetry section shows every Prometheus name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

from opentelemetry.metrics import Observation

from processor.telemetry.counters import Telemetry
from semconv.trajectory import METRIC_PREFIX

__all__ = ["DETECTOR_ATTRIBUTE", "Kind", "MetricSpec", "SIGNAL_ATTRIBUTE", "VOCABULARY"]

Kind = Literal["counter", "gauge"]
Observe = Callable[[Telemetry], list[Observation]]

DETECTOR_ATTRIBUTE = "detector"
"""The data point attribute of per-detector metrics: the detector's name."""
SIGNAL_ATTRIBUTE = "signal"
"""The data point attribute of ``exporter.failing``: ``traces`` or ``logs``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MetricSpec:
    name: str
    """OpenTelemetry instrument name (``otel_trajectory.<component>.<noun>``)."""
    kind: Kind
    unit: str
    description: str
    observe: Observe
    """The data points now, read from the counters."""


def _value(get: Callable[[Telemetry], float]) -> Observe:
    return lambda telemetry: [Observation(get(telemetry))]


def _per_detector(get: Callable[[Telemetry], Mapping[str, float]]) -> Observe:
    # list() copies the items in one step, so a detector added meanwhile on the loop cannot break the iteration.
    return lambda telemetry: [
        Observation(value, {DETECTOR_ATTRIBUTE: name}) for name, value in list(get(telemetry).items())
    ]


LabelTuple = TypeVar("LabelTuple", bound=tuple[str, ...])


def _labelled(get: Callable[[Telemetry], Mapping[LabelTuple, float]], *names: str) -> Observe:
    """One data point per label tuple of a trajectory-derived counter (``names`` are the attribute names)."""
    return lambda telemetry: [
        Observation(value, dict(zip(names, labels, strict=True))) for labels, value in list(get(telemetry).items())
    ]


def _spec(name: str, kind: Kind, unit: str, description: str, observe: Observe) -> MetricSpec:
    return MetricSpec(name=f"{METRIC_PREFIX}.{name}", kind=kind, unit=unit, description=description, observe=observe)


VOCABULARY: tuple[MetricSpec, ...] = (
    # --- receiver ---
    _spec("receiver.accepted_spans", "counter", "{span}",
          "Spans accepted by the receiver and handed to the pipeline.",
          _value(lambda t: t.receiver.accepted_spans)),
    _spec("receiver.refused_spans", "counter", "{span}",
          "Spans refused with a retryable status because the pipeline was full.",
          _value(lambda t: t.receiver.refused_spans)),
    _spec("receiver.rejected_spans", "counter", "{span}",
          "Spans refused through OTLP partial success (malformed ids).",
          _value(lambda t: t.receiver.rejected_spans)),
    _spec("receiver.undecodable_spans", "counter", "{span}",
          "Spans that did not decode on their own (too deep, bad UTF-8): forwarded unchanged, not analysed.",
          _value(lambda t: t.receiver.undecodable_spans)),
    _spec("receiver.invalid_requests", "counter", "{request}",
          "Requests whose body was not a valid OTLP message.",
          _value(lambda t: t.receiver.invalid_requests)),
    _spec("receiver.unauthenticated_requests", "counter", "{request}",
          "Requests refused for a missing or wrong bearer token (gRPC UNAUTHENTICATED, HTTP 401).",
          _value(lambda t: t.receiver.unauthenticated_requests)),
    _spec("receiver.empty_requests", "counter", "{request}",
          "Requests that decoded but held no span or log record (answered success, as OTLP specifies).",
          _value(lambda t: t.receiver.empty_requests)),
    _spec("receiver.accepted_log_records", "counter", "{record}",
          "Log records accepted by the receiver.",
          _value(lambda t: t.receiver.accepted_log_records)),
    _spec("receiver.refused_log_records", "counter", "{record}",
          "Log records refused with a retryable status because the pipeline was full.",
          _value(lambda t: t.receiver.refused_log_records)),
    _spec("receiver.rejected_log_records", "counter", "{record}",
          "Log records refused through OTLP partial success (malformed ids).",
          _value(lambda t: t.receiver.rejected_log_records)),
    # --- processor ---
    _spec("processor.buffered_traces", "gauge", "{trace}",
          "Traces held in the buffer waiting for completion.",
          _value(lambda t: t.processor.buffered_traces)),
    _spec("processor.buffered_spans", "gauge", "{span}",
          "Spans held in the buffer waiting for their trace to complete.",
          _value(lambda t: t.processor.buffered_spans)),
    _spec("processor.held_size", "gauge", "By",
          "Span data held, wire size: buffered traces, traces in analysis and queued exports (what "
          "processor.memory_limit_mib bounds).",
          _value(lambda t: t.processor.held_bytes)),
    _spec("processor.memory_limit", "gauge", "By",
          "processor.memory_limit_mib in bytes, its default resolved.",
          _value(lambda t: t.processor.memory_limit_bytes)),
    _spec("processor.annotation_growth", "gauge", "1",
          "Annotated output bytes per received byte on recent traces; traces not yet analysed count against "
          "processor.memory_limit_mib at this multiple of their wire size.",
          _value(lambda t: t.processor.annotation_growth)),
    _spec("processor.analysis_lag", "gauge", "s",
          "Time the released spans not yet analysed take to clear at the rate analysis has been clearing them "
          "(0 before the first estimate); over processor.max_analysis_lag, intake is refused.",
          _value(lambda t: t.processor.analysis_lag_seconds)),
    _spec("processor.traces_analysed", "counter", "{trace}",
          "Traces run through the detector chain.",
          _value(lambda t: t.processor.traces_analysed)),
    _spec("processor.analysis_errors", "counter", "{trace}",
          "Traces whose analysis failed; their spans were forwarded unannotated.",
          _value(lambda t: t.processor.analysis_errors)),
    _spec("processor.traces_released_early", "counter", "{trace}",
          "Traces released before completion (buffer limits, memory pressure or shutdown).",
          _value(lambda t: t.processor.traces_released_early)),
    _spec("processor.memory_limit_releases", "counter", "{trace}",
          "Traces released early because buffered span data reached its share of processor.memory_limit_mib.",
          _value(lambda t: t.processor.memory_limit_releases)),
    _spec("processor.late_spans", "counter", "{span}",
          "Spans that arrived after their trace was released.",
          _value(lambda t: t.processor.late_spans)),
    _spec("processor.analysis_time", "counter", "s",
          "Time spent analysing traces.",
          _value(lambda t: t.processor.analysis_seconds_total)),
    _spec("processor.fast_pathed_traces", "counter", "{trace}",
          "Released traces with no span any convention reader recognises, forwarded as received (not analysed).",
          _value(lambda t: t.processor.traces_fast_pathed)),
    _spec("processor.fast_pathed_spans", "counter", "{span}",
          "Spans of the fast-pathed traces.",
          _value(lambda t: t.processor.spans_fast_pathed)),
    _spec("artifacts.written", "counter", "{trajectory}",
          "Trajectories whose bundle and ledger were written (output.artifacts).",
          _value(lambda t: t.processor.artifacts_written)),
    _spec("artifacts.written_size", "counter", "By",
          "Bytes of bundles and ledgers written.",
          _value(lambda t: t.processor.artifacts_written_bytes)),
    _spec("artifacts.skipped", "counter", "{trajectory}",
          "Analysed trajectories output.artifacts left out (no finding, not sampled).",
          _value(lambda t: t.processor.artifacts_skipped)),
    _spec("artifacts.dropped", "counter", "{trajectory}",
          "Trajectories not written because the artifact writer was behind (its queue was full).",
          _value(lambda t: t.processor.artifacts_dropped)),
    _spec("artifacts.failed", "counter", "{trajectory}",
          "Trajectories whose files could not be built or written (logged).",
          _value(lambda t: t.processor.artifacts_failed)),
    _spec("artifacts.retention_deleted_traces", "counter", "{trace}",
          "Traces whose artifact files output.retention deleted (oldest first).",
          _value(lambda t: t.processor.artifacts_retention_deleted_traces)),
    _spec("artifacts.retention_deleted_size", "counter", "By",
          "Bytes of artifact files output.retention deleted.",
          _value(lambda t: t.processor.artifacts_retention_deleted_bytes)),
    _spec("processor.run_revisions_merged", "counter", "{revision}",
          "Revisions analysed together with their run's earlier revisions (the run's state was kept).",
          _value(lambda t: t.processor.run_revisions_merged)),
    _spec("processor.evaluation_log_records", "counter", "{record}",
          "Log records made for findings and verdicts on spans an earlier revision already exported "
          "(output.evaluation_log_records).",
          _value(lambda t: t.processor.evaluation_log_records)),
    _spec("processor.evaluation_log_records_undelivered", "counter", "{record}",
          "Of those, records with nowhere to go: no logs_exporter is configured.",
          _value(lambda t: t.processor.evaluation_log_records_undelivered)),
    _spec("processor.run_states", "gauge", "{run}",
          "Run states of released traces held in memory (processor.run_horizon).",
          _value(lambda t: t.runs.kept)),
    _spec("processor.run_states_size", "gauge", "By",
          "Estimated memory of the run states held (processor.run_state_memory_mib bounds it per process).",
          _value(lambda t: t.runs.kept_bytes)),
    _spec("processor.run_states_on_disk", "gauge", "{run}",
          "Run states spilled to disk now.",
          _value(lambda t: t.runs.spilled_now)),
    _spec("processor.run_states_on_disk_size", "gauge", "By",
          "Bytes of the spilled run states (processor.run_state_storage_mib bounds it).",
          _value(lambda t: t.runs.spilled_bytes)),
    _spec("processor.run_state_spills", "counter", "{run}",
          "Run states written to disk because their memory was full.",
          _value(lambda t: t.runs.spilled)),
    _spec("processor.run_state_restores", "counter", "{run}",
          "Spilled run states read back for a later revision.",
          _value(lambda t: t.runs.restored)),
    _spec("processor.run_states_expired", "counter", "{run}",
          "Run states forgotten because their run idled past processor.run_horizon.",
          _value(lambda t: t.runs.expired)),
    _spec("processor.run_states_evicted", "counter", "{run}",
          "Run states of open runs dropped because memory and disk were full (their next revision is analysed alone).",
          _value(lambda t: t.runs.evicted)),
    _spec("processor.run_states_settled_dropped", "counter", "{run}",
          "Run states of settled runs (top span arrived) forgotten to make room; a late span then starts a revision "
          "analysed alone.",
          _value(lambda t: t.runs.settled_dropped)),
    _spec("processor.run_state_failures", "counter", "{run}",
          "Spilled run states that could not be written or read back (logged).",
          _value(lambda t: t.runs.failed)),
    _spec("processor.joined_log_records", "counter", "{record}",
          "Log records joined to the span they belong to before mapping.",
          _value(lambda t: t.logs.joined_log_records)),
    _spec("processor.late_log_records", "counter", "{record}",
          "Log records that arrived after their trace was released (held for the run's next revision; joined if one "
          "comes, else expired).",
          _value(lambda t: t.logs.late_log_records)),
    _spec("processor.unjoined_log_records", "counter", "{record}",
          "Log records never joined to a span (no span id, expired, dropped from a full join buffer, or "
          "received again in a retried request).",
          _value(lambda t: t.logs.unjoined_log_records)),
    # --- detectors ---
    _spec("detector.time", "counter", "s",
          "Time spent in each detector (attribute detector).",
          _per_detector(lambda t: t.detectors.seconds)),
    _spec("detector.errors", "counter", "{error}",
          "Detector runs that raised (attribute detector).",
          _per_detector(lambda t: t.detectors.errors)),
    # --- exporter ---
    _spec("exporter.sent_spans", "counter", "{span}",
          "Spans delivered downstream.",
          _value(lambda t: t.exporter.sent_spans)),
    _spec("exporter.send_failed_spans", "counter", "{span}",
          "Spans that could not be delivered (permanent error or retries exhausted).",
          _value(lambda t: t.exporter.send_failed_spans)),
    _spec("exporter.enqueue_failed_spans", "counter", "{span}",
          "Spans refused because the sending queue was full.",
          _value(lambda t: t.exporter.enqueue_failed_spans)),
    _spec("exporter.partial_rejected_spans", "counter", "{span}",
          "Spans the downstream refused through partial success.",
          _value(lambda t: t.exporter.partial_rejected_spans)),
    _spec("exporter.sent_log_records", "counter", "{record}",
          "Log records delivered downstream.",
          _value(lambda t: t.logs_exporter.sent_spans)),
    _spec("exporter.send_failed_log_records", "counter", "{record}",
          "Log records that could not be delivered.",
          _value(lambda t: t.logs_exporter.send_failed_spans)),
    _spec("exporter.enqueue_failed_log_records", "counter", "{record}",
          "Log records refused because the sending queue was full.",
          _value(lambda t: t.logs_exporter.enqueue_failed_spans)),
    _spec("exporter.partial_rejected_log_records", "counter", "{record}",
          "Log records the downstream refused through partial success.",
          _value(lambda t: t.logs_exporter.partial_rejected_spans)),
    _spec("exporter.retries", "counter", "{retry}",
          "Export attempts retried after a retryable error.",
          _value(lambda t: t.exporter.retries)),
    _spec("exporter.failing", "gauge", "1",
          "1 while the export target of a signal (attribute signal: traces, logs) is failing, from its first failed "
          "attempt until it delivers again; 0 otherwise.",
          lambda t: [Observation(t.exporter.failing, {SIGNAL_ATTRIBUTE: "traces"}),
                     Observation(t.logs_exporter.failing, {SIGNAL_ATTRIBUTE: "logs"})]),
    _spec("exporter.queue_size", "gauge", "{request}",
          "Requests in the sending queue.",
          _value(lambda t: t.exporter.queue_size)),
    _spec("exporter.queue_capacity", "gauge", "{request}",
          "Capacity of the sending queue.",
          _value(lambda t: t.exporter.queue_capacity)),
    _spec("exporter.spool_size", "gauge", "By",
          "Bytes held in the on-disk spool.",
          _value(lambda t: t.spool.spool_bytes)),
    _spec("exporter.spool_replayed_requests", "counter", "{request}",
          "Requests found undelivered in the spool at start-up and sent again (their data may arrive twice).",
          _value(lambda t: t.spool.replayed_requests)),
    _spec("exporter.spool_replayed_spans", "counter", "{span}",
          "Spans in the trace requests replayed from the spool.",
          _value(lambda t: t.spool.replayed_spans)),
    _spec("exporter.spool_quarantined_segments", "counter", "{file}",
          "Damaged spool files moved to the quarantine directory at start-up.",
          _value(lambda t: t.spool.quarantined_segments)),
    # --- derived from trajectories (trajectory_metrics.py; bounded labels) ---
    _spec("trajectory.verdicts", "counter", "{trajectory}",
          "Trajectories analysed, by verdict and root cause.",
          _labelled(lambda t: t.trajectories.verdicts, "verdict", "root_cause")),
    _spec("trajectory.tokens", "counter", "{token}",
          "Tokens of the counted model calls, by service, model and direction (input or output).",
          _labelled(lambda t: t.trajectories.tokens, "service", "model", "direction")),
    _spec("trajectory.cost_usd", "counter", "{USD}",
          "Cost of the counted model calls in US dollars when the price table prices them, by service and model.",
          _labelled(lambda t: t.trajectories.cost_usd, "service", "model")),
)
