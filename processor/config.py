"""The processor's configuration: one YAML file with the Collector's key names where meanings match.

``load_config`` expands ``${env:VAR}`` (and ``${env:VAR:-default}``), parses, and validates, reporting every
problem at once in a :class:`ConfigError`. Durations are strings like ``"2s"``/``"500ms"`` in YAML (numbers are
seconds) and float seconds in code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from processor.detectors.config import DetectorsConfig, parse_detectors
from processor.resources import cgroup_limits, usable_cpus

__all__ = [
    "ArtifactsConfig",
    "AuthConfig",
    "Config",
    "ConfigError",
    "ExportConfig",
    "MetricsConfig",
    "RetryConfig",
    "QueueConfig",
    "TlsServerConfig",
    "load_config",
    "parse_config",
    "parse_duration",
    "parse_endpoint",
]

DEFAULT_LISTEN = "127.0.0.1:4317"
DEFAULT_HTTP_LISTEN = "127.0.0.1:4318"
DEFAULT_OUTPUT_DIR = "./otel-trajectory-data"
MiB = 1024 * 1024


class ConfigError(ValueError):
    """The configuration has problems; ``problems`` lists every one, each with its path and a fix."""

    def __init__(self, problems: list[str], source: str = "config") -> None:
        self.problems = problems
        super().__init__(f"{source}: {len(problems)} problem(s):\n" + "\n".join(f"  - {p}" for p in problems))


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryConfig:
    """``retry_on_failure``: the Collector exporterhelper's names and defaults."""

    enabled: bool = True
    initial_interval: float = 5.0
    max_interval: float = 30.0
    max_elapsed_time: float = 300.0
    multiplier: float = 1.5
    randomization_factor: float = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueConfig:
    """``sending_queue``: bounded in requests, drained by ``num_consumers`` workers."""

    enabled: bool = True
    queue_size: int = 1000
    num_consumers: int = 4
    storage: str | None = None
    """Directory of the persistent spool; ``None``: ``<output.directory>/spool``."""
    storage_enabled: bool = True
    """``storage: false`` turns the spool off (accepted data then lives in memory only until delivered)."""
    storage_max_mib: int = 1024
    """Disk bound of the spool; when full, the receivers push back."""
    batch_flush_timeout: float = 0.2
    """``batch.flush_timeout``: how long an export call waits for more queued data before it goes with less than
    ``batch.min_size`` items (``0``: send what is queued at once)."""
    batch_min_size: int = 8192
    """``batch.min_size``: items (spans, log records) that make an export call go without waiting; a call never
    exceeds ``max_message_bytes``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportConfig:
    endpoint: str
    insecure: bool = True
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    compression: Literal["none", "gzip"] = "gzip"
    timeout: float = 10.0
    max_message_bytes: int = 4 * MiB
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
    otlp_interval: float = 60.0
    otlp_insecure: bool = True
    otlp_headers: Mapping[str, str] = field(default_factory=dict)
    otlp_ca_file: str | None = None
    """``otlp.tls.ca_file``: trust this CA for the metrics endpoint (else the system roots, when not insecure)."""
    otlp_cert_file: str | None = None
    otlp_key_file: str | None = None
    """``otlp.tls.cert_file``/``key_file``: a client certificate for a metrics endpoint that requires one."""


# --- artifacts: which traces get files, and for how long ------------------------------------------------------
# ``output.artifacts``, ``output.artifacts_sampling_percentage``, ``output.retention.{max_megabytes,max_days}``.
# Kept together here (dataclass, defaults, parser) so the block can move as one.

ARTIFACT_MODES: tuple[str, ...] = ("all", "findings", "none")
DEFAULT_ARTIFACT_MODE = "findings"
DEFAULT_RETENTION_MAX_MEGABYTES = 1024
DEFAULT_RETENTION_MAX_DAYS = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ArtifactsConfig:
    """Which analysed traces get a bundle and a ledger, and how long the files are kept."""

    mode: Literal["all", "findings", "none"] = "findings"
    """``output.artifacts``: ``findings`` (a finding, a failing verdict or a detector error), ``all``, ``none``."""
    sampling_percentage: float = 0.0
    """``output.artifacts_sampling_percentage``: share (0-100) of the traces ``mode`` leaves out that get files
    all the same, chosen by trace id (the same traces on every replica)."""
    max_megabytes: int = DEFAULT_RETENTION_MAX_MEGABYTES
    """``output.retention.max_megabytes``: artifact files kept in all, oldest traces deleted first; 0: no bound."""
    max_days: float = DEFAULT_RETENTION_MAX_DAYS
    """``output.retention.max_days``: artifact files older than this are deleted; 0: kept whatever their age."""


def _parse_artifacts(output: _Reader) -> ArtifactsConfig:
    mode = output.choice("artifacts", DEFAULT_ARTIFACT_MODE, ARTIFACT_MODES)
    if output.raw.get("write_artifacts") is False and output.raw.get("artifacts", "none") != "none":
        output.problems.append(
            "output.artifacts: contradicts output.write_artifacts: false (remove write_artifacts, or set artifacts: none)"
        )
    percentage = output.float("artifacts_sampling_percentage", 0.0)
    if percentage > 100:
        output.problems.append(f"output.artifacts_sampling_percentage: expected 0 to 100, got {percentage!r}")
        percentage = 100.0
    retention = output.section("retention", {"max_megabytes", "max_days"})
    return ArtifactsConfig(
        mode=mode,  # type: ignore[arg-type]
        sampling_percentage=percentage,
        max_megabytes=retention.int("max_megabytes", DEFAULT_RETENTION_MAX_MEGABYTES, minimum=0),
        max_days=retention.float("max_days", DEFAULT_RETENTION_MAX_DAYS),
    )


# --- end of the artifacts block -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    listen: str = DEFAULT_LISTEN
    http_listen: str | None = DEFAULT_HTTP_LISTEN
    """OTLP/HTTP receiver endpoint; ``None``: off."""
    max_recv_msg_size: int = 16 * MiB
    max_concurrent_streams: int = 64
    max_concurrent_rpcs: int = 256
    max_connection_idle: float | None = None
    max_connection_age: float | None = 600.0
    """Connections are asked to reconnect after this long (GOAWAY); SDKs and Collectors reconnect transparently."""
    max_connection_age_grace: float | None = 60.0
    """After ``max_connection_age``, calls still open are cut: a client that never finishes its request goes."""
    tls: TlsServerConfig | None = None
    auth: AuthConfig | None = None
    output_dir: str = DEFAULT_OUTPUT_DIR
    write_artifacts: bool = True
    """``false``: no artifact files (the same as ``artifacts: none``)."""
    artifacts: ArtifactsConfig = field(default_factory=ArtifactsConfig)
    export: ExportConfig | None = None
    logs_export: ExportConfig | None = None
    """Where received OTLP logs are forwarded unchanged; ``None``: logs are only joined to their spans."""
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    decision_wait: float = 2.0
    idle_timeout: float = 30.0
    max_trace_wait: float = 300.0
    num_traces: int = 50_000
    max_buffered_spans: int = 1_000_000
    released_cache_size: int = 100_000
    content_mode: Literal["keep", "digest", "drop"] = "digest"
    passthrough: bool = False
    """Receiver -> exporter only, no grouping, mapping or detection (a baseline for benchmarks)."""
    memory_limit_mib: int = 0
    """Bound on span data held (wire size); the buffer gets half (then oldest traces go early), over the whole
    intake is refused with a retry delay. 0: a quarter of the RAM, or of the container's memory limit when
    smaller."""
    analysis_workers: int = 1
    """Worker processes for map + detect + annotate; 0: a thread of the main process. The config file's ``auto``
    is resolved on loading (usable CPUs minus one, at least 1)."""
    detectors: DetectorsConfig = field(default_factory=DetectorsConfig)

    def with_overrides(self, **changes: Any) -> Config:
        return replace(self, **{key: value for key, value in changes.items() if value is not None})


_ENV = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ns|us|µs|ms|s|m|h)?\s*$")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def expand_env(text: str, environ: Mapping[str, str], problems: list[str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        problems.append(f"${{env:{name}}} is used but {name} is not set (set it, or write ${{env:{name}:-default}})")
        return ""

    return _ENV.sub(substitute, text)


def parse_duration(value: Any, path: str, problems: list[str], default: float) -> float:
    if isinstance(value, bool):
        problems.append(f"{path}: expected a duration like '2s' or '500ms', got {value!r}")
        return default
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.match(value)):
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    else:
        problems.append(f"{path}: expected a duration like '2s' or '500ms', got {value!r}")
        return default
    if seconds < 0:
        problems.append(f"{path}: must not be negative")
        return default
    return seconds


def parse_endpoint(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (IPv6 as ``[::1]:4317``) -> (host, port). Raises ValueError with the expected form."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"{value!r} is not HOST:PORT (e.g. 127.0.0.1:4317)")
    return host.strip("[]"), int(port_text)


class _Reader:
    """Reads typed values from one mapping, recording problems with their dotted path."""

    def __init__(self, raw: Any, path: str, problems: list[str], known: set[str]) -> None:
        self.path = path
        self.problems = problems
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            problems.append(f"{path or 'config'}: expected a mapping, got {type(raw).__name__}")
            raw = {}
        self.raw: dict[str, Any] = raw
        for key in sorted(set(raw) - known):
            problems.append(f"{self._at(key)}: unknown key (known keys: {', '.join(sorted(known))})")

    def _at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def int(self, key: str, default: int, minimum: int = 0) -> int:
        value = self.raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.problems.append(f"{self._at(key)}: expected an integer >= {minimum}, got {value!r}")
            return default
        return value

    def int_or_word(self, key: str, default: int, minimum: int, word: str) -> int | str:
        """An integer >= ``minimum``, or exactly ``word`` (returned as is)."""
        value = self.raw.get(key, default)
        if value == word:
            return word
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.problems.append(f"{self._at(key)}: expected an integer >= {minimum} or {word}, got {value!r}")
            return default
        return value

    def float(self, key: str, default: float, minimum: float = 0.0) -> float:
        value = self.raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
            self.problems.append(f"{self._at(key)}: expected a number >= {minimum}, got {value!r}")
            return default
        return float(value)

    def bool(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if not isinstance(value, bool):
            self.problems.append(f"{self._at(key)}: expected true or false, got {value!r}")
            return default
        return value

    def str(self, key: str, default: str | None) -> str | None:
        value = self.raw.get(key, default)
        if value is not None and not isinstance(value, str):
            self.problems.append(f"{self._at(key)}: expected a string, got {value!r}")
            return default
        return value

    def duration(self, key: str, default: float) -> float:
        if key not in self.raw:
            return default
        return parse_duration(self.raw[key], self._at(key), self.problems, default)

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.raw.get(key, default)
        if value not in choices:
            self.problems.append(f"{self._at(key)}: expected one of {', '.join(choices)}, got {value!r}")
            return default
        return str(value)

    def section(self, key: str, known: set[str]) -> _Reader:
        return _Reader(self.raw.get(key), self._at(key), self.problems, known)


def _analysis_workers(processor: _Reader) -> int:
    """``processor.analysis_workers``: a count, or ``auto``: one per usable CPU but one, which the event loop keeps
    (so 1 on one or two CPUs); usable CPUs follow the affinity mask and the container's CPU quota."""
    value = processor.int_or_word("analysis_workers", 1, minimum=0, word="auto")
    if isinstance(value, str):  # auto
        return max(1, usable_cpus(cgroup_limits()) - 1)
    return value


