"""Trajectory + diagnosis -> a Forensic Ledger v1.6.0 packet (seeds/001).

The ledger wants chronological lists (``conversation_history``, ``protocol_sequence``, ``causal_chain``); a
trajectory is a partial order whose concurrent nodes have no order at all (AT-7.2b). We serialise in a
deterministic display order — causal depth, then node id — and say so in the packet's ``ordering`` field: the
order is approximated, and it is never read back as causality. Timestamps stay metadata.

What spans cannot provide is declared, not faked: ``state_snapshots`` and ``resource_telemetry`` are empty and
listed in ``declarations`` as unavailable at source. Content goes through the content mode, every string through
the secret scrubber, exactly as in the AT bundle.
"""

from __future__ import annotations

from typing import Final

import orjson

from otel_mapper.attribution import Attribution, PriceTable, attribute
from otel_mapper.bundle.common import LEDGER_VERSION
from otel_mapper.bundle.redact import ContentMode, content_slot, label
from otel_mapper.bundle.scrub_documents import scrub_document
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.mapping.graph import causal_index
from otel_mapper.model import Node, Trajectory
from semconv.trajectory import NodeKind

__all__ = ["MAX_HISTORY", "build_ledger", "write_ledger"]

MAX_HISTORY: Final = 2_000
"""Entries of ``conversation_history`` written; the rest are counted in a declaration."""
MAX_CHAIN: Final = 1_000
_ORDER_BASIS: Final = "causal depth, then node id"

_ROLE: Final[dict[NodeKind, str]] = {
    NodeKind.AGENT_INVOCATION: "agent",
    NodeKind.MODEL_CALL: "assistant",
    NodeKind.TOOL_PROPOSAL: "assistant",
    NodeKind.TOOL_EXECUTION: "tool",
    NodeKind.HANDOFF: "agent",
    NodeKind.GUARDRAIL: "system",
    NodeKind.RETRIEVAL: "tool",
    NodeKind.WORKFLOW_STEP: "system",
    NodeKind.OTHER: "system",
}


def _identity(node: Node) -> str:
    """The acting identity for attribution: the node's actor, else one derived from what it is."""
    if node.actor:
        return node.actor
    if node.kind is NodeKind.MODEL_CALL and node.model:
        return f"model:{node.model}"
    if node.kind in (NodeKind.TOOL_EXECUTION, NodeKind.TOOL_PROPOSAL) and node.tool_name:
        return f"tool:{node.tool_name}"
    if node.agent_name:
        return f"agent:{node.agent_name}"
    return f"runtime:{node.convention or 'unknown'}"


def _content(node: Node, mode: ContentMode) -> dict[str, object]:
    content: dict[str, object] = {
        "node_id": node.id,
        "kind": node.kind.value,
        "status": node.status.value,
        "name": label(node.name),
    }
    if node.tool_name is not None:
        content["tool"] = label(node.tool_name)
    if node.kind in (NodeKind.TOOL_PROPOSAL, NodeKind.TOOL_EXECUTION) or node.arguments is not None:
        content["arguments"] = content_slot(node.arguments, mode)
    if node.model is not None:
        content["model"] = label(node.model)
    if node.error_type is not None or node.error_message is not None:
        content["error"] = {"type": label(node.error_type), "message": content_slot(node.error_message, mode)}
    return content


def _display_order(trajectory: Trajectory) -> list[Node]:
    index = causal_index(trajectory)
    return sorted(trajectory.nodes, key=lambda node: (index.depth.get(node.id, 0), node.id))


