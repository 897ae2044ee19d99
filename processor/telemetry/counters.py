"""Self-telemetry counters with the Collector's vocabulary (receiver accepted/refused spans, exporter
sent/failed/enqueue-failed spans, queue size and capacity, buffer traces and spans held...).

Counters are plain attributes owned by the event loop thread. The self-metrics read them as they are (see
:mod:`processor.telemetry.vocabulary`); ``snapshot()`` is a flat view for the log line written at shutdown.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from otel_mapper.pickling import pickled_by_fields
from processor.telemetry.trajectory_metrics import TrajectoryCounters
from semconv.trajectory import METRIC_PREFIX

__all__ = [
    "DetectorCounters",
    "ExporterCounters",
    "LogCounters",
    "ProcessorCounters",
    "ReceiverCounters",
    "RunStateCounters",
    "SpoolCounters",
    "Telemetry",
]


@dataclass(slots=True)
class ReceiverCounters:
    accepted_spans: int = 0
    refused_spans: int = 0
    """Spans of requests refused with a retryable status because the pipeline had no room: every span of such a
    request, spans with malformed ids included. A request refused before it was decoded has its spans counted on
    the wire (:mod:`otel_mapper.otlp.span_count`)."""
    rejected_spans: int = 0
    """Spans refused through partial success (malformed ids)."""
    invalid_requests: int = 0
    undecodable_spans: int = 0
    """Spans that did not decode on their own (too deep, bad UTF-8): forwarded unchanged, not analysed."""
    accepted_log_records: int = 0
    refused_log_records: int = 0
    rejected_log_records: int = 0
    unauthenticated_requests: int = 0
    empty_requests: int = 0
    """Requests that decoded but carried no span or log record (``{"hello":"world"}`` as OTLP/JSON): answered
    success, as OTLP specifies, and counted here."""


@dataclass(slots=True)
class ProcessorCounters:
    traces_analysed: int = 0
    analysis_errors: int = 0
    traces_released_early: int = 0
    late_spans: int = 0
    analysis_seconds_total: float = 0.0
    buffered_traces: int = 0
    buffered_spans: int = 0
    memory_limit_releases: int = 0
    """Traces released early because buffered spans reached ``processor.memory_limit_mib``."""
    held_bytes: int = 0
    """Span data held, wire size (buffered traces, traces in analysis, queued exports): what the limit bounds."""
    memory_limit_bytes: int = 0
    """``processor.memory_limit_mib`` in bytes, its default resolved."""
    annotation_growth: float = 1.0
    """Annotated output bytes per received byte, observed on recent traces; traces not yet analysed count against
    the memory limit at this multiple of their wire size."""
    analysis_lag_seconds: float = 0.0
    """Time the work in hand of analysis takes to clear at the rate analysis has been clearing it (0 before the
    first estimate); over ``processor.max_analysis_lag``, intake is refused."""
    traces_fast_pathed: int = 0
    """Released traces with no span any convention reader recognises, forwarded as received (not analysed)."""
    spans_fast_pathed: int = 0
    artifacts_written: int = 0
    """Trajectories whose bundle and ledger were written (``output.artifacts``)."""
    artifacts_written_bytes: int = 0
    artifacts_skipped: int = 0
    """Analysed trajectories the artifact policy left out (no finding, not sampled)."""
    artifacts_dropped: int = 0
    """Trajectories not written because the artifact writer was behind (its queue was full)."""
    artifacts_failed: int = 0
    artifacts_retention_deleted_traces: int = 0
    """Traces whose artifacts ``output.retention`` deleted (oldest first)."""
    artifacts_retention_deleted_bytes: int = 0
    run_revisions_merged: int = 0
    """Revisions analysed together with their run's earlier revisions (the run's state was kept)."""
    evaluation_log_records: int = 0
    """Log records made for findings and verdicts that an exported span could not carry."""
    evaluation_log_records_undelivered: int = 0
    """Of those, records with nowhere to go (no ``logs_exporter``)."""


@pickled_by_fields
@dataclass(slots=True)
class RunStateCounters:
    """The run states kept after release (:mod:`processor.pipeline.run_store`), per analysing process or summed
    over them. Plain integers: one owner each."""

    kept: int = 0
    """States held in memory now."""
    kept_bytes: int = 0
    """Their estimated size."""
    spilled_now: int = 0
    """Spilled files on disk now."""
    spilled_bytes: int = 0
    spilled: int = 0
    """States written to disk because memory was full."""
    restored: int = 0
    """Spilled states read back for a revision."""
    expired: int = 0
    """States forgotten because their run idled past ``processor.run_horizon``."""
    evicted: int = 0
    """States of open runs dropped because memory and disk were full (their next revision is analysed alone)."""
    settled_dropped: int = 0
    """States of settled runs forgotten to make room in memory (a late span then starts a revision analysed
    alone); expected under load, unlike ``evicted``."""
    failed: int = 0
    """Spilled files that could not be written or read back (logged)."""

    def copy(self) -> RunStateCounters:
        return RunStateCounters(*(getattr(self, name) for name in self.__slots__))

    def add(self, other: RunStateCounters) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(slots=True)
class ExporterCounters:
    sent_spans: int = 0
    send_failed_spans: int = 0
    enqueue_failed_spans: int = 0
    partial_rejected_spans: int = 0
    retries: int = 0
    queue_size: int = 0
    queue_capacity: int = 0
    failing: int = 0
    """1 while the export target is failing (from its first failed attempt to the next delivery), else 0."""


@dataclass(slots=True)
class SpoolCounters:
    spool_bytes: int = 0
    replayed_requests: int = 0
    """Requests found undelivered in the spool at start-up and fed again (their spans may arrive twice)."""
    replayed_spans: int = 0
    quarantined_segments: int = 0


@dataclass(slots=True)
class LogCounters:
    """The join of log records to their traces (forwarding is counted by the logs exporter)."""

    joined_log_records: int = 0
    late_log_records: int = 0
    unjoined_log_records: int = 0


@dataclass(slots=True)
class DetectorCounters:
    """Time and errors per detector; keys are the loaded detectors' names (bounded)."""

    seconds: dict[str, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Telemetry:
    receiver: ReceiverCounters = field(default_factory=ReceiverCounters)
    processor: ProcessorCounters = field(default_factory=ProcessorCounters)
    exporter: ExporterCounters = field(default_factory=ExporterCounters)
    logs_exporter: ExporterCounters = field(default_factory=ExporterCounters)
    spool: SpoolCounters = field(default_factory=SpoolCounters)
    logs: LogCounters = field(default_factory=LogCounters)
    detectors: DetectorCounters = field(default_factory=DetectorCounters)
    trajectories: TrajectoryCounters = field(default_factory=TrajectoryCounters)
    runs: RunStateCounters = field(default_factory=RunStateCounters)

    def snapshot(self) -> dict[str, float]:
        """Every counter by name (``otel_trajectory_<component>_<noun>``, a detector's name in brackets), for logs."""
        out: dict[str, float] = {}
        for component in ("receiver", "processor", "exporter"):
            for name, value in asdict(getattr(self, component)).items():
                out[f"{METRIC_PREFIX}_{component}_{name}"] = value
        logs = self.logs_exporter  # the same counters, counting log records
        out[f"{METRIC_PREFIX}_exporter_sent_log_records"] = logs.sent_spans
        out[f"{METRIC_PREFIX}_exporter_send_failed_log_records"] = logs.send_failed_spans
        out[f"{METRIC_PREFIX}_exporter_enqueue_failed_log_records"] = logs.enqueue_failed_spans
        spool = self.spool
        out[f"{METRIC_PREFIX}_exporter_spool_bytes"] = spool.spool_bytes
        out[f"{METRIC_PREFIX}_exporter_spool_replayed_requests"] = spool.replayed_requests
        out[f"{METRIC_PREFIX}_exporter_spool_replayed_spans"] = spool.replayed_spans
        out[f"{METRIC_PREFIX}_exporter_spool_quarantined_segments"] = spool.quarantined_segments
        for name, value in asdict(self.logs).items():
            out[f"{METRIC_PREFIX}_processor_{name}"] = value
        for detector, seconds in self.detectors.seconds.items():
            out[f"{METRIC_PREFIX}_detector_seconds_total[{detector}]"] = seconds
        for detector, errors in self.detectors.errors.items():
            out[f"{METRIC_PREFIX}_detector_errors[{detector}]"] = errors
        return out
