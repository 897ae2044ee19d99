"""The causal part of an AT bundle: ``states``, ``nodes`` and ``edges`` (AT-6.1a, AT-7, AT-8.3a, AT-9).

Nodes keep their source span references (AT-3.2a), actor and authority class (AT-9a), and lifecycle status with
proposed and committed kept apart (AT-4.5a, AT-9b). Content fields go through the content mode
(:mod:`otel_mapper.bundle.redact`); timestamps are metadata only, never order (AT-7.2a).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.bundle.common import ORDERING_EDGE_NAMES, rfc3339
from otel_mapper.bundle.redact import ContentMode, content_slot, label, reference_slot
from otel_mapper.model import Edge, ExternalParent, Node, SpanRef, Trajectory
from semconv.trajectory import NodeKind

__all__ = ["STATE_UNAVAILABLE", "edges_part", "nodes_part", "states_part"]

STATE_UNAVAILABLE: Final = "state:unavailable-at-source"
"""The one state record of a span-derived bundle: spans carry no state views, so every node's state before and
after points at an explicit "unavailable at source" record rather than at nothing (AT-5.1, AT-8.3a)."""
MAX_FINISH_REASONS: Final = 16
MAX_TOOL_DEFINITIONS: Final = 256
MAX_REFERENCES: Final = 64
_TIMING_NOTE: Final = "wall-clock metadata for display and latency; never causal order (AT-7.2a)"


def states_part() -> list[dict[str, object]]:
    return [
        {
            "state_id": STATE_UNAVAILABLE,
            "availability": "unavailable_at_source",
            "reason": "OpenTelemetry spans carry no state views, read or write sets, or state deltas",
        }
    ]


def _span_ref(ref: SpanRef) -> dict[str, str]:
    return {"trace_id": ref.trace_id, "span_id": ref.span_id}


def _node(node: Node, mode: ContentMode, external: ExternalParent | None) -> dict[str, object]:
    doc: dict[str, object] = {
        "node_id": node.id,
        "kind": node.kind.value,
        "status": node.status.value,
        "name": label(node.name),
        "actor": label(node.actor) if node.actor else None,
        "authority_class": node.authority.value,
        "convention": label(node.convention),
        "source": _span_ref(node.source),
        "references": [_span_ref(ref) for ref in node.references[:MAX_REFERENCES]],
        "invocation": node.invocation,
        "state_before": STATE_UNAVAILABLE,
        "state_after": STATE_UNAVAILABLE,
        "timing": {
            "start": rfc3339(node.start_unix_nano),
            "end": rfc3339(node.end_unix_nano),
            "semantics": _TIMING_NOTE,
        },
    }
    if node.agent_name is not None:
        doc["agent_name"] = label(node.agent_name)
    if node.tool_name is not None or node.tool_call_id is not None:
        doc["tool"] = {"name": label(node.tool_name), "call_id": label(node.tool_call_id)}
    if node.kind in (NodeKind.TOOL_PROPOSAL, NodeKind.TOOL_EXECUTION) or node.arguments is not None:
        doc["arguments"] = content_slot(node.arguments, mode)
    if node.kind is NodeKind.TOOL_EXECUTION:
        doc["result"] = (
            {"availability": "omitted", "reason": "tool results are not carried into the trajectory"}
            if node.result_visible
            else {"availability": "not_captured"}
        )
    if node.kind is NodeKind.MODEL_CALL:
        doc["output"] = reference_slot(node.output_digest, mode)
        doc["tool_definitions"] = (
            {"availability": "not_captured"}
            if node.tool_definitions is None
            else {
                "availability": "present",
                "names": sorted({label(name) or "" for name in node.tool_definitions[:MAX_TOOL_DEFINITIONS]}),
            }
        )
    if node.model is not None or node.provider is not None:
        doc["model"] = {"name": label(node.model), "provider": label(node.provider)}
    if node.usage is not None:
        doc["usage"] = {"input_tokens": node.usage.input_tokens, "output_tokens": node.usage.output_tokens}
    if node.finish_reasons:
        doc["finish_reasons"] = [label(reason) for reason in node.finish_reasons[:MAX_FINISH_REASONS]]
    if node.error_type is not None or node.error_message is not None or node.http_status is not None:
        doc["error"] = {
            "type": label(node.error_type),
            "message": content_slot(node.error_message, mode),
            "http_status": node.http_status,
        }
    if external is not None:
        doc["external_parent"] = {
            "kind": "span",
            "trace_id": external.trace_id,
            "span_id": external.span_id,
            "reason": "parent span is not in this trace; referenced, not re-hung (AT-7.3a, AT-7.3b)",
        }
    return doc


def nodes_part(trajectory: Trajectory, mode: ContentMode) -> list[dict[str, object]]:
    """Nodes in id order (array order carries no meaning, AT-14a; id order makes the bytes deterministic)."""
    external = {ref.node: ref for ref in trajectory.external_parents}
    nodes = sorted(trajectory.nodes, key=lambda node: node.id)
    return [_node(node, mode, external.get(node.id)) for node in nodes]


def _edge(edge: Edge) -> dict[str, object]:
    return {
        "from": edge.from_node,
        "type": edge.type.value,
        "to": edge.to_node,
        "evidence": label(edge.evidence),
        "orders": edge.type.value in ORDERING_EDGE_NAMES,
    }


def edges_part(trajectory: Trajectory) -> list[dict[str, object]]:
    edges = sorted(trajectory.edges, key=lambda edge: (edge.from_node, edge.type.value, edge.to_node, edge.evidence))
    return [_edge(edge) for edge in edges]
