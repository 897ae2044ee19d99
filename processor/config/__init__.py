"""The processor's configuration: one YAML file with the Collector's key names where meanings match.

``load_config`` expands ``${env:VAR}`` (and ``${env:VAR:-default}``), parses, and validates, reporting every
problem at once in a :class:`ConfigError`. Durations are Go-style strings (``"1m30s"``, ``"500ms"``, ``"2h"``) or
numbers of seconds in YAML, and float seconds in code.

Where things are: every key is declared once in :mod:`processor.config.definition` (read its docstring to add a
key); :mod:`~processor.config.model` holds the dataclasses, :mod:`~processor.config.loader` builds them,
:mod:`~processor.config.checks` checks what ``serve`` will read (``check-config``) and
:mod:`~processor.config.generate` writes the JSON Schema and ``docs/config.example.yaml``.
"""

from processor.config.definition import DEFAULT_HTTP_LISTEN, DEFAULT_LISTEN, DEFAULT_OUTPUT_DIR, MiB
from processor.config.loader import ConfigError, expand_env, load_config, parse_config
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
from processor.config.pricing import bundle_options
from processor.settings import parse_duration, parse_endpoint

__all__ = [
    "DEFAULT_HTTP_LISTEN",
    "DEFAULT_LISTEN",
    "DEFAULT_OUTPUT_DIR",
    "ArtifactsConfig",
    "AuthConfig",
    "Config",
    "ConfigError",
    "ExportConfig",
    "MetricsConfig",
    "MiB",
    "QueueConfig",
    "RetryConfig",
    "RunsConfig",
    "TlsServerConfig",
    "bundle_options",
    "expand_env",
    "load_config",
    "parse_config",
    "parse_duration",
    "parse_endpoint",
]
