"""``otel-trajectory dataset build INPUT... --output DIR [--verdict fail|pass|any] [--category C]...
[--reviewed FILE]``: a versioned regression dataset from bundles.

INPUT: bundle files, or directories that ``map`` or ``serve`` wrote (searched recursively for ``bundle.json`` and
``bundle.r<N>.json``; of one trace, the latest revision is taken). Selected bundles (:mod:`otel_mapper.dataset.
selection`) are re-redacted to the dataset's content mode and re-scrubbed (:mod:`otel_mapper.dataset.
bundle_redaction`); the spans written beside them (``spans.otlp.json``) are scrubbed and reduced likewise
(:mod:`otel_mapper.dataset.span_redaction`). The output::

    DIR/manifest.json                        version, spec version, selection, counts, transforms, rights, digests
    DIR/traces/<trace id>/bundle.json        the re-redacted bundle
    DIR/traces/<trace id>/trace.otlp.json    its spans (when the input had them): what `eval` maps
    DIR/traces/<trace id>/labels.json        labels in the corpus format: `otel-trajectory eval DIR` scores them

``--reviewed FILE``: JSON (an array, or one object per line) of ``{"trace_id", "outcome": "confirmed" |
"rejected", "category"?}``; then only confirmed traces enter. Exit status: 0 when the dataset was written (also
when nothing was selected: the manifest says why), 2 on bad input (unreadable file, DIR not empty).
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Final, TextIO

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.bundle.redact import CONTENT_MODES, ContentMode
from otel_mapper.dataset.bundle_redaction import redact_bundle
from otel_mapper.dataset.manifest import build_manifest, rights_summary
from otel_mapper.dataset.selection import DECLARED_USES, Review, Selection, bundle_trace_id, labels_for, select
from otel_mapper.dataset.span_redaction import redact_span, scrub_attributes
from otel_mapper.otlp.json_codec import decode_any, encode_json_line
from otel_mapper.validate.consumer import MAX_BUNDLE_BYTES

__all__ = ["add_arguments", "run"]

logger = logging.getLogger(__name__)

EXIT_OK: Final = 0
EXIT_BAD_INPUT: Final = 2
_BUNDLE_NAME: Final = re.compile(r"^bundle(?:\.r(\d+))?\.json$")
SPANS_NAME: Final = "spans.otlp.json"
MAX_SPANS_BYTES: Final = 256 * 1024 * 1024
MAX_REVIEWS: Final = 1_000_000
IMPLEMENTATION_VERSION: Final = "0.1.0"


class DatasetInputError(ValueError):
    """An input or option that cannot be used; the message says which and why."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="dataset_action", required=True)
    build = actions.add_parser("build", help="select, re-redact and label bundles into a versioned dataset")
    build.add_argument("inputs", nargs="+", type=Path, metavar="INPUT",
                       help="bundle files, or directories written by map or serve (searched recursively)")
    build.add_argument("--output", type=Path, required=True, metavar="DIR", help="dataset directory (created; must be empty)")
    build.add_argument("--verdict", choices=("fail", "pass", "any"), default="fail",
                       help="verdict of the traces to take (default fail)")
    build.add_argument("--category", action="append", default=[], metavar="C",
                       help="take only traces with a finding of this category (repeatable)")
    build.add_argument("--reviewed", type=Path, default=None, metavar="FILE",
                       help="review outcomes: only confirmed traces enter")
    build.add_argument("--content-mode", choices=CONTENT_MODES, default="keep",
                       help="content mode of the dataset (default keep: secrets scrubbed, content kept so eval sees what the detectors saw); bundles are never loosened")
    build.add_argument("--use", choices=DECLARED_USES, default="local_evaluation",
                       help="the dataset's declared use; a bundle whose rights do not grant it is left out")
    build.add_argument("--dataset-version", default=None,
                       help="version to record (default: derived from the digests of the files)")
    parser.set_defaults(run_command=run)


def _latest_bundles(inputs: list[Path]) -> list[Path]:
    """Bundle files named, and under directories the latest revision of each trace's bundle."""
    found: list[Path] = []
    for path in inputs:
        if path.is_file():
            found.append(path)
            continue
        if not path.is_dir():
            raise DatasetInputError(f"{path}: no such file or directory")
        latest: dict[Path, tuple[int, Path]] = {}
        for candidate in sorted(path.rglob("bundle*.json")):
            match = _BUNDLE_NAME.match(candidate.name)
            if match is None or not candidate.is_file():
                continue
            revision = int(match.group(1) or 1)
            if candidate.parent not in latest or latest[candidate.parent][0] < revision:
                latest[candidate.parent] = (revision, candidate)
        found.extend(item for _, item in sorted(latest.values(), key=lambda pair: str(pair[1])))
    return found


def _read_reviews(path: Path) -> dict[str, Review]:
    data = path.read_bytes()
    try:
        stripped = data.lstrip()
        if stripped.startswith(b"["):
            items = orjson.loads(data)
        else:
            items = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    except orjson.JSONDecodeError as exc:
        raise DatasetInputError(f"{path}: not JSON ({exc}); expected an array or one object per line") from exc
    reviews: dict[str, Review] = {}
    for position, item in enumerate(items[:MAX_REVIEWS]):
        if not isinstance(item, dict) or not isinstance(item.get("trace_id"), str):
            raise DatasetInputError(f"{path}: entry {position} needs a string trace_id")
        outcome = item.get("outcome")
        if outcome not in ("confirmed", "rejected"):
            raise DatasetInputError(f"{path}: entry {position}: outcome must be confirmed or rejected, got {outcome!r}")
        category = item.get("category")
        if category is not None and not isinstance(category, str):
            raise DatasetInputError(f"{path}: entry {position}: category must be a string")
        trace_id = item["trace_id"].lower()
        reviews[trace_id] = Review(trace_id=trace_id, outcome=outcome, category=category or None)
    return reviews


