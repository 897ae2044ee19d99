"""Trajectory + diagnosis -> a portable Agent Trajectory bundle (AT spec v0.1, profiles AT-Core and AT-Evaluation).

The document has every required top-level field (AT-6.1a) and an optional ``extensions`` object holding the
detector chain's findings (``org.otel-trajectory.diagnosis``). Parts are built in :mod:`otel_mapper.bundle.graph`
(states, nodes, edges) and :mod:`otel_mapper.bundle.meta` (everything else). Then, in this order:

1. every string in the document goes through the secret scrubber (AT-13.2b) — a secret never reaches the bytes,
   not even in ``digest`` mode, whose digests are taken over scrubbed text;
2. ``integrity`` is computed: SHA-256 over the RFC 8785 canonical JSON of the document without ``integrity``
   (AT-14d);
3. the document is serialised with sorted keys. Same trajectory, diagnosis and options give the same bytes
   (AT-15a); nothing reads a clock (``export_time`` is only written when the caller passes one).

A later revision of the same trace is a new bundle whose ``transform.derived_from`` names the earlier one
(AT-6.2e, AT-13.1a); an earlier bundle's bytes are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

import orjson

from otel_mapper.attribution import PriceTable, attribute
from otel_mapper.bundle.attribution_part import attribution_extension
from otel_mapper.bundle.common import (
    CANONICALIZATION,
    DIGEST_ALGORITHM,
    PROFILES,
    RIGHTS,
    SPEC_VERSION,
    integrity_digest,
)
from otel_mapper.bundle.graph import edges_part, nodes_part, states_part
from otel_mapper.bundle.meta import (
    bindings_part,
    completeness_part,
    diagnosis_extension,
    disclosure_part,
    lossy_mappings,
    outcomes_part,
    scope_part,
    source_part,
    transform_part,
    verifier_results_part,
)
from otel_mapper.bundle.redact import ContentMode
from otel_mapper.bundle.scrub_documents import scrub_document
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory

__all__ = ["BundleOptions", "RightStatus", "RightsConfig", "build_bundle", "write_bundle"]

RightStatus = Literal["granted", "denied", "unknown"]
_RIGHT_VALUES: Final = frozenset({"granted", "denied", "unknown"})


@dataclass(frozen=True, slots=True, kw_only=True)
class RightsConfig:
    """The six separate rights statements of AT-13.3a. ``unknown`` is never read as permission."""

    retention: RightStatus = "unknown"
    local_evaluation: RightStatus = "unknown"
    hosted_evaluation: RightStatus = "unknown"
    training: RightStatus = "unknown"
    redistribution_original: RightStatus = "unknown"
    redistribution_transformed: RightStatus = "unknown"

    def __post_init__(self) -> None:
        for name in RIGHTS:
            if getattr(self, name) not in _RIGHT_VALUES:
                raise ValueError(f"rights.{name} must be one of granted, denied, unknown")

    def statements(self) -> dict[str, str]:
        return {name: str(getattr(self, name)) for name in RIGHTS}


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleOptions:
    content_mode: ContentMode = "digest"
    """``keep`` (scrubbed, bounded text), ``digest`` (sha-256 of the scrubbed text) or ``drop`` (marker only)."""
    rights: RightsConfig = field(default_factory=RightsConfig)
    implementation_version: str = "0.1.0"
    derived_from: str | None = None
    """Bundle id or integrity digest of the earlier revision this bundle supersedes (AT-6.2e, AT-13.1a)."""
    export_time: str | None = None
    """RFC 3339 export time, metadata only; ``None`` leaves it out so the output is deterministic."""
    prices: PriceTable | None = None
    """Price table for cost attribution; ``None``: tokens and latency only, cost unknown."""

    def __post_init__(self) -> None:
        if self.content_mode not in ("keep", "digest", "drop"):
            raise ValueError("content_mode must be keep, digest or drop")


def build_bundle(trajectory: Trajectory, diagnosis: Diagnosis, options: BundleOptions) -> dict[str, object]:
    """The bundle as a JSON-ready dict: scrubbed, with its integrity digest filled in."""
    mode = options.content_mode
    version = options.implementation_version
    losses = lossy_mappings(trajectory, mode)
    attribution = attribute(trajectory, options.prices)
    document: dict[str, object] = {
        "spec_version": SPEC_VERSION,
        "profiles": list(PROFILES),
        "trajectory_id": trajectory.trajectory_id,
        "source": source_part(trajectory, version, options.export_time),
        "scope": scope_part(trajectory),
        "completeness": completeness_part(trajectory, losses),
        "bindings": bindings_part(trajectory, diagnosis),
        "states": states_part(),
        "nodes": nodes_part(trajectory, mode),
        "edges": edges_part(trajectory),
        "outcomes": outcomes_part(trajectory, diagnosis, attribution),
        "verifier_results": verifier_results_part(trajectory, diagnosis, version),
        "reward_records": [],
        "transform": transform_part(
            trajectory, diagnosis, mode=mode, version=version, derived_from=options.derived_from, losses=losses
        ),
        "disclosure": disclosure_part(trajectory, mode, losses),
        "rights": {**options.rights.statements(), "unknown_means": "not_granted"},
        "extensions": {
            **diagnosis_extension(trajectory, diagnosis),
            **attribution_extension(trajectory, attribution),
        },
    }
    scrubbed = scrub_document(document)
    scrubbed["integrity"] = {
        "status": "digest",
        "algorithm": DIGEST_ALGORITHM,
        "canonicalization": CANONICALIZATION,
        "scope": "the bundle without its integrity member",
        "digest": integrity_digest(scrubbed),
        "signature": "not_provided",
    }
    return scrubbed


def write_bundle(trajectory: Trajectory, diagnosis: Diagnosis, options: BundleOptions) -> bytes:
    """UTF-8 JSON bytes of the bundle, keys sorted; deterministic for the same inputs (AT-14a, AT-15a)."""
    return orjson.dumps(build_bundle(trajectory, diagnosis, options), option=orjson.OPT_SORT_KEYS)