def _endpoint(value: str | None, path: str, problems: list[str]) -> None:
    if value is None:
        return
    try:
        parse_endpoint(value)
    except ValueError as exc:
        problems.append(f"{path}: {exc}")


def _headers(reader: _Reader) -> dict[str, str]:
    """``headers``: names lowercased (gRPC metadata keys must be lowercase)."""
    raw = reader.raw.get("headers") or {}
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        reader.problems.append(f"{reader._at('headers')}: expected a mapping of header name to string value")
        return {}
    return {str(k).lower(): v for k, v in raw.items()}


def _client_tls(reader: _Reader) -> tuple[bool, str | None, str | None, str | None]:
    """``tls`` of a client section (an exporter, the OTLP metrics endpoint): (insecure, ca_file, cert_file,
    key_file). Without ``insecure``, a CA or client certificate means TLS; with neither, plaintext."""
    tls = reader.section("tls", {"insecure", "ca_file", "cert_file", "key_file"})
    ca_file = tls.str("ca_file", None)
    cert_file = tls.str("cert_file", None)
    key_file = tls.str("key_file", None)
    if (cert_file is None) != (key_file is None):
        reader.problems.append(f"{reader._at('tls')}: cert_file and key_file go together (client certificate)")
    insecure = tls.bool("insecure", not (ca_file or cert_file))
    if insecure and (ca_file or cert_file):
        reader.problems.append(f"{reader._at('tls')}: insecure: true contradicts ca_file/cert_file (remove one)")
    return insecure, ca_file, cert_file, key_file


