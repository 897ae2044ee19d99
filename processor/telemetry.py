"""Self-telemetry counters with the Collector's vocabulary (receiver accepted/refused spans, exporter
sent/failed/enqueue-failed spans, queue size and capacity, buffer traces and spans held...).

Counters are plain attributes owned by the event loop thread; ``snapshot()`` returns them under their metric
names (``otel_trajectory_<component>_<noun>``) for logs, the Prometheus endpoint and tests.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from semconv.trajectory import METRIC_PREFIX

__all__ = ["ExporterCounters", "ProcessorCounters", "ReceiverCounters", "Telemetry"]


@dataclass(slots=True)
class ReceiverCounters:
    accepted_spans: int = 0
    refused_spans: int = 0
    rejected_spans: int = 0
    """Spans refused through partial success (malformed ids)."""
    invalid_requests: int = 0
    undecodable_spans: int = 0
    """Spans that did not decode on their own (too deep, bad UTF-8): forwarded unchanged, not analysed."""
    accepted_log_records: int = 0
    refused_log_records: int = 0
    rejected_log_records: int = 0
    unauthenticated_requests: int = 0


@dataclass(slots=True)
class ProcessorCounters:
    traces_analysed: int = 0
    analysis_errors: int = 0
    traces_released_early: int = 0
    late_spans: int = 0
    analysis_seconds_total: float = 0.0


@dataclass(slots=True)
class ExporterCounters:
    sent_spans: int = 0
    send_failed_spans: int = 0
    enqueue_failed_spans: int = 0
    partial_rejected_spans: int = 0
    retries: int = 0
    queue_size: int = 0
    queue_capacity: int = 0


@dataclass(slots=True)
class Telemetry:
    receiver: ReceiverCounters = field(default_factory=ReceiverCounters)
    processor: ProcessorCounters = field(default_factory=ProcessorCounters)
    exporter: ExporterCounters = field(default_factory=ExporterCounters)

    def snapshot(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for component in ("receiver", "processor", "exporter"):
            for name, value in asdict(getattr(self, component)).items():
                out[f"{METRIC_PREFIX}_{component}_{name}"] = value
        return out
