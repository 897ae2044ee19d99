"""Per-trace artifact files: ``<dir>/<trace_id_hex>/bundle.json`` and ``ledger.json`` for revision 1;
``bundle.r<N>.json`` / ``ledger.r<N>.json`` for later revisions (an earlier bundle is never rewritten, AT-6.2e)."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import orjson

from otel_mapper.bundle.ledger import write_ledger
from otel_mapper.bundle.writer import BundleOptions, write_bundle
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory

__all__ = ["ArtifactWriter", "artifact_names", "indented"]


def artifact_names(revision: int) -> tuple[str, str]:
    if revision <= 1:
        return "bundle.json", "ledger.json"
    return f"bundle.r{revision}.json", f"ledger.r{revision}.json"


def _write_atomically(path: Path, data: bytes) -> None:
    """Write beside ``path`` under a name no other writer uses, then rename over it (readers never see half)."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def indented(data: bytes) -> bytes:
    """The same JSON document, two-space indented with a trailing newline; key order kept as written."""
    return orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2) + b"\n"


@dataclass(frozen=True, slots=True)
class ArtifactWriter:
    directory: Path
    options: BundleOptions
    pretty: bool = False
    """Indent bundle and ledger (``map --pretty``); the integrity digest is over canonical JSON, so it holds."""

    def write(self, trajectory: Trajectory, diagnosis: Diagnosis) -> Path:
        target = self.directory / trajectory.trace_id
        target.mkdir(parents=True, exist_ok=True)
        options = self.options
        if trajectory.revision > 1:
            from dataclasses import replace

            options = replace(options, derived_from=f"{trajectory.trajectory_id}@r{trajectory.revision - 1}")
        bundle_name, ledger_name = artifact_names(trajectory.revision)
        bundle = write_bundle(trajectory, diagnosis, options)
        ledger = write_ledger(trajectory, diagnosis, content_mode=options.content_mode, prices=options.prices)
        if self.pretty:
            bundle, ledger = indented(bundle), indented(ledger)
        _write_atomically(target / bundle_name, bundle)
        _write_atomically(target / ledger_name, ledger)
        return target
