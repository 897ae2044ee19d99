"""The dataset's ``manifest.json``: version, spec version, selection rules, counts, transforms, rights summary and
the digest of every file (the AT spec's *Dataset*: a versioned collection of trajectories, labels, transforms and
rights statements prepared for a declared use)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from otel_mapper.bundle.canonical import digest
from otel_mapper.bundle.common import RIGHTS, SPEC_VERSION
from otel_mapper.bundle.redact import SCRUBBER_VERSION

__all__ = ["DATASET_FORMAT", "MANIFEST_FORMAT_VERSION", "build_manifest", "rights_summary"]

DATASET_FORMAT: Final = "otel-trajectory-dataset"
MANIFEST_FORMAT_VERSION: Final = "1"
_STRICTNESS: Final = {"granted": 0, "unknown": 1, "denied": 2}


def rights_summary(bundles: Iterable[Mapping[str, object]]) -> dict[str, str]:
    """Per right, the most restrictive statement among the bundles: the dataset never grants more than any of its
    members (``unknown`` for an empty dataset)."""
    summary: dict[str, str] = {}
    seen = False
    for bundle in bundles:
        seen = True
        rights = bundle.get("rights")
        for name in RIGHTS:
            value = rights.get(name) if isinstance(rights, dict) else None
            value = value if value in _STRICTNESS else "unknown"
            current = summary.get(name, "granted")
            summary[name] = value if _STRICTNESS[str(value)] > _STRICTNESS[current] else current
    if not seen:
        return dict.fromkeys(RIGHTS, "unknown")
    return summary


def build_manifest(
    *,
    files: Mapping[str, str],
    selection: Mapping[str, object],
    counts: Mapping[str, int],
    content_mode: str,
    rights: Mapping[str, str],
    entries: list[dict[str, object]],
    version: str | None,
    implementation_version: str,
) -> dict[str, object]:
    """``files``: relative path -> ``sha256:<hex>``. The dataset version, unless given, is derived from the files'
    digests, so the same selection of the same bundles gives the same version (no clock is read)."""
    content_digest = digest(dict(sorted(files.items())))
    return {
        "format": DATASET_FORMAT,
        "format_version": MANIFEST_FORMAT_VERSION,
        "dataset_version": version or f"content-{content_digest.removeprefix('sha256:')[:16]}",
        "content_digest": content_digest,
        "spec_version": SPEC_VERSION,
        "declared_use": selection.get("declared_use"),
        "selection": dict(selection),
        "counts": dict(sorted(counts.items())),
        "transforms": [
            {"operation": "selection", "detail": "bundles matching the selection rules whose rights grant the use"},
            {"operation": "redaction", "detail": f"bundles and spans re-redacted to content_mode={content_mode}"},
            {"operation": "secret_scrubbing",
             "detail": f"scrubber v{SCRUBBER_VERSION} over every string of bundles and spans"},
            {"operation": "annotation_removal", "detail": "agent_trajectory annotations removed from spans"},
            {"operation": "labeling", "detail": "labels.json from the recorded diagnosis, or from the review"},
        ],
        "content_mode": content_mode,
        "rights": {**rights, "unknown_means": "not_granted",
                   "basis": "most restrictive statement of any member bundle"},
        "labels_format": "corpus labels.json (otel-trajectory eval)",
        "entries": entries,
        "files": dict(sorted(files.items())),
        "implementation": {"name": "otel-trajectory", "version": implementation_version},
    }