def _parse_export(reader: _Reader) -> ExportConfig | None:
    endpoint = reader.str("endpoint", None)
    _endpoint(endpoint, reader._at("endpoint"), reader.problems)
    headers = _headers(reader)
    retry = reader.section(
        "retry_on_failure",
        {"enabled", "initial_interval", "max_interval", "max_elapsed_time", "multiplier", "randomization_factor"},
    )
    queue = reader.section(
        "sending_queue", {"enabled", "queue_size", "num_consumers", "storage", "storage_max_mib", "batch"}
    )
    batch = queue.section("batch", {"flush_timeout", "min_size"})
    retry_config = RetryConfig(
        enabled=retry.bool("enabled", True),
        initial_interval=retry.duration("initial_interval", 5.0),
        max_interval=retry.duration("max_interval", 30.0),
        max_elapsed_time=retry.duration("max_elapsed_time", 300.0),
        multiplier=retry.float("multiplier", 1.5, minimum=1.0),
        randomization_factor=retry.float("randomization_factor", 0.5),
    )
    storage_raw = queue.raw.get("storage")
    storage_enabled = storage_raw is not False
    queue_config = QueueConfig(
        enabled=queue.bool("enabled", True),
        queue_size=queue.int("queue_size", 1000, minimum=1),
        num_consumers=queue.int("num_consumers", 4, minimum=1),
        storage=queue.str("storage", None) if storage_enabled else None,
        storage_enabled=storage_enabled,
        storage_max_mib=queue.int("storage_max_mib", 1024, minimum=1),
        batch_flush_timeout=batch.duration("flush_timeout", 0.2),
        batch_min_size=batch.int("min_size", 8192, minimum=1),
    )
    insecure, ca_file, cert_file, key_file = _client_tls(reader)
    compression = reader.choice("compression", "gzip", ("none", "gzip"))
    timeout = reader.duration("timeout", 10.0)
    max_message_bytes = reader.int("max_message_bytes", 4 * MiB, minimum=1024)
    if not endpoint:
        if reader.raw:
            reader.problems.append(f"{reader._at('endpoint')}: required when the exporter section is present")
        return None
    return ExportConfig(
        endpoint=endpoint,
        insecure=insecure,
        ca_file=ca_file,
        cert_file=cert_file,
        key_file=key_file,
        headers=headers,
        compression=compression,  # type: ignore[arg-type]
        timeout=timeout,
        max_message_bytes=max_message_bytes,
        retry_on_failure=retry_config,
        sending_queue=queue_config,
    )


