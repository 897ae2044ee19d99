"""What the AT bundle writer and the AT consumer validator agree on: versions, vocabularies, the integrity digest.

Kept apart from the writer so the validator (which must never execute or trust what it reads, AT-16a) depends on
constants and one pure digest function only.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Final

from otel_mapper.bundle.canonical import CANONICALIZATION, DIGEST_ALGORITHM, digest
from semconv.trajectory import CAUSAL_EDGE_TYPES, DeclarationCategory, EdgeType

__all__ = [
    "AUTHORITY_OF_OUTCOME_KIND",
    "BUNDLE_SCHEMA_ID",
    "CANONICALIZATION",
    "CORE_FIELDS",
    "ATTRIBUTION_EXTENSION",
    "DIAGNOSIS_EXTENSION",
    "DIGEST_ALGORITHM",
    "IMPLEMENTATION",
    "LEDGER_SCHEMA_ID",
    "LEDGER_VERSION",
    "MATERIAL_CATEGORIES",
    "ORDERING_EDGE_NAMES",
    "PROFILES",
    "RIGHTS",
    "SPEC_VERSION",
    "SUPPORTED_EXTENSIONS",
    "SUPPORTED_PROFILES",
    "integrity_digest",
    "rfc3339",
]

SPEC_VERSION: Final = "0.1"
"""The only Agent Trajectory spec version we read or write (AT-14b)."""
PROFILES: Final = ("AT-Core", "AT-Evaluation")
"""Profiles every bundle we write claims (AT-5). AT-Training is not claimed (docs/conformance.md)."""
SUPPORTED_PROFILES: Final = frozenset(PROFILES)
IMPLEMENTATION: Final = "otel-trajectory"
BUNDLE_SCHEMA_ID: Final = "https://otel-trajectory.org/schema/at-bundle-0.1.schema.json"
LEDGER_VERSION: Final = "1.6.0"
LEDGER_SCHEMA_ID: Final = "https://otel-trajectory.org/schema/forensic-ledger-1.6.0.schema.json"

DIAGNOSIS_EXTENSION: Final = "org.otel-trajectory.diagnosis"
"""Namespace of the detector chain's findings inside ``extensions`` (AT-14c); optional for interpretation."""
ATTRIBUTION_EXTENSION: Final = "org.otel-trajectory.attribution"
"""Namespace of cost and latency attribution (critical path steps, per-model usage, retries); optional."""
SUPPORTED_EXTENSIONS: Final = frozenset({DIAGNOSIS_EXTENSION, ATTRIBUTION_EXTENSION})
"""Extensions this consumer understands; any other extension marked ``required`` is rejected (AT-14c)."""

CORE_FIELDS: Final = (
    "spec_version",
    "profiles",
    "trajectory_id",
    "source",
    "scope",
    "completeness",
    "bindings",
    "states",
    "nodes",
    "edges",
    "outcomes",
    "verifier_results",
    "reward_records",
    "transform",
    "disclosure",
    "rights",
    "integrity",
)
"""Required top-level fields (AT-6.1a); ``extensions`` is the only optional one."""

RIGHTS: Final = (
    "retention",
    "local_evaluation",
    "hosted_evaluation",
    "training",
    "redistribution_original",
    "redistribution_transformed",
)
"""The six separate rights statements of AT-13.3a."""

MATERIAL_CATEGORIES: Final = frozenset(
    {
        DeclarationCategory.CONTENT.value,
        DeclarationCategory.TOOL_PROPOSAL.value,
        DeclarationCategory.PARENT.value,
        DeclarationCategory.DUPLICATE_SPAN_ID.value,
        DeclarationCategory.PARENT_CYCLE.value,
        DeclarationCategory.ANALYSIS.value,
        DeclarationCategory.TRUNCATED.value,
        DeclarationCategory.EVENTS_IN_LOGS.value,
        DeclarationCategory.EARLY_RELEASE.value,
    }
)
"""Declaration categories whose loss is material to the AT-Core causal record: a bundle declaring one of them
can be ``partial`` or ``open``, never ``complete`` (AT-6.2c, AT-13.1b). The mapper's completeness rule uses the
same set (``otel_mapper.mapping.declarations``); state views and outcomes are declared unavailable at source instead."""

ORDERING_EDGE_NAMES: Final = frozenset(t.value for t in CAUSAL_EDGE_TYPES) | {EdgeType.SEQUENCED_AFTER.value}
"""Edge types that order two nodes; a cycle among them is a broken bundle (AT-3.3a). ``linked`` and
namespaced profile types are never read as succession (AT-4.4a)."""

AUTHORITY_OF_OUTCOME_KIND: Final[Mapping[str, frozenset[str]]] = {
    "runtime_completion": frozenset({"runtime"}),
    "terminal_classification": frozenset({"verifier"}),
    "agent_self_report": frozenset({"agent", "model"}),
    "user_acceptance": frozenset({"principal"}),
    "external_success": frozenset({"external_system"}),
}
"""Each outcome kind has its own authority; a record mixing them silently merges authorities (AT-10.1b)."""


def integrity_digest(document: Mapping[str, object]) -> str:
    """``sha256:<hex>`` over the RFC 8785 canonical JSON of the bundle without its ``integrity`` member (AT-14d)."""
    return digest({key: value for key, value in document.items() if key != "integrity"})


def rfc3339(unix_nano: int) -> str | None:
    """RFC 3339 UTC text with nanoseconds, or ``None`` for 0 / out-of-range values (timestamps are metadata)."""
    if unix_nano <= 0:
        return None
    seconds, nanos = divmod(unix_nano, 1_000_000_000)
    try:
        moment = datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{nanos:09d}Z"
