"""The typed configuration the processor runs with; every default comes from :mod:`processor.config.definition`.

Durations are float seconds, sizes bytes unless the name says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from otel_mapper.attribution import PriceTable
from otel_mapper.bundle.writer import RightsConfig
from processor.config.definition import MiB, default
from processor.detectors.config import DetectorsConfig

__all__ = [
    "AuthConfig",
    "Config",
    "ExportConfig",
    "MetricsConfig",
    "QueueConfig",
    "RetryConfig",
    "RunsConfig",
    "TlsServerConfig",
]


def _seconds_or_none(dotted: str) -> float | None:
    """A duration whose ``0`` in the file means "no limit" (``None`` in code)."""
    return default(dotted) or None


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryConfig:
    """``retry_on_failure``: the Collector exporterhelper's names and defaults."""

    enabled: bool = default("exporter.retry_on_failure.enabled")
    initial_interval: float = default("exporter.retry_on_failure.initial_interval")
    max_interval: float = default("exporter.retry_on_failure.max_interval")
    max_elapsed_time: float = default("exporter.retry_on_failure.max_elapsed_time")
    multiplier: float = default("exporter.retry_on_failure.multiplier")
    randomization_factor: float = default("exporter.retry_on_failure.randomization_factor")


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueConfig:
    """``sending_queue``: bounded in requests, drained by ``num_consumers`` workers."""

    enabled: bool = default("exporter.sending_queue.enabled")
    queue_size: int = default("exporter.sending_queue.queue_size")
    num_consumers: int = default("exporter.sending_queue.num_consumers")
    storage: str | None = None
    """Directory of the persistent spool; ``None``: ``<output.directory>/spool``."""
    storage_enabled: bool = True
    """``storage: false`` turns the spool off (accepted data then lives in memory only until delivered)."""
    storage_max_mib: int = default("exporter.sending_queue.storage_max_mib")
    """Disk bound of the spool; when full, the receivers push back."""
    fsync: bool = default("exporter.sending_queue.fsync")
    """Flush each spooled request to disk before it is acknowledged (else written to the OS only)."""
    batch_flush_timeout: float = default("exporter.sending_queue.batch.flush_timeout")
    """``batch.flush_timeout``: how long an export call waits for more queued data before it goes with less than
    ``batch.min_size`` items (``0``: send what is queued at once)."""
    batch_min_size: int = default("exporter.sending_queue.batch.min_size")
    """``batch.min_size``: items (spans, log records) that make an export call go without waiting; a call never
    exceeds ``max_message_bytes``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportConfig:
    endpoint: str
    insecure: bool = True
    """``tls.insecure``; its default follows the files (false when ``ca_file`` or ``cert_file`` is set)."""
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    compression: Literal["none", "gzip"] = default("exporter.compression")
    timeout: float = default("exporter.timeout")
    max_message_bytes: int = default("exporter.max_message_bytes")
    """Requests are split to stay under this size (gRPC's default receive limit is 4 MiB)."""
    retry_on_failure: RetryConfig = field(default_factory=RetryConfig)
    sending_queue: QueueConfig = field(default_factory=QueueConfig)


@dataclass(frozen=True, slots=True, kw_only=True)
class TlsServerConfig:
    """``receiver.tls``: server certificate; ``client_ca_file`` makes it mutual TLS (client certificates required)."""

    cert_file: str
    key_file: str
    client_ca_file: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthConfig:
    """``receiver.auth``: a bearer token, given inline (use ``${env:VAR}``) or in a file. Never printed."""

    bearer_token: str | None = field(default=None, repr=False)
    bearer_token_file: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MetricsConfig:
    """``telemetry.metrics``: self-metrics as a Prometheus text endpoint and/or OTLP metrics (OpenTelemetry SDK)."""

    prometheus_endpoint: str | None = None
    otlp_endpoint: str | None = None
    otlp_interval: float = default("telemetry.metrics.otlp.interval")
    otlp_insecure: bool = True
    otlp_headers: Mapping[str, str] = field(default_factory=dict)
    otlp_ca_file: str | None = None
    """``otlp.tls.ca_file``: trust this CA for the metrics endpoint (else the system roots, when not insecure)."""
    otlp_cert_file: str | None = None
    otlp_key_file: str | None = None
    """``otlp.tls.cert_file``/``key_file``: a client certificate for a metrics endpoint that requires one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArtifactsConfig:
    """Which analysed traces get a bundle and a ledger, and how long the files are kept."""

    mode: Literal["all", "findings", "none"] = default("output.artifacts")
    """``output.artifacts``: ``findings`` (a finding, a failing verdict or a detector error), ``all``, ``none``."""
    sampling_percentage: float = default("output.artifacts_sampling_percentage")
    """``output.artifacts_sampling_percentage``: share (0-100) of the traces ``mode`` leaves out that get files
    all the same, chosen by trace id (the same traces on every replica)."""
    max_megabytes: int = default("output.retention.max_megabytes")
    """``output.retention.max_megabytes``: artifact files kept in all, oldest traces deleted first; 0: no bound."""
    max_days: float = default("output.retention.max_days")
    """``output.retention.max_days``: artifact files older than this are deleted; 0: kept whatever their age."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunsConfig:
    """Run states kept after release (``processor.run_*``), per analysing process."""

    horizon: float = default("processor.run_horizon")
    memory_bytes: int = default("processor.run_state_memory_mib") * MiB
    storage_bytes: int = default("processor.run_state_storage_mib") * MiB


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    listen: str = default("receiver.endpoint")
    http_listen: str | None = default("receiver.http.endpoint")
    """OTLP/HTTP receiver endpoint; ``None``: off."""
    max_recv_msg_size: int = default("receiver.max_recv_msg_size_mib") * MiB
    max_concurrent_streams: int = default("receiver.max_concurrent_streams")
    max_concurrent_rpcs: int = default("receiver.max_concurrent_rpcs")
    max_connection_idle: float | None = _seconds_or_none("receiver.keepalive.server_parameters.max_connection_idle")
    max_connection_age: float | None = _seconds_or_none("receiver.keepalive.server_parameters.max_connection_age")
    """Connections are asked to reconnect after this long (GOAWAY); SDKs and Collectors reconnect transparently."""
    max_connection_age_grace: float | None = _seconds_or_none(
        "receiver.keepalive.server_parameters.max_connection_age_grace"
    )
    """After ``max_connection_age``, calls still open are cut: a client that never finishes its request goes."""
    tls: TlsServerConfig | None = None
    auth: AuthConfig | None = None
    output_dir: str = default("output.directory")
    write_artifacts: bool = default("output.write_artifacts")
    """``false``: no artifact files (the same as ``artifacts: none``)."""
    artifacts: ArtifactsConfig = field(default_factory=ArtifactsConfig)
    export: ExportConfig | None = None
    logs_export: ExportConfig | None = None
    """Where received OTLP logs are forwarded unchanged; ``None``: logs are only joined to their spans."""
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    decision_wait: float = default("processor.decision_wait")
    idle_timeout: float = default("processor.idle_timeout")
    max_trace_wait: float = default("processor.max_trace_wait")
    max_run_wait: float = default("processor.max_run_wait")
    """An agent trace without its root span is held past ``max_trace_wait`` up to this while spans keep coming."""
    runs: RunsConfig = field(default_factory=RunsConfig)
    num_traces: int = default("processor.num_traces")
    max_buffered_spans: int = default("processor.max_buffered_spans")
    max_analysis_lag: float = default("processor.max_analysis_lag")
    """Intake is refused while the work in hand of analysis would take longer than this to clear at the rate
    analysis has been clearing it (:class:`~processor.pipeline.backlog.Backlog`); 0: no such bound."""
    released_cache_size: int = default("processor.released_cache_size")
    content_mode: Literal["keep", "digest", "drop"] = default("output.content_mode")
    evaluation_log_records: Literal["late", "all", "none"] = default("output.evaluation_log_records")
    """Which findings also go out as OTLP log records through ``logs_exporter``."""
    passthrough: bool = default("processor.passthrough")
    """Receiver -> exporter only, no grouping, mapping or detection (a baseline for benchmarks)."""
    memory_limit_mib: int = default("processor.memory_limit_mib")
    """Bound on span data held (wire size); the buffer gets half (then oldest traces go early), over the whole
    intake is refused with a retry delay. 0: a quarter of the RAM, or of the container's memory limit when
    smaller."""
    analysis_workers: int | Literal["auto"] = default("processor.analysis_workers")
    """Worker processes for map + detect + annotate; 0: a thread of the main process; ``auto``: one per usable CPU,
    resolved where the workers start (:func:`processor.resources.analysis_worker_count`)."""
    detectors: DetectorsConfig = field(default_factory=DetectorsConfig)
    pricing: PriceTable = field(default_factory=PriceTable)
    """``pricing.models`` / ``pricing.tools`` in US dollars; empty: costs are not computed."""
    rights: RightsConfig = field(default_factory=RightsConfig)
    """``output.rights``: the rights statements written into every bundle (AT-13.3a); unknown by default."""

    def with_overrides(self, **changes: Any) -> Config:
        return replace(self, **{key: value for key, value in changes.items() if value is not None})
