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

__all__ = [
    "Config",
    "ConfigError",
    "ExportConfig",
    "RetryConfig",
    "QueueConfig",
    "load_config",
    "parse_config",
    "parse_duration",
    "parse_endpoint",
]

DEFAULT_LISTEN = "127.0.0.1:4317"
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
    """Directory of the persistent spool (not used by the in-memory queue)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportConfig:
    endpoint: str
    insecure: bool = True
    headers: Mapping[str, str] = field(default_factory=dict)
    compression: Literal["none", "gzip"] = "gzip"
    timeout: float = 10.0
    max_message_bytes: int = 4 * MiB
    """Requests are split to stay under this size (gRPC's default receive limit is 4 MiB)."""
    retry_on_failure: RetryConfig = field(default_factory=RetryConfig)
    sending_queue: QueueConfig = field(default_factory=QueueConfig)


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    listen: str = DEFAULT_LISTEN
    max_recv_msg_size: int = 16 * MiB
    max_concurrent_streams: int = 64
    output_dir: str = DEFAULT_OUTPUT_DIR
    write_artifacts: bool = True
    export: ExportConfig | None = None
    decision_wait: float = 2.0
    idle_timeout: float = 30.0
    max_trace_wait: float = 300.0
    num_traces: int = 50_000
    max_buffered_spans: int = 1_000_000
    released_cache_size: int = 100_000
    content_mode: Literal["keep", "digest", "drop"] = "digest"
    passthrough: bool = False
    """Receiver -> exporter only, no grouping, mapping or detection (a baseline for benchmarks)."""
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


def _endpoint(value: str | None, path: str, problems: list[str]) -> None:
    if value is None:
        return
    try:
        parse_endpoint(value)
    except ValueError as exc:
        problems.append(f"{path}: {exc}")


def _parse_export(reader: _Reader) -> ExportConfig | None:
    endpoint = reader.str("endpoint", None)
    _endpoint(endpoint, reader._at("endpoint"), reader.problems)
    tls = reader.section("tls", {"insecure"})
    headers_raw = reader.raw.get("headers") or {}
    headers: dict[str, str] = {}
    if not isinstance(headers_raw, dict) or not all(isinstance(v, str) for v in headers_raw.values()):
        reader.problems.append(f"{reader._at('headers')}: expected a mapping of header name to string value")
    else:
        headers = {str(k).lower(): v for k, v in headers_raw.items()}
    retry = reader.section(
        "retry_on_failure",
        {"enabled", "initial_interval", "max_interval", "max_elapsed_time", "multiplier", "randomization_factor"},
    )
    queue = reader.section("sending_queue", {"enabled", "queue_size", "num_consumers", "storage"})
    retry_config = RetryConfig(
        enabled=retry.bool("enabled", True),
        initial_interval=retry.duration("initial_interval", 5.0),
        max_interval=retry.duration("max_interval", 30.0),
        max_elapsed_time=retry.duration("max_elapsed_time", 300.0),
        multiplier=retry.float("multiplier", 1.5, minimum=1.0),
        randomization_factor=retry.float("randomization_factor", 0.5),
    )
    queue_config = QueueConfig(
        enabled=queue.bool("enabled", True),
        queue_size=queue.int("queue_size", 1000, minimum=1),
        num_consumers=queue.int("num_consumers", 4, minimum=1),
        storage=queue.str("storage", None),
    )
    insecure = tls.bool("insecure", True)
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
        headers=headers,
        compression=compression,  # type: ignore[arg-type]
        timeout=timeout,
        max_message_bytes=max_message_bytes,
        retry_on_failure=retry_config,
        sending_queue=queue_config,
    )


def parse_config(raw: Any, source: str = "config", base_dir: Path | None = None) -> Config:
    """Validate a parsed YAML document; raises :class:`ConfigError` listing every problem."""
    problems: list[str] = []
    top = _Reader(raw, "", problems, {"receiver", "processor", "exporter", "output", "detectors"})
    receiver = top.section("receiver", {"endpoint", "max_recv_msg_size_mib", "max_concurrent_streams"})
    processor = top.section(
        "processor",
        {"decision_wait", "idle_timeout", "max_trace_wait", "num_traces", "max_buffered_spans", "released_cache_size",
         "passthrough"},
    )
    output = top.section("output", {"directory", "write_artifacts", "content_mode"})
    listen = receiver.str("endpoint", DEFAULT_LISTEN) or DEFAULT_LISTEN
    _endpoint(listen, "receiver.endpoint", problems)
    export = _parse_export(top.section("exporter", {"endpoint", "tls", "headers", "compression", "timeout",
                                                    "max_message_bytes", "retry_on_failure", "sending_queue"}))
    config = Config(
        listen=listen,
        max_recv_msg_size=receiver.int("max_recv_msg_size_mib", 16, minimum=1) * MiB,
        max_concurrent_streams=receiver.int("max_concurrent_streams", 64, minimum=1),
        output_dir=output.str("directory", DEFAULT_OUTPUT_DIR) or DEFAULT_OUTPUT_DIR,
        write_artifacts=output.bool("write_artifacts", True),
        content_mode=output.choice("content_mode", "digest", ("keep", "digest", "drop")),  # type: ignore[arg-type]
        export=export,
        decision_wait=processor.duration("decision_wait", 2.0),
        idle_timeout=processor.duration("idle_timeout", 30.0),
        max_trace_wait=processor.duration("max_trace_wait", 300.0),
        num_traces=processor.int("num_traces", 50_000, minimum=1),
        max_buffered_spans=processor.int("max_buffered_spans", 1_000_000, minimum=1),
        released_cache_size=processor.int("released_cache_size", 100_000, minimum=0),
        passthrough=processor.bool("passthrough", False),
        detectors=parse_detectors(top.raw.get("detectors"), problems, base_dir=base_dir),
    )
    from processor.detectors.registry import check_enabled

    problems.extend(check_enabled(config.detectors))
    if config.decision_wait > config.idle_timeout:
        problems.append("processor.decision_wait: must not exceed processor.idle_timeout")
    if config.idle_timeout > config.max_trace_wait:
        problems.append("processor.idle_timeout: must not exceed processor.max_trace_wait")
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
