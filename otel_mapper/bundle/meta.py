"""The descriptive parts of an AT bundle: source, scope, completeness, bindings, outcomes, verifier results,
reward records, transform, disclosure and the diagnosis extension.

Each builder is a small pure function of the trajectory, the diagnosis and the options; the writer
(:mod:`otel_mapper.bundle.writer`) assembles them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from otel_mapper.attribution import Attribution
from otel_mapper.bundle.attribution_part import resources_part
from otel_mapper.bundle.common import DIAGNOSIS_EXTENSION, IMPLEMENTATION, MATERIAL_CATEGORIES
from otel_mapper.bundle.redact import SCRUBBER_VERSION, ContentMode, label, scrub
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import CompletenessStatus, Declaration, Trajectory
from semconv.trajectory import DeclarationEffect, NodeKind, NodeStatus, is_immaterial_declaration

__all__ = [
    "MAX_LIST",
    "bindings_part",
    "completeness_part",
    "content_redacted",
    "diagnosis_extension",
    "disclosure_part",
    "outcomes_part",
    "scope_part",
    "source_part",
    "transform_part",
    "verifier_results_part",
]

MAX_LIST: Final = 256
"""Bound on identity lists (agents, models, tools, evidence references) copied into a bundle."""
SELECTION_RULE: Final = "all spans of one trace id"
_ID_UNSAFE: Final = re.compile(r"[^A-Za-z0-9:._#/@+-]")
_UNCONTROLLED: Final = (
    "task identity",
    "environment version",
    "harness package",
    "model decoding configuration",
    "policy revision",
)
"""AT-Evaluation asks for uncontrolled or unavailable variables to be declared (AT-5.2); spans name none of these."""
_RUNTIME_STATUS: Final = {
    NodeStatus.COMMITTED: "completed",
    NodeStatus.FAILED: "failed",
    NodeStatus.CANCELLED: "cancelled",
}


def _labels(values: Iterable[str]) -> list[str]:
    return sorted({label(value) or "" for value in values})[:MAX_LIST]


def authority_domain(trajectory: Trajectory) -> str:
    """The service (resource) identity the spans came from; never hosts, addresses or credentials (AT-6.2a)."""
    services = _labels(trajectory.bindings.services)
    return "otel-service:" + ",".join(services) if services else "otel-service:unknown"


def source_part(trajectory: Trajectory, version: str, export_time: str | None) -> dict[str, object]:
    doc: dict[str, object] = {
        "implementation": IMPLEMENTATION,
        "implementation_version": version,
        "exporter": f"{IMPLEMENTATION} AT exporter",
        "exporter_version": version,
        "source_kind": "opentelemetry_trace",
        "authority_domain": authority_domain(trajectory),
        "source_cursor": {"trace_id": trajectory.trace_id, "span_count": trajectory.span_count},
        "revision": trajectory.revision,
    }
    if export_time is not None:
        doc["export_time"] = export_time
    return doc


def scope_part(trajectory: Trajectory) -> dict[str, object]:
    return {
        "selection": SELECTION_RULE,
        "boundary": {"trace_id": trajectory.trace_id, "released_early": trajectory.released_early},
        "agents": _labels(trajectory.bindings.agents),
        "root_nodes": sorted(trajectory.root_node_ids)[:MAX_LIST],
    }


def content_redacted(trajectory: Trajectory, mode: ContentMode) -> bool:
    """Whether the content mode actually removed content that this trajectory carried."""
    if mode == "keep":
        return False
    return any(node.arguments is not None or node.error_message is not None for node in trajectory.nodes) or (
        mode == "drop" and any(node.output_digest is not None for node in trajectory.nodes)
    )


def lossy_mappings(trajectory: Trajectory, mode: ContentMode) -> list[dict[str, object]]:
    """The mapping's declarations (AT-15c) plus the export's own redaction, each marked material or not."""
    items = [_declaration(declaration) for declaration in trajectory.declarations]
    if content_redacted(trajectory, mode):
        items.append(
            {
                "category": "content",
                "effect": DeclarationEffect.DROPPED.value,
                "qualifier": "redacted",
                "reason": f"content fields exported with content_mode={mode}",
                "count": None,
                "nodes": [],
                "material": True,
            }
        )
    items.sort(key=lambda item: (str(item["category"]), str(item["qualifier"]), str(item["reason"])))
    return items


def _declaration(declaration: Declaration) -> dict[str, object]:
    return {
        "category": declaration.category.value,
        "effect": declaration.effect.value,
        "qualifier": label(declaration.qualifier),
        "reason": label(declaration.reason),
        "count": declaration.count,
        "nodes": list(declaration.nodes[:MAX_LIST]),
        "material": declaration.category.value in MATERIAL_CATEGORIES
        and not is_immaterial_declaration(declaration.category.value, declaration.qualifier),
    }


def completeness_part(trajectory: Trajectory, losses: Sequence[dict[str, object]]) -> dict[str, object]:
    """The mapper's claim, downgraded (never upgraded, AT-13.1b) when a material loss is declared (AT-6.2c)."""
    material = sorted({str(item["category"]) for item in losses if item["material"]})
    status = trajectory.completeness.status
    qualifier = label(trajectory.completeness.qualifier) or ""
    if status is CompletenessStatus.COMPLETE and material:
        status = CompletenessStatus.PARTIAL
        qualifier = "material losses declared: " + ", ".join(material)
    return {"status": status.value, "qualifier": qualifier, "material_losses": material}


