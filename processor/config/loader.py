"""Load the config file: expand ``${env:VAR}`` (``${env:VAR:-default}``), parse YAML, read every key through
:data:`processor.config.definition.CONFIG`, build :class:`Config`, and report every problem at once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from processor.config.definition import CONFIG, MiB
from processor.config.model import (
    ArtifactsConfig,
    AuthConfig,
    Config,
    ExportConfig,
    MetricsConfig,
    QueueConfig,
    RetryConfig,
    RunsConfig,
    TlsServerConfig,
)
from processor.config.pricing import read_pricing, read_rights
from processor.detectors.config import parse_detectors
from processor.settings import Values, read_section

__all__ = ["ConfigError", "build_config", "expand_env", "load_config", "parse_config", "read_config_file"]


class ConfigError(ValueError):
    """The configuration has problems; ``problems`` lists every one, each with its path and a fix."""

    def __init__(self, problems: list[str], source: str = "config") -> None:
        self.problems = problems
        super().__init__(f"{source}: {len(problems)} problem(s):\n" + "\n".join(f"  - {p}" for p in problems))


_ENV = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_env(text: str, environ: Mapping[str, str], problems: list[str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        name, fallback = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if fallback is not None:
            return fallback
        problems.append(f"${{env:{name}}} is used but {name} is not set (set it, or write ${{env:{name}:-default}})")
        return ""

    return _ENV.sub(substitute, text)


def _client_tls(section: Values, problems: list[str]) -> tuple[bool, str | None, str | None, str | None]:
    """(insecure, ca_file, cert_file, key_file) of a client ``tls`` section. Without ``insecure``, a CA or client
    certificate means TLS; with neither, plaintext."""
    tls = section["tls"]
    ca_file, cert_file, key_file = tls["ca_file"], tls["cert_file"], tls["key_file"]
    if (cert_file is None) != (key_file is None):
        problems.append(f"{tls.path}: cert_file and key_file go together (client certificate)")
    insecure = tls["insecure"]
    if insecure is None:
        insecure = not (ca_file or cert_file)
    if insecure and (ca_file or cert_file):
        problems.append(f"{tls.path}: insecure: true contradicts ca_file/cert_file (remove one)")
    return insecure, ca_file, cert_file, key_file


def _export(section: Values, problems: list[str]) -> ExportConfig | None:
    retry, queue = section["retry_on_failure"], section["sending_queue"]
    storage = queue["storage"]
    insecure, ca_file, cert_file, key_file = _client_tls(section, problems)
    endpoint = section["endpoint"]
    if not endpoint:
        if section.present:
            problems.append(f"{section.at('endpoint')}: required when the {section.path} section is present")
        return None
    return ExportConfig(
        endpoint=endpoint,
        insecure=insecure,
        ca_file=ca_file,
        cert_file=cert_file,
        key_file=key_file,
        headers=section["headers"],
        compression=section["compression"],
        timeout=section["timeout"],
        max_message_bytes=section["max_message_bytes"],
        retry_on_failure=RetryConfig(**dict(retry)),
        sending_queue=QueueConfig(
            enabled=queue["enabled"],
            queue_size=queue["queue_size"],
            num_consumers=queue["num_consumers"],
            storage=storage or None,
            storage_enabled=storage is not False,
            storage_max_mib=queue["storage_max_mib"],
            fsync=queue["fsync"],
            batch_flush_timeout=queue["batch"]["flush_timeout"],
            batch_min_size=queue["batch"]["min_size"],
        ),
    )


def _receiver_tls(tls: Values, problems: list[str]) -> TlsServerConfig | None:
    if not tls.present:
        return None
    if not tls["cert_file"] or not tls["key_file"]:
        problems.append(f"{tls.path}: cert_file and key_file are both required to serve TLS")
        return None
    return TlsServerConfig(cert_file=tls["cert_file"], key_file=tls["key_file"], client_ca_file=tls["client_ca_file"])


def _auth(auth: Values, problems: list[str]) -> AuthConfig | None:
    if not auth.present:
        return None
    token, token_file = auth["bearer_token"], auth["bearer_token_file"]
    if bool(token) == bool(token_file):
        problems.append(f"{auth.path}: set exactly one of bearer_token (e.g. ${{env:VAR}}) or bearer_token_file")
        return None
    return AuthConfig(bearer_token=token or None, bearer_token_file=token_file)


def _metrics(metrics: Values, problems: list[str]) -> MetricsConfig:
    otlp = metrics["otlp"]
    insecure, ca_file, cert_file, key_file = _client_tls(otlp, problems)
    return MetricsConfig(
        prometheus_endpoint=metrics["prometheus"]["endpoint"],
        otlp_endpoint=otlp["endpoint"],
        otlp_interval=otlp["interval"],
        otlp_insecure=insecure,
        otlp_headers=otlp["headers"],
        otlp_ca_file=ca_file,
        otlp_cert_file=cert_file,
        otlp_key_file=key_file,
    )


def _artifacts(output: Values, raw: Any, problems: list[str]) -> ArtifactsConfig:
    given = raw.get("output") if isinstance(raw, dict) else None
    chosen = given.get("artifacts", "none") if isinstance(given, dict) else "none"
    if output["write_artifacts"] is False and chosen != "none":
        problems.append(
            "output.artifacts: contradicts output.write_artifacts: false (remove write_artifacts, or set artifacts: none)"
        )
    retention = output["retention"]
    return ArtifactsConfig(
        mode=output["artifacts"],
        sampling_percentage=float(output["artifacts_sampling_percentage"]),
        max_megabytes=retention["max_megabytes"],
        max_days=float(retention["max_days"]),
    )


def build_config(raw: Any, base_dir: Path | None = None, load_files: bool = True) -> tuple[Config, list[str]]:
    """A :class:`Config` from a parsed YAML document, and every problem found (defaults stand in for wrong values).

    ``load_files=False`` leaves files the loader would read (``detectors.drift.references``) unread."""
    problems: list[str] = []
    top = read_section(CONFIG, raw, "", problems)
    receiver, processor, output = top["receiver"], top["processor"], top["output"]
    keepalive = receiver["keepalive"]["server_parameters"]
    http = receiver["http"]
    config = Config(
        listen=receiver["endpoint"],
        http_listen=http["endpoint"] if http["enabled"] else None,
        max_recv_msg_size=receiver["max_recv_msg_size_mib"] * MiB,
        max_concurrent_streams=receiver["max_concurrent_streams"],
        max_concurrent_rpcs=receiver["max_concurrent_rpcs"],
        max_connection_idle=keepalive["max_connection_idle"] or None,
        max_connection_age=keepalive["max_connection_age"] or None,
        max_connection_age_grace=keepalive["max_connection_age_grace"] or None,
        tls=_receiver_tls(receiver["tls"], problems),
        auth=_auth(receiver["auth"], problems),
        output_dir=output["directory"],
        write_artifacts=output["write_artifacts"],
        artifacts=_artifacts(output, raw, problems),
        content_mode=output["content_mode"],
        evaluation_log_records=output["evaluation_log_records"],
        export=_export(top["exporter"], problems),
        logs_export=_export(top["logs_exporter"], problems),
        metrics=_metrics(top["telemetry"]["metrics"], problems),
        decision_wait=processor["decision_wait"],
        idle_timeout=processor["idle_timeout"],
        max_trace_wait=processor["max_trace_wait"],
        max_run_wait=processor["max_run_wait"],
        runs=RunsConfig(
            horizon=processor["run_horizon"],
            memory_bytes=processor["run_state_memory_mib"] * MiB,
            storage_bytes=processor["run_state_storage_mib"] * MiB,
        ),
        num_traces=processor["num_traces"],
        max_buffered_spans=processor["max_buffered_spans"],
        max_analysis_lag=processor["max_analysis_lag"],
        released_cache_size=processor["released_cache_size"],
        passthrough=processor["passthrough"],
        memory_limit_mib=processor["memory_limit_mib"],
        analysis_workers=processor["analysis_workers"],
        detectors=parse_detectors(top["detectors"], problems, base_dir=base_dir, load_files=load_files),
        pricing=read_pricing(top["pricing"], problems),
        rights=read_rights(output["rights"]),
    )
    from processor.detectors.registry import check_enabled

    problems.extend(check_enabled(config.detectors))
    problems.extend(_cross_checks(config))
    return config, problems


def _cross_checks(config: Config) -> list[str]:
    problems: list[str] = []
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
    return problems


def parse_config(raw: Any, source: str = "config", base_dir: Path | None = None) -> Config:
    """Validate a parsed YAML document; raises :class:`ConfigError` listing every problem."""
    config, problems = build_config(raw, base_dir)
    if problems:
        raise ConfigError(problems, source)
    return config


def read_config_file(
    path: str | Path, environ: Mapping[str, str] | None = None, load_files: bool = True
) -> tuple[Config | None, list[str]]:
    """Read, expand and build a config file: (config, every problem). ``None`` when the file cannot be read or is
    not YAML."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        return None, [f"cannot read the file: {exc.strerror or exc}"]
    problems: list[str] = []
    text = expand_env(text, os.environ if environ is None else environ, problems)
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return None, [f"not valid YAML: {exc}"]
    config, found = build_config(raw, base_dir=Path(path).parent, load_files=load_files)
    return config, problems + found


def load_config(path: str | Path | None, environ: Mapping[str, str] | None = None) -> Config:
    """Read, expand and validate a config file (``None``: defaults)."""
    if path is None:
        return Config()
    config, problems = read_config_file(path, environ)
    if problems or config is None:
        raise ConfigError(problems, str(path))
    return config
