"""What ``serve`` reads at start-up, checked ahead (``check-config``): TLS certificates and keys, the bearer token
(file), the spool directories. Every problem is reported, each naming the setting, the value and what to do.

The credentials are built with the same functions ``serve`` uses, so a file that is there but unusable (not PEM,
an encrypted key, an empty token file) is reported as ``serve`` would report it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from processor.config.model import Config, ExportConfig

__all__ = ["check_serve_settings", "spool_directories", "spool_directory"]


def spool_directory(config: Config, section: str) -> tuple[str, Path] | None:
    """(setting, directory) of the spool ``serve`` opens for ``section`` (``exporter`` or ``logs_exporter``):
    ``sending_queue.storage`` when it names one, else ``<output.directory>/spool`` (``spool-logs``); ``None`` when
    it is ``false``, in passthrough, and for ``logs_exporter`` when no logs exporter is set."""
    export = config.export if section == "exporter" else config.logs_export
    if config.passthrough or (section == "logs_exporter" and export is None):
        return None
    queue = export.sending_queue if export is not None else None
    if queue is not None and not queue.storage_enabled:
        return None
    if queue is not None and queue.storage:
        return f"{section}.sending_queue.storage", Path(queue.storage)
    default_name = "spool" if section == "exporter" else "spool-logs"
    return f"output.directory (the {section} spool)", Path(config.output_dir) / default_name


def spool_directories(config: Config) -> list[tuple[str, Path]]:
    """(setting, directory) of each spool ``serve`` opens (:func:`spool_directory` of both exporters)."""
    found = (spool_directory(config, section) for section in ("exporter", "logs_exporter"))
    return [spool for spool in found if spool is not None]


def _unreadable(path: str) -> str | None:
    """Why ``path`` cannot be read as a file, or ``None``."""
    file = Path(path)
    if not file.exists():
        return "does not exist; create it or fix the path"
    if file.is_dir():
        return "is a directory; name the file"
    try:
        with file.open("rb") as handle:
            handle.read(1)
    except PermissionError:
        return "is not readable by this process; fix its permissions or mount it readable"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    return None


def _unwritable_directory(directory: Path) -> str | None:
    """Why ``directory`` cannot be used (or created) for writing, or ``None``."""
    if directory.exists():
        if not directory.is_dir():
            return "exists and is not a directory"
        if not os.access(directory, os.R_OK | os.W_OK | os.X_OK):
            return "is not readable and writable by this process; fix its permissions or choose another directory"
        return None
    parent = directory.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot be created: {str(parent)!r} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot be created: {str(parent)!r} is not writable by this process"
    return None


def _files_then(
    files: list[tuple[str, str | None]], build: Callable[[], object], section: str, problems: list[str]
) -> None:
    """Report each set file that cannot be read; when all can, build the credentials as ``serve`` does."""
    missing = False
    for setting, path in files:
        if path is None:
            continue
        reason = _unreadable(path)
        if reason is not None:
            problems.append(f"{setting}: {path!r} {reason}")
            missing = True
    if missing:
        return
    try:
        build()
    except ValueError as exc:  # TlsError and token problems: the message names the setting and the fix
        problems.append(f"{section}: {exc}")


def _client(section: str, export: ExportConfig, problems: list[str]) -> None:
    if export.insecure:
        return
    from processor.tls import channel_credentials

    files = [(f"{section}.tls.ca_file", export.ca_file), (f"{section}.tls.cert_file", export.cert_file),
             (f"{section}.tls.key_file", export.key_file)]
    _files_then(files, lambda: channel_credentials(export.ca_file, export.cert_file, export.key_file),
                f"{section}.tls", problems)


def check_serve_settings(config: Config, offline: bool = False) -> list[str]:
    """Problems ``serve`` would stop on at start-up; ``offline`` checks only what needs no file."""
    from processor.auth import BearerTokenAuth

    problems: list[str] = []
    auth = config.auth
    if auth is not None and auth.bearer_token is not None:
        try:
            BearerTokenAuth.from_settings(auth.bearer_token, None)
        except ValueError as exc:
            problems.append(f"receiver.auth.bearer_token: {exc}")
    if offline:
        return problems
    if auth is not None and auth.bearer_token_file is not None:
        token_file = auth.bearer_token_file
        _files_then([("receiver.auth.bearer_token_file", token_file)],
                    lambda: BearerTokenAuth.from_settings(None, token_file), "receiver.auth", problems)
    tls = config.tls
    if tls is not None:
        from processor.tls import server_credentials, server_ssl_context

        cert, key, client_ca = tls.cert_file, tls.key_file, tls.client_ca_file
        files = [("receiver.tls.cert_file", cert), ("receiver.tls.key_file", key),
                 ("receiver.tls.client_ca_file", client_ca)]

        def build() -> None:
            server_credentials(cert, key, client_ca)
            server_ssl_context(cert, key, client_ca)

        _files_then(files, build, "receiver.tls", problems)
    for section, export in (("exporter", config.export), ("logs_exporter", config.logs_export)):
        if export is not None:
            _client(section, export, problems)
    metrics = config.metrics
    if metrics.otlp_endpoint is not None:
        _client("telemetry.metrics.otlp", ExportConfig(
            endpoint=metrics.otlp_endpoint, insecure=metrics.otlp_insecure, ca_file=metrics.otlp_ca_file,
            cert_file=metrics.otlp_cert_file, key_file=metrics.otlp_key_file,
        ), problems)
    for setting, directory in spool_directories(config):
        reason = _unwritable_directory(directory)
        if reason is not None:
            problems.append(f"{setting}: spool directory {str(directory)!r} {reason}")
    return problems