def _group(values: list[object], empty: str, reason: str = "") -> dict[str, object]:
    if values:
        return {"availability": "known", "values": values}
    doc: dict[str, object] = {"availability": empty, "values": []}
    if reason:
        doc["reason"] = reason
    return doc


def bindings_part(trajectory: Trajectory, diagnosis: Diagnosis) -> dict[str, object]:
    """Known identities, with ``unknown`` (not recorded), ``none`` (known not to exist) kept apart (AT-6.3a)."""
    bindings = trajectory.bindings
    model_calls = [node for node in trajectory.nodes if node.kind is NodeKind.MODEL_CALL]
    no_models = "unknown" if model_calls else "none"
    tools_declared = [node.tool_definitions for node in model_calls if node.tool_definitions is not None]
    no_tools = "none" if tools_declared and not any(tools_declared) else "unknown"
    tools: list[object] = [
        {"name": label(tool.name), "digest": tool.digest, "identity": "content_digest" if tool.digest else "name_only"}
        for tool in sorted(bindings.tools, key=lambda tool: (tool.name, tool.digest or ""))[:MAX_LIST]
    ]
    detectors: list[object] = [
        {"name": label(result.verifier), "version": label(result.version)}
        for result in sorted(diagnosis.verifier_results, key=lambda result: (result.verifier, result.version))
    ]
    not_in_spans = "spans do not identify it"
    return {
        "services": _group(list(_labels(bindings.services)), "unknown", "no service.name resource attribute"),
        "agents": _group(list(_labels(bindings.agents)), "unknown", "no agent name recorded"),
        "models": _group(list(_labels(bindings.models)), no_models),
        "providers": _group(list(_labels(bindings.providers)), no_models),
        "tools": _group(tools, no_tools),
        "conventions": _group(list(_labels(bindings.conventions)), "unknown"),
        "detectors": _group(detectors, "none"),
        "task": {"availability": "unknown", "reason": not_in_spans},
        "environment": {"availability": "unknown", "reason": not_in_spans},
        "harness": {"availability": "unknown", "reason": not_in_spans},
        "decoding": {"availability": "unknown", "reason": not_in_spans},
        "uncontrolled_variables": list(_UNCONTROLLED),
    }


def _unavailable(outcome_id: str, kind: str, authority: str, scope: str, reason: str) -> dict[str, object]:
    return {
        "outcome_id": outcome_id,
        "outcome_kind": kind,
        "scope": scope,
        "producer": "none",
        "authority_class": authority,
        "status": "unavailable",
        "availability": "unavailable_at_source",
        "terminal": None,
        "evidence_refs": [],
        "raised_by": {"kind": "boundary", "ref": SELECTION_RULE},
        "invalidated_by": [],
        "reason": reason,
    }