def _parse_receiver_tls(reader: _Reader) -> TlsServerConfig | None:
    if not reader.raw:
        return None
    cert_file = reader.str("cert_file", None)
    key_file = reader.str("key_file", None)
    client_ca_file = reader.str("client_ca_file", None)
    if not cert_file or not key_file:
        reader.problems.append(f"{reader.path}: cert_file and key_file are both required to serve TLS")
        return None
    return TlsServerConfig(cert_file=cert_file, key_file=key_file, client_ca_file=client_ca_file)


def _parse_auth(reader: _Reader) -> AuthConfig | None:
    if not reader.raw:
        return None
    token = reader.str("bearer_token", None)
    token_file = reader.str("bearer_token_file", None)
    if bool(token) == bool(token_file):
        reader.problems.append(f"{reader.path}: set exactly one of bearer_token (e.g. ${{env:VAR}}) or bearer_token_file")
        return None
    return AuthConfig(bearer_token=token or None, bearer_token_file=token_file)


def _parse_metrics(reader: _Reader) -> MetricsConfig:
    prometheus = reader.section("prometheus", {"endpoint"})
    otlp = reader.section("otlp", {"endpoint", "interval", "tls", "headers"})
    prometheus_endpoint = prometheus.str("endpoint", None)
    _endpoint(prometheus_endpoint, prometheus._at("endpoint"), reader.problems)
    otlp_endpoint = otlp.str("endpoint", None)
    _endpoint(otlp_endpoint, otlp._at("endpoint"), reader.problems)
    headers = _headers(otlp)
    insecure, ca_file, cert_file, key_file = _client_tls(otlp)
    return MetricsConfig(
        prometheus_endpoint=prometheus_endpoint,
        otlp_endpoint=otlp_endpoint,
        otlp_interval=otlp.duration("interval", 60.0),
        otlp_insecure=insecure,
        otlp_headers=headers,
        otlp_ca_file=ca_file,
        otlp_cert_file=cert_file,
        otlp_key_file=key_file,
    )