def _spans_for(spans_file: Path, trace_id: str, mode: ContentMode) -> bytes | None:
    """The trace's spans from ``spans_file``, scrubbed and reduced, as OTLP/JSON lines (``None``: none there)."""
    if not spans_file.is_file() or spans_file.stat().st_size > MAX_SPANS_BYTES:
        return None
    lines: list[bytes] = []
    for request in decode_any(spans_file.read_bytes()):
        kept = ExportTraceServiceRequest()
        for resource_spans in request.resource_spans:
            scope_list = []
            for scope_spans in resource_spans.scope_spans:
                spans = [span for span in scope_spans.spans if span.trace_id.hex() == trace_id]
                if spans:
                    scope_list.append((scope_spans, spans))
            if not scope_list:
                continue
            out_resource = kept.resource_spans.add()
            out_resource.resource.CopyFrom(resource_spans.resource)
            out_resource.schema_url = resource_spans.schema_url
            scrub_attributes(out_resource.resource.attributes)
            for scope_spans, spans in scope_list:
                out_scope = out_resource.scope_spans.add()
                out_scope.scope.CopyFrom(scope_spans.scope)
                out_scope.schema_url = scope_spans.schema_url
                scrub_attributes(out_scope.scope.attributes)
                for span in spans:
                    copy = out_scope.spans.add()
                    copy.CopyFrom(span)
                    redact_span(copy, mode)
        if kept.resource_spans:
            lines.append(encode_json_line(kept))
    return b"".join(lines) if lines else None


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _integrity_digest(bundle: dict[str, object]) -> object:
    integrity = bundle.get("integrity")
    return integrity.get("digest") if isinstance(integrity, dict) else None


def build(args: argparse.Namespace, out: TextIO) -> int:
    output: Path = args.output
    if output.exists() and (not output.is_dir() or any(output.iterdir())):
        raise DatasetInputError(f"{output}: exists and is not an empty directory; choose a new --output")
    reviews = _read_reviews(args.reviewed) if args.reviewed is not None else None
    selection = Selection(
        verdict=args.verdict, categories=frozenset(args.category), reviews=reviews, declared_use=args.use
    )
    bundle_files = _latest_bundles(list(args.inputs))
    counts: Counter[str] = Counter(inputs=len(bundle_files))
    chosen: dict[str, tuple[dict[str, object], Path]] = {}
    for path in bundle_files:
        data = path.read_bytes()
        try:
            if len(data) > MAX_BUNDLE_BYTES:
                raise ValueError("too large")
            bundle = orjson.loads(data)
        except (orjson.JSONDecodeError, ValueError):
            counts["excluded_unreadable"] += 1
            continue
        if not isinstance(bundle, dict):
            counts["excluded_unreadable"] += 1
            continue
        reason = select(bundle, selection)
        if reason is not None:
            counts[f"excluded_{reason.value}"] += 1
            continue
        trace_id = str(bundle_trace_id(bundle))
        if trace_id in chosen:
            counts["excluded_duplicate"] += 1
            continue
        chosen[trace_id] = (bundle, path)
    files: dict[str, str] = {}
    entries: list[dict[str, object]] = []
    note = f"dataset for {args.use}"
    for trace_id, (bundle, path) in sorted(chosen.items()):
        directory = output / "traces" / trace_id
        directory.mkdir(parents=True, exist_ok=True)
        redacted = redact_bundle(bundle, args.content_mode, note)
        written = {"bundle.json": orjson.dumps(redacted, option=orjson.OPT_SORT_KEYS)}
        spans = _spans_for(path.with_name(SPANS_NAME), trace_id, args.content_mode)
        if spans is not None:
            written["trace.otlp.json"] = spans
        else:
            counts["selected_without_spans"] += 1
        review = reviews.get(trace_id) if reviews is not None else None
        written["labels.json"] = orjson.dumps(labels_for(bundle, review), option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
        for name, content in written.items():
            (directory / name).write_bytes(content)
            files[f"traces/{trace_id}/{name}"] = _sha256(content)
        entries.append({"trace_id": trace_id, "path": f"traces/{trace_id}", "has_spans": spans is not None,
                        "source_integrity": _integrity_digest(bundle)})
    counts["selected"] = len(chosen)
    manifest = build_manifest(
        files=files,
        selection={
            "verdict": args.verdict,
            "categories": sorted(args.category),
            "reviewed": None if args.reviewed is None else {"file_digest": _sha256(args.reviewed.read_bytes()),
                                                              "reviews": len(reviews or {})},
            "declared_use": args.use,
            "revision": "latest revision of each trace",
        },
        counts=dict(counts),
        content_mode=args.content_mode,
        rights=rights_summary(bundle for bundle, _ in chosen.values()),
        entries=entries,
        version=args.dataset_version,
        implementation_version=IMPLEMENTATION_VERSION,
    )
    output.mkdir(parents=True, exist_ok=True)
    (output / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2))
    excluded = sum(value for key, value in counts.items() if key.startswith("excluded_"))
    out.write(f"dataset {manifest['dataset_version']}: {len(chosen)} trace(s) of {len(bundle_files)} bundle(s) "
              f"under {output}; {excluded} left out\n")
    for key, value in sorted(counts.items()):
        if key.startswith("excluded_") and value:
            out.write(f"  {key.removeprefix('excluded_')}: {value}\n")
    return EXIT_OK


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        return build(args, out)
    except DatasetInputError as exc:
        print(f"otel-trajectory dataset: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OSError, ValueError) as exc:
        print(f"otel-trajectory dataset: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