def build_ledger(
    trajectory: Trajectory,
    diagnosis: Diagnosis,
    *,
    content_mode: ContentMode = "digest",
    prices: PriceTable | None = None,
) -> dict[str, object]:
    """The packet as a JSON-ready dict (scrubbed)."""
    attribution = attribute(trajectory, prices)
    ordered = _display_order(trajectory)
    position = {node.id: turn for turn, node in enumerate(ordered)}
    shown = ordered[:MAX_HISTORY]
    model_calls = [node for node in trajectory.nodes if node.kind is NodeKind.MODEL_CALL]
    declarations: list[dict[str, object]] = [
        {"field": "state_snapshots", "status": "unavailable_at_source", "reason": "spans carry no environment state"},
        {"field": "resource_telemetry", "status": "unavailable_at_source", "reason": "spans carry no cpu/memory samples"},
    ]
    if len(ordered) > MAX_HISTORY:
        declarations.append(
            {"field": "conversation_history", "status": "truncated",
             "reason": f"first {MAX_HISTORY} of {len(ordered)} nodes in display order"}
        )
    keyed_chain: list[tuple[int, int, dict[str, object]]] = []
    for ranked in diagnosis.chain[:MAX_CHAIN]:
        node = trajectory.node(ranked.finding.node_id)
        start = node.start_unix_nano if node is not None else 0
        turn_index = position.get(ranked.finding.node_id, -1)
        item: dict[str, object] = {
            "timestamp": start / 1e9 if start > 0 else None,
            "trigger": ranked.finding.category.value,
            "evidence": label(ranked.finding.evidence),
            "turn_index": turn_index,
            "severity": ranked.finding.severity.value,
            "rank": ranked.rank,
            "node_id": ranked.finding.node_id,
            "status": ranked.finding.status.value,
        }
        keyed_chain.append((turn_index, ranked.rank, item))
    keyed_chain.sort(key=lambda keyed: (keyed[0], keyed[1]))
    chain = [item for _, _, item in keyed_chain]
    packet: dict[str, object] = {
        "ledger_version": LEDGER_VERSION,
        "task_id": trajectory.trajectory_id,
        "attempt": trajectory.revision,
        "turns_taken": len(model_calls),
        "metrics": [
            {"name": "model_calls", "value": len(model_calls), "unit": "1"},
            {"name": "tool_executions", "value": sum(1 for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION),
             "unit": "1"},
            {"name": "input_tokens", "value": attribution.usage.input_tokens, "unit": "token"},
            {"name": "output_tokens", "value": attribution.usage.output_tokens, "unit": "token"},
            {"name": "findings", "value": diagnosis.failed_findings, "unit": "1"},
            {"name": "spans", "value": trajectory.span_count, "unit": "1"},
            *_attribution_metrics(attribution),
        ],
        "conversation_history": [
            {"identity": label(_identity(node)), "role": _ROLE.get(node.kind, "system"),
             "content": _content(node, content_mode)}
            for node in shown
        ],
        "protocol_sequence": [node.kind.value for node in shown],
        "state_snapshots": [],
        "resource_telemetry": [],
        "tool_registry": _tool_registry(trajectory),
        "diagnostic_report": {
            "root_cause": label(diagnosis.root_cause),
            "terminal_status": diagnosis.terminal_status.value,
            "verdict": diagnosis.verdict.value,
            "indeterminate": list(diagnosis.indeterminate),
            "causal_chain": chain,
        },
        "ordering": {
            "conversation_history": "approximated",
            "protocol_sequence": "approximated",
            "causal_chain": "approximated",
            "basis": _ORDER_BASIS,
            "reason": "concurrent nodes have no causal order; this display order is not causality (AT-7.2b)",
            "turn_index": "position in conversation_history",
            "timestamps": "metadata only",
        },
        "declarations": declarations,
        "content_mode": content_mode,
        "source": {"trace_id": trajectory.trace_id, "revision": trajectory.revision},
    }
    scrubbed = scrub_document(packet)
    return scrubbed


def _attribution_metrics(attribution: Attribution) -> list[dict[str, object]]:
    metrics: list[dict[str, object]] = [
        {"name": "cached_input_tokens", "value": attribution.usage.cached_input_tokens, "unit": "token"},
        {"name": "critical_path_duration", "value": round(attribution.path.duration_ns / 1e6, 6), "unit": "ms"},
        {"name": "critical_path_nodes", "value": len(attribution.path.steps), "unit": "1"},
        {"name": "retries", "value": len(attribution.retries.retries), "unit": "1"},
        {"name": "cancellations", "value": len(attribution.retries.cancellations), "unit": "1"},
    ]
    if attribution.cost_usd is not None:
        metrics.append({"name": "cost", "value": attribution.cost_usd, "unit": "USD"})
    return metrics


def _tool_registry(trajectory: Trajectory) -> dict[str, object]:
    registry: dict[str, object] = {}
    for tool in sorted(trajectory.bindings.tools, key=lambda item: (item.name, item.digest or "")):
        name = label(tool.name) or ""
        if name in registry:
            continue
        registry[name] = {
            "parameters": [],
            "description": "",
            "digest": tool.digest,
            "availability": "content_digest" if tool.digest else "name_only",
            "note": "parameters and description are not carried by spans; empty means unknown, not none",
        }
    return registry


def write_ledger(
    trajectory: Trajectory,
    diagnosis: Diagnosis,
    *,
    content_mode: ContentMode = "digest",
    prices: PriceTable | None = None,
) -> bytes:
    """UTF-8 JSON bytes of the packet, keys sorted; deterministic for the same inputs."""
    packet = build_ledger(trajectory, diagnosis, content_mode=content_mode, prices=prices)
    return orjson.dumps(packet, option=orjson.OPT_SORT_KEYS)