def outcomes_part(trajectory: Trajectory, diagnosis: Diagnosis, attribution: Attribution) -> list[dict[str, object]]:
    """Runtime completion per root, the detector chain's terminal classification, and explicit absences of
    agent self-report, user acceptance and external success, each under its own authority (AT-10.1a/b)."""
    scope = trajectory.trajectory_id
    terminal = trajectory.completeness.status is not CompletenessStatus.OPEN
    producer = "runtime:" + authority_domain(trajectory)
    outcomes: list[dict[str, object]] = []
    roots = sorted(root for root in trajectory.root_node_ids if trajectory.node(root) is not None)
    for root in roots[:MAX_LIST]:
        node = trajectory.node(root)
        assert node is not None
        outcomes.append(
            {
                "outcome_id": f"outcome:runtime:{root}",
                "outcome_kind": "runtime_completion",
                "scope": scope,
                "producer": producer,
                "authority_class": "runtime",
                "status": _RUNTIME_STATUS.get(node.status, "unknown"),
                "availability": "present",
                "terminal": terminal,
                "evidence_refs": [root],
                "raised_by": {"kind": "node", "ref": root},
                "invalidated_by": [],
                "reason": "span status of a root span: the call finished, not that the objective was achieved",
            }
        )
    if not roots:
        outcomes.append(
            _unavailable("outcome:runtime", "runtime_completion", "runtime", scope, "no root span in this trace")
        )
    evidence = sorted({ranked.finding.node_id for ranked in diagnosis.chain if trajectory.node(ranked.finding.node_id)})
    outcomes.append(
        {
            "outcome_id": "outcome:terminal-classification",
            "outcome_kind": "terminal_classification",
            "scope": scope,
            "producer": f"{IMPLEMENTATION} detector chain",
            "authority_class": "verifier",
            "status": diagnosis.terminal_status.value,
            "availability": "present",
            "terminal": terminal,
            "evidence_refs": evidence[:MAX_LIST],
            "raised_by": {"kind": "boundary", "ref": SELECTION_RULE},
            "invalidated_by": [],
            "reason": "how the run ended, classified from node statuses and findings",
            "termination_reason": label(diagnosis.root_cause),
            "resources": resources_part(trajectory, attribution),
        }
    )
    outcomes.append(
        _unavailable(
            "outcome:agent-self-report", "agent_self_report", "agent", scope, "spans carry no agent self-report"
        )
    )
    outcomes.append(
        _unavailable("outcome:user-acceptance", "user_acceptance", "principal", scope, "spans carry no user verdict")
    )
    outcomes.append(
        _unavailable(
            "outcome:external-success", "external_success", "external_system", scope, "no external success report"
        )
    )
    return outcomes


def verifier_results_part(trajectory: Trajectory, diagnosis: Diagnosis, version: str) -> list[dict[str, object]]:
    """One record per detector (AT-10.2a); scope is this trajectory only (AT-10.2b)."""
    evidence: dict[str, set[str]] = {}
    for ranked in diagnosis.chain:
        if trajectory.node(ranked.finding.node_id) is not None:
            evidence.setdefault(ranked.finding.detector, set()).add(ranked.finding.node_id)
    results: list[dict[str, object]] = []
    seen: dict[str, int] = {}
    for result in diagnosis.verifier_results:
        base = "verify:" + _ID_UNSAFE.sub("_", scrub(result.verifier))[:64]
        seen[base] = seen.get(base, 0) + 1
        result_id = base if seen[base] == 1 else f"{base}#{seen[base]}"
        results.append(
            {
                "verifier_result_id": result_id,
                "verifier": label(result.verifier),
                "version": label(result.version),
                "checked_property": label(result.checked_property),
                "scope": trajectory.trajectory_id,
                "input_evidence": "nodes and edges of this bundle",
                "evidence_refs": sorted(evidence.get(result.verifier, ()))[:MAX_LIST],
                "environment": {"implementation": IMPLEMENTATION, "implementation_version": version},
                "status": result.status.value,
                "output": {"summary": label(result.output, 1024), "findings": result.findings},
                "invalidates": [],
            }
        )
    return results


