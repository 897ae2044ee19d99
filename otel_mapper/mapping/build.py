"""OTLP spans of one trace -> :class:`Trajectory`.

Steps: view every span, read it with the first convention reader that claims it, merge double-instrumented
calls (:mod:`otel_mapper.mapping.entries`), make nodes and proposal nodes for tool calls a model proposed
(:mod:`otel_mapper.mapping.nodes`, as :class:`~otel_mapper.mapping.drafts.NodeDraft` until frozen), derive edges
from evidence only (:mod:`otel_mapper.mapping.edges`, :mod:`otel_mapper.mapping.tool_edges`), break cycles
(:mod:`otel_mapper.mapping.edge_set`), then declare what the mapping lost (:mod:`otel_mapper.mapping.declarations`).

The result does not depend on span arrival order: duplicates are ranked by their bytes, nodes and edges are
sorted by id, and nothing reads a timestamp to decide anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from otel_mapper.mapping.declarations import declare
from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.mapping.edge_set import EdgeSet
from otel_mapper.mapping.edges import derive_edges
from otel_mapper.mapping.entries import SpanEntry, assign_node_ids, merge_double_instrumentation, read_spans
from otel_mapper.mapping.facts import ConventionReader
from otel_mapper.mapping.graph import CausalIndex, seed_causal_index
from otel_mapper.mapping.nodes import (
    add_references,
    assign_invocations,
    node_draft,
    proposal_nodes,
    trajectory_bindings,
)
from otel_mapper.mapping.prefix import conversation_prefix_proposals
from otel_mapper.mapping.readers import default_readers
from otel_mapper.mapping.step_ids import inherit_step_call_ids
from otel_mapper.model import Declaration, ExternalParent, Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope

__all__ = ["MappingOptions", "MappingResult", "SpanEntry", "map_trace", "trajectory_id_for"]


def trajectory_id_for(trace_id_hex: str) -> str:
    return f"trace:{trace_id_hex}"


@dataclass(frozen=True, slots=True, kw_only=True)
class MappingOptions:
    revision: int = 1
    released_early: bool = False
    release_reason: str = ""
    readers: tuple[ConventionReader, ...] = field(default_factory=default_readers)
    declarations: tuple[Declaration, ...] = ()
    """Losses the caller knows of before mapping (e.g. ``events_in_logs``); added to the trajectory's own."""


@dataclass(frozen=True, slots=True)
class MappingResult:
    trajectory: Trajectory
    node_of_span: tuple[str | None, ...]
    """For each input span (by position), the node it became or was merged into."""


def map_trace(envelopes: Sequence[SpanEnvelope], options: MappingOptions | None = None) -> MappingResult:
    """Map the spans of one trace. ``envelopes`` must all carry the same trace id."""
    options = options or MappingOptions()
    if not envelopes:
        raise ValueError("map_trace needs at least one span")
    trace_id = envelopes[0].span.trace_id.hex()
    readers = options.readers
    notes: list[Declaration] = list(options.declarations)

    entries = read_spans(envelopes, readers, notes)
    by_span_id = assign_node_ids(entries, notes)
    merge_double_instrumentation(entries, by_span_id, notes)
    inherit_step_call_ids(entries)
    conversation_prefix_proposals(entries, notes)

    nodes_by_id: dict[str, NodeDraft] = {}
    roots: set[str] = set()
    for entry in entries:
        if entry.node_id is not None and entry.primary:
            nodes_by_id[entry.node_id] = node_draft(entry, entry.node_id, trace_id)
            if entry.view.parent_span_id is None:
                roots.add(entry.node_id)
    add_references(entries, nodes_by_id, trace_id)
    proposals = proposal_nodes(entries, nodes_by_id)

    edges = EdgeSet()
    external = derive_edges(entries, by_span_id, proposals, nodes_by_id, edges, notes)
    edges.break_cycles(nodes_by_id.keys(), notes)

    assign_invocations(nodes_by_id, edges)
    nodes = tuple(nodes_by_id[node_id].freeze() for node_id in sorted(nodes_by_id))
    edge_tuple = edges.sorted()
    external_parents = tuple(
        sorted(
            (ExternalParent(node=node, trace_id=trace_id, span_id=parent) for node, parent in external),
            key=lambda ref: (ref.node, ref.span_id),
        )
    )
    built: list[CausalIndex] = []

    def index() -> CausalIndex:
        if not built:
            built.append(CausalIndex.build((node.id for node in nodes), edge_tuple))
        return built[0]

    declarations, completeness = declare(
        causal_index=index,
        nodes=nodes,
        edges=edge_tuple,
        entries=entries,
        external_parents=external_parents,
        parents=edges.containment_parents(),
        notes=notes,
        released_early=options.released_early,
        release_reason=options.release_reason,
    )
    trajectory = Trajectory(
        trace_id=trace_id,
        trajectory_id=trajectory_id_for(trace_id),
        revision=options.revision,
        nodes=nodes,
        edges=edge_tuple,
        declarations=declarations,
        bindings=trajectory_bindings(entries, nodes),
        completeness=completeness,
        span_count=len(envelopes),
        external_parents=external_parents,
        root_node_ids=tuple(sorted(roots)),
        released_early=options.released_early,
    )
    if built:
        seed_causal_index(trajectory, built[0])
    return MappingResult(trajectory=trajectory, node_of_span=tuple(entry.node_id for entry in entries))