_EXPORT_KEYS = {"endpoint", "tls", "headers", "compression", "timeout", "max_message_bytes", "retry_on_failure", "sending_queue"}


def parse_config(raw: Any, source: str = "config", base_dir: Path | None = None) -> Config:
    """Validate a parsed YAML document; raises :class:`ConfigError` listing every problem."""
    problems: list[str] = []
    top = _Reader(
        raw, "", problems, {"receiver", "processor", "exporter", "logs_exporter", "output", "telemetry", "detectors"}
    )
    receiver = top.section(
        "receiver",
        {"endpoint", "http", "max_recv_msg_size_mib", "max_concurrent_streams", "max_concurrent_rpcs", "tls", "auth",
         "keepalive"},
    )
    server_parameters = receiver.section("keepalive", {"server_parameters"}).section(
        "server_parameters", {"max_connection_idle", "max_connection_age", "max_connection_age_grace"}
    )
    http = receiver.section("http", {"endpoint", "enabled"})
    processor = top.section(
        "processor",
        {"decision_wait", "idle_timeout", "max_trace_wait", "num_traces", "max_buffered_spans", "released_cache_size",
         "passthrough", "memory_limit_mib", "analysis_workers"},
    )
    output = top.section(
        "output",
        {"directory", "write_artifacts", "content_mode", "artifacts", "artifacts_sampling_percentage", "retention"},
    )
    telemetry = top.section("telemetry", {"metrics"})
    listen = receiver.str("endpoint", DEFAULT_LISTEN) or DEFAULT_LISTEN
    _endpoint(listen, "receiver.endpoint", problems)
    http_listen = http.str("endpoint", DEFAULT_HTTP_LISTEN) or DEFAULT_HTTP_LISTEN
    _endpoint(http_listen, "receiver.http.endpoint", problems)
    http_enabled = http.bool("enabled", True)
    export = _parse_export(top.section("exporter", _EXPORT_KEYS))
    logs_export = _parse_export(top.section("logs_exporter", _EXPORT_KEYS))
    config = Config(
        listen=listen,
        http_listen=http_listen if http_enabled else None,
        max_recv_msg_size=receiver.int("max_recv_msg_size_mib", 16, minimum=1) * MiB,
        max_concurrent_streams=receiver.int("max_concurrent_streams", 64, minimum=1),
        max_concurrent_rpcs=receiver.int("max_concurrent_rpcs", 256, minimum=1),
        max_connection_idle=server_parameters.duration("max_connection_idle", 0.0) or None,
        max_connection_age=server_parameters.duration("max_connection_age", 600.0) or None,
        max_connection_age_grace=server_parameters.duration("max_connection_age_grace", 60.0) or None,
        tls=_parse_receiver_tls(receiver.section("tls", {"cert_file", "key_file", "client_ca_file"})),
        auth=_parse_auth(receiver.section("auth", {"bearer_token", "bearer_token_file"})),
        output_dir=output.str("directory", DEFAULT_OUTPUT_DIR) or DEFAULT_OUTPUT_DIR,
        write_artifacts=output.bool("write_artifacts", True),
        artifacts=_parse_artifacts(output),
        content_mode=output.choice("content_mode", "digest", ("keep", "digest", "drop")),  # type: ignore[arg-type]
        export=export,
        logs_export=logs_export,
        metrics=_parse_metrics(telemetry.section("metrics", {"prometheus", "otlp"})),
        decision_wait=processor.duration("decision_wait", 2.0),
        idle_timeout=processor.duration("idle_timeout", 30.0),
        max_trace_wait=processor.duration("max_trace_wait", 300.0),
        num_traces=processor.int("num_traces", 50_000, minimum=1),
        max_buffered_spans=processor.int("max_buffered_spans", 1_000_000, minimum=1),
        released_cache_size=processor.int("released_cache_size", 100_000, minimum=0),
        passthrough=processor.bool("passthrough", False),
        memory_limit_mib=processor.int("memory_limit_mib", 0, minimum=0),
        analysis_workers=_analysis_workers(processor),
        detectors=parse_detectors(top.raw.get("detectors"), problems, base_dir=base_dir),
    )
    from processor.detectors.registry import check_enabled

    problems.extend(check_enabled(config.detectors))
    if config.decision_wait > config.idle_timeout:
        problems.append("processor.decision_wait: must not exceed processor.idle_timeout")
    if config.idle_timeout > config.max_trace_wait:
        problems.append("processor.idle_timeout: must not exceed processor.max_trace_wait")
    own = {config.listen, config.http_listen}
    if config.metrics.otlp_endpoint is not None and config.metrics.otlp_endpoint in own:
        problems.append(
            "telemetry.metrics.otlp.endpoint: points at this processor's own receiver; send self-metrics elsewhere"
        )
    if config.http_listen is not None and config.http_listen == config.listen and not config.listen.endswith(":0"):
        problems.append("receiver.http.endpoint: must differ from receiver.endpoint (gRPC)")
    if problems:
        raise ConfigError(problems, source)
    return config


def load_config(path: str | Path | None, environ: Mapping[str, str] | None = None) -> Config:
    """Read, expand and validate a config file (``None``: defaults)."""
    if path is None:
        return Config()
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([f"cannot read the file: {exc.strerror or exc}"], source) from exc
    problems: list[str] = []
    text = expand_env(text, os.environ if environ is None else environ, problems)
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError([f"not valid YAML: {exc}"], source) from exc
    try:
        config = parse_config(raw, source, base_dir=Path(path).parent)
    except ConfigError as exc:
        raise ConfigError(problems + exc.problems, source) from None
    if problems:
        raise ConfigError(problems, source)
    return config