def transform_part(
    trajectory: Trajectory,
    diagnosis: Diagnosis,
    *,
    mode: ContentMode,
    version: str,
    derived_from: str | None,
    losses: list[dict[str, object]],
) -> dict[str, object]:
    """Lineage and every material operation (AT-13.1a), with the lossy-mapping declarations (AT-15c)."""
    detectors = ", ".join(f"{r.verifier}@{r.version}" for r in diagnosis.verifier_results) or "none"
    conventions = ", ".join(_labels(trajectory.bindings.conventions)) or "unknown"
    operations: list[dict[str, str]] = [
        {"operation": "selection", "detail": SELECTION_RULE},
        {"operation": "normalization", "detail": f"spans mapped to causal nodes and typed edges ({conventions})"},
        {"operation": "labeling", "detail": f"detector chain: {detectors}"},
        {"operation": "redaction", "detail": f"content_mode={mode}"},
        {"operation": "secret_scrubbing", "detail": f"scrubber v{SCRUBBER_VERSION}; secrets replaced, never digested"},
    ]
    if derived_from is not None:
        operations.append({"operation": "revision", "detail": f"supersedes {label(derived_from)}"})
    return {
        "exporter": f"{IMPLEMENTATION}@{version}",
        "exporter_version": version,
        "source": {"kind": "opentelemetry_trace", "trace_id": trajectory.trace_id, "revision": trajectory.revision},
        "derived_from": label(derived_from),
        "operations": operations,
        "lossy_mappings": losses,
        "nondeterminism": "none: same spans and options give the same bytes; export_time is metadata only",
    }


def disclosure_part(trajectory: Trajectory, mode: ContentMode, losses: list[dict[str, object]]) -> dict[str, object]:
    omitted = sorted({str(item["category"]) for item in losses if item["effect"] == DeclarationEffect.DROPPED.value})
    return {
        "content_mode": mode,
        "content_fields": ["nodes[].arguments", "nodes[].error.message", "nodes[].output", "nodes[].result"],
        "redaction_marker": 'a content object with "availability": "redacted" (distinct from not_captured, '
        "omitted, referenced and present values)",
        "secret_scrubbing": {
            "applied": True,
            "scrubber_version": SCRUBBER_VERSION,
            "marker": "[REDACTED:<kind>]",
            "digests_of_secrets": "never published",
        },
        "private_reasoning": "not_collected",
        "omitted_categories": omitted,
        "absences": [
            {"field": "reward_records", "status": "not_provided", "reason": "traces carry no reward records"},
            {"field": "states", "status": "unavailable_at_source", "reason": "spans carry no state views"},
        ],
        "infrastructure_detail": "withheld: no hosts, addresses or credentials; authority is the service identity",
    }


def diagnosis_extension(trajectory: Trajectory, diagnosis: Diagnosis) -> dict[str, object]:
    """Findings of the detector chain under our namespace (AT-14c); not required to interpret the bundle."""
    chain = [
        {
            "rank": ranked.rank,
            "category": ranked.finding.category.value,
            "severity": ranked.finding.severity.value,
            "status": ranked.finding.status.value,
            "node_id": ranked.finding.node_id,
            "span_id": ranked.span_id,
            "causal_depth": ranked.causal_depth,
            "detector": label(ranked.finding.detector),
            "detector_version": label(ranked.finding.detector_version),
            "evidence": label(ranked.finding.evidence),
            "related_nodes": list(ranked.finding.related_nodes[:MAX_LIST]),
            "recovered": ranked.finding.recovered,
        }
        for ranked in sorted(diagnosis.chain, key=lambda item: (item.rank, item.finding.node_id))
    ]
    return {
        DIAGNOSIS_EXTENSION: {
            "required": False,
            "verdict": diagnosis.verdict.value,
            "root_cause": label(diagnosis.root_cause),
            "terminal_status": diagnosis.terminal_status.value,
            "causal_chain": chain[:MAX_LIST * 4],
            "drift": {
                "verdict": diagnosis.drift.verdict.value,
                "dimensions": _labels(diagnosis.drift.dimensions),
                "detail": label(diagnosis.drift.detail),
            },
            "error": label(diagnosis.error, 1024),
        }
    }
