"""Where ``report`` finds its bundles: trace directories ``map``/``serve`` wrote, bundle files, or OTLP files
analysed on the spot (as ``map`` does, without writing anything).

A trace directory holds ``bundle.json`` (revision 1) and ``bundle.r<N>.json`` for later revisions; the newest
revision is the one shown. An output directory holds one trace directory per trace id.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

import orjson

from otel_mapper.bundle.writer import BundleOptions, build_bundle
from otel_mapper.validate.consumer import MAX_BUNDLE_BYTES
from processor.cli.inputs import STDIN
from processor.config import Config

__all__ = ["MAX_TRACE_DIRECTORIES", "ReportInputError", "bundles_from_inputs", "newest_bundle", "read_bundle"]

logger = logging.getLogger(__name__)

MAX_TRACE_DIRECTORIES: Final = 10_000
"""Trace directories read from one output directory; a report of more is not one a person reads."""
_REVISION = re.compile(r"^bundle(?:\.r(\d{1,9}))?\.json$")


class ReportInputError(ValueError):
    """An input cannot be turned into bundles; the message names the file and what to do."""


def _revision(path: Path) -> int | None:
    match = _REVISION.match(path.name)
    if match is None:
        return None
    return int(match.group(1)) if match.group(1) else 1


def newest_bundle(trace_dir: Path) -> Path | None:
    """The bundle of the highest revision in ``trace_dir`` (``None`` when there is none)."""
    best: tuple[int, Path] | None = None
    try:
        entries = list(trace_dir.iterdir())
    except OSError:
        return None
    for entry in entries:
        revision = _revision(entry)
        if revision is not None and entry.is_file() and (best is None or revision > best[0]):
            best = (revision, entry)
    return best[1] if best else None


def read_bundle(path: Path) -> dict[str, object]:
    with path.open("rb") as handle:
        data = handle.read(MAX_BUNDLE_BYTES + 1)
    if len(data) > MAX_BUNDLE_BYTES:
        raise ReportInputError(f"{path}: larger than {MAX_BUNDLE_BYTES} bytes, more than any bundle this tool writes")
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ReportInputError(f"{path}: not JSON ({exc}); give a bundle.json, a trace directory or OTLP files") from exc
    if not isinstance(document, dict) or "nodes" not in document or "trajectory_id" not in document:
        raise ReportInputError(f"{path}: not an AT bundle (no trajectory_id and nodes); a ledger.json cannot be drawn")
    return document


def _looks_like_bundle(path: Path) -> bool:
    if _revision(path) is not None:
        return True
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip()
    return head.startswith(b"{") and b'"spec_version"' in head and b'"resourceSpans"' not in head


def _from_directory(path: Path) -> list[dict[str, object]]:
    """The newest bundle of a trace directory, or of each trace directory in an output directory; ``[]`` when
    there is none (then the directory is read as ``map`` reads one)."""
    own = newest_bundle(path)
    if own is not None:
        return [read_bundle(own)]
    bundles: list[dict[str, object]] = []
    for child in sorted(entry for entry in path.iterdir() if entry.is_dir()):
        found = newest_bundle(child)
        if found is None:
            continue
        if len(bundles) >= MAX_TRACE_DIRECTORIES:
            logger.warning("%s: more than %d trace directories; the report shows the first %d by trace id",
                           path, MAX_TRACE_DIRECTORIES, MAX_TRACE_DIRECTORIES)
            break
        bundles.append(read_bundle(found))
    return bundles


def _from_otlp(paths: list[Path], config: Config) -> list[dict[str, object]]:
    from otel_mapper.mapping.log_events import records_by_trace
    from processor.cli.inputs import InputError, read_inputs
    from processor.cli.offline import analyse_requests

    try:
        inputs = read_inputs(paths)
    except InputError as exc:
        message = str(exc)
        if any(path.is_dir() and message.startswith(f"{path}:") for path in paths):
            message += "; nor a bundle.json: name OTLP files, or run `otel-trajectory map` first"
        raise ReportInputError(message) from None
    options = BundleOptions(content_mode=config.content_mode)
    bundles: list[dict[str, object]] = []
    for analysed in analyse_requests(inputs.requests, config, logs=records_by_trace(inputs.logs)):
        if analysed.trajectory is None or analysed.diagnosis is None:
            logger.warning("trace %s could not be analysed: %s", analysed.released.trace_id.hex(), analysed.error)
            continue
        bundles.append(build_bundle(analysed.trajectory, analysed.diagnosis, options))
    return bundles


def bundles_from_inputs(paths: Iterable[Path], config: Config) -> list[dict[str, object]]:
    """Bundles of every input, in input order (OTLP files analysed together, as ``map`` does); ``-`` reads OTLP
    from standard input, and a directory without bundles is read as ``map`` reads one."""
    bundles: list[dict[str, object]] = []
    otlp: list[Path] = []
    for path in paths:
        if str(path) == STDIN:
            otlp.append(path)
        elif path.is_dir():
            found = _from_directory(path)
            if found:
                bundles += found
            else:
                otlp.append(path)  # OTLP files under it, as map reads a directory
        elif not path.is_file():
            raise ReportInputError(f"{path}: no such file or directory")
        elif _looks_like_bundle(path):
            bundles.append(read_bundle(path))
        else:
            otlp.append(path)
    if otlp:
        bundles += _from_otlp(otlp, config)
    return bundles
