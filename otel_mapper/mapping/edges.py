"""Edge derivation: every edge comes with the evidence that proves it, never from a timestamp or an array
position (DESIGN invariant 1, AT-7.2a).

Evidence, in the order applied:
1. span parent links -> ``caused_by`` (``parent_span_id``);
2. span links -> typed where the link says so (``agent_trajectory.link.type``, or the proposed
   ``gen_ai.attribution.link_type``: ``CAUSED_BY_GENERATION``, ``RETRY_OF``, ``INFORMED_BY``), else ``linked``
   (never read as succession, AT-4.4a);
3. tool-call ids: proposal ``caused_by`` the model call that output it; execution ``caused_by`` the proposal;
   the model call whose input holds the result ``depends_on`` the execution. Tool spans without an id are joined
   to a proposal only on a unique (tool name, argument digest) match;
4. ``gen_ai.request.previous_response.id`` -> ``depends_on``;
5. message content: model call B ``depends_on`` model call A when B's input holds A's output message (digests);
6. handoffs: the receiving agent ``handoff_from`` the handoff span, or the framework handoff tool whose arguments
   name it (:mod:`semconv.handoff_tools`); agent-graph parent ids;
7. authoritative runtime sequence numbers -> ``sequenced_after`` (ordering, not causation).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise
from typing import Final

from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.mapping.edge_set import EdgeSet
from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.graph import containment_intervals, encloses
from otel_mapper.mapping.members import (
    AGENT_INVOCATION as _AGENT_INVOCATION,
)
from otel_mapper.mapping.members import (
    CAUSED_BY,
)
from otel_mapper.mapping.members import (
    DEPENDS_ON as _DEPENDS_ON,
)
from otel_mapper.mapping.members import (
    HANDOFF as _HANDOFF,
)
from otel_mapper.mapping.members import (
    HANDOFF_FROM as _HANDOFF_FROM,
)
from otel_mapper.mapping.members import (
    LINKED as _LINKED,
)
from otel_mapper.mapping.members import (
    MODEL_CALL as _MODEL_CALL,
)
from otel_mapper.mapping.members import (
    SEQUENCED_AFTER as _SEQUENCED_AFTER,
)
from otel_mapper.mapping.members import (
    TOOL_EXECUTION as _TOOL_EXECUTION,
)
from otel_mapper.mapping.tool_edges import ProposalNode, tool_call_edges
from otel_mapper.model import Declaration, Edge, Trajectory
from semconv import genai
from semconv.trajectory import LINK_TYPE, EdgeType

__all__ = [
    "CONTAINMENT_EVIDENCE",
    "EdgeSet",
    "LINK_TYPE_ATTRIBUTE",
    "CONTAINMENT_CHILDREN",
    "ProposalNode",
    "containment_children",
    "derive_edges",
    "is_containment",
]

LINK_TYPE_ATTRIBUTE: Final = LINK_TYPE
CONTAINMENT_EVIDENCE: Final = "parent_span_id"
"""Evidence prefix of the ``caused_by`` edge a span's parent link became: the child runs inside its parent."""
_LINK_TYPES = {EdgeType.CAUSED_BY, EdgeType.DEPENDS_ON, EdgeType.RETRIES, EdgeType.HANDOFF_FROM}
ATTRIBUTION_LINK_TYPE: Final = genai.ATTRIBUTION_LINK_TYPE
_ATTRIBUTION_TYPES: Final = {
    # The tool call ran because of that generation (execute_tool -> inference span).
    genai.AttributionLinkType.CAUSED_BY_GENERATION.value: EdgeType.CAUSED_BY,
    # This operation retries the linked attempt.
    genai.AttributionLinkType.RETRY_OF.value: EdgeType.RETRIES,
    # The linked tool result informed this generation (inference span -> execute_tool).
    genai.AttributionLinkType.INFORMED_BY.value: EdgeType.DEPENDS_ON,
}
"""``gen_ai.attribution.link_type`` values (semantic-conventions-genai PR #370, a proposal) -> the edge they prove."""
MAX_SEQUENCE_FANIN = 16
"""A node is ``sequenced_after`` at most this many nodes of the previous runtime step."""



def is_containment(edge: Edge) -> bool:
    """Whether ``edge`` is a span parent link (the later node ran inside the earlier one)."""
    return edge.type is CAUSED_BY and edge.evidence.startswith(CONTAINMENT_EVIDENCE)


def containment_children(trajectory: Trajectory) -> dict[str, list[str]]:
    """Parent node -> the nodes whose spans are its children (span parent links only). Built once per trajectory by
    its readers through ``trajectory.derived(CONTAINMENT_CHILDREN, containment_children)``; never changed."""
    children: dict[str, list[str]] = {}
    for edge in trajectory.edges:
        if is_containment(edge):
            children.setdefault(edge.to_node, []).append(edge.from_node)
    return children


CONTAINMENT_CHILDREN: Final = "containment_children"
"""The ``Trajectory.derived`` key of :func:`containment_children`."""

def derive_edges(
    entries: list[SpanEntry],
    by_span_id: dict[str, SpanEntry],
    proposals: list[ProposalNode],
    nodes_by_id: dict[str, NodeDraft],
    edges: EdgeSet,
    notes: list[Declaration],
) -> list[tuple[str, str]]:
    """Add every evidenced edge to ``edges``; return (node, missing parent span id) pairs."""
    dropped_parent = {entry.view.span_id: entry.view.parent_span_id for entry in entries if entry.facts.drop}
    external = _parent_edges(entries, by_span_id, dropped_parent, edges)
    _link_edges(entries, by_span_id, edges)
    tool_call_edges(entries, proposals, nodes_by_id, edges, notes)
    _response_chain_edges(entries, edges)
    _content_edges(entries, edges)
    _handoff_edges(entries, edges)
    _sequence_edges(entries, edges)
    return external


def _parent_edges(
    entries: list[SpanEntry],
    by_span_id: dict[str, SpanEntry],
    dropped_parent: dict[str, str | None],
    edges: EdgeSet,
) -> list[tuple[str, str]]:
    external: list[tuple[str, str]] = []
    # Primary spans first, then merged spans by span id: a merged node's containment parent is its own span's
    # parent whatever order the spans arrived in.
    ordered = [entry for entry in entries if entry.primary]
    ordered.extend(sorted((entry for entry in entries if not entry.primary), key=lambda entry: entry.view.span_id))
    for entry in ordered:
        if entry.node_id is None:
            continue
        # A merged span's parent edge hangs the merged node where the outer span was (self-edges are skipped).
        parent_id = entry.view.parent_span_id
        hops = 0
        while parent_id is not None and parent_id not in by_span_id and parent_id in dropped_parent and hops < 64:
            parent_id = dropped_parent[parent_id]  # skip placeholder spans (e.g. Logfire pending spans)
            hops += 1
        if parent_id is None:
            continue
        parent = by_span_id.get(parent_id)
        if parent is None or parent.node_id is None:
            if entry.primary:
                external.append((entry.node_id, parent_id))
            continue
        edges.add_parent(entry.node_id, parent.node_id, f"{CONTAINMENT_EVIDENCE}={parent_id}")
    return external


def _link_edges(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], edges: EdgeSet) -> None:
    for entry in entries:
        links = entry.view.span.links
        if entry.node_id is None or not links:  # most spans have no links: no iterator over an empty field
            continue
        for link in links:
            if link.trace_id != entry.view.span.trace_id:
                continue
            target = by_span_id.get(link.span_id.hex())
            if target is None or target.node_id is None:
                continue
            edge_type = _LINKED
            attribution: str | None = None
            for kv in link.attributes:
                if kv.key == LINK_TYPE_ATTRIBUTE and kv.value.string_value in _LINK_TYPES:
                    edge_type = EdgeType(kv.value.string_value)
                elif kv.key == ATTRIBUTION_LINK_TYPE and kv.value.string_value in _ATTRIBUTION_TYPES:
                    attribution = kv.value.string_value
            evidence = f"span link to {link.span_id.hex()}"
            if edge_type is not _LINKED:
                evidence += f" ({LINK_TYPE_ATTRIBUTE}={edge_type.value})"
            elif attribution is not None:
                edge_type = _ATTRIBUTION_TYPES[attribution]
                evidence += f" ({ATTRIBUTION_LINK_TYPE}={attribution})"
            edges.add(entry.node_id, edge_type, target.node_id, evidence)



def _response_chain_edges(entries: list[SpanEntry], edges: EdgeSet) -> None:
    by_response: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.response_id and entry.facts.kind is _MODEL_CALL:
            by_response[entry.facts.response_id].append(entry.node_id)
    for entry in entries:
        previous = entry.facts.previous_response_id
        if not entry.primary or entry.node_id is None or not previous:
            continue
        producers = by_response.get(previous, [])
        if len(producers) == 1:
            edges.add(entry.node_id, _DEPENDS_ON, producers[0], f"previous_response.id={previous}")


def _content_edges(entries: list[SpanEntry], edges: EdgeSet) -> None:
    """B depends_on A when B's input holds A's output message. Only the most recent such message in B's input
    (content order of one message list, not time) gives an edge; earlier ones follow transitively through A."""
    producers: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.kind is _MODEL_CALL:
            for message_digest in set(entry.facts.messages.outputs):
                producers[message_digest].append(entry.node_id)
    if not producers:
        return
    for entry in entries:
        if not entry.primary or entry.node_id is None or entry.facts.kind is not _MODEL_CALL:
            continue
        inputs = entry.facts.messages.inputs
        for position in range(len(inputs) - 1, -1, -1):
            produced_by = producers.get(inputs[position])
            if produced_by is None:
                continue  # most input messages are prompts or tool results: no model call produced them
            sources = [node for node in produced_by if node != entry.node_id]
            if len(sources) == 1:
                edges.add(entry.node_id, _DEPENDS_ON, sources[0], f"input message {position} equals output message digest")
                break
            if len(sources) > 1:
                break  # ambiguous: the same message came out of several calls


def _handoff_edges(entries: list[SpanEntry], edges: EdgeSet) -> None:
    agents_by_name: dict[str, list[str]] = defaultdict(list)
    agents_by_graph_id: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.kind is _AGENT_INVOCATION:
            if entry.facts.agent_name:
                agents_by_name[entry.facts.agent_name].append(entry.node_id)
            if entry.facts.graph_node_id:
                agents_by_graph_id[entry.facts.graph_node_id].append(entry.node_id)
    intervals: dict[str, tuple[int, int]] | None = None
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None:
            continue
        routed = facts.kind is _AGENT_INVOCATION and facts.handoff_to_agent not in (None, facts.agent_name)
        if (facts.kind is _HANDOFF or facts.kind is _TOOL_EXECUTION or routed) and facts.handoff_to_agent:
            candidates = agents_by_name.get(facts.handoff_to_agent, ())
            if not candidates:
                continue
            if intervals is None:  # computed once, only for traces with handoffs
                intervals = containment_intervals(edges.containment_parents())
            # The receiving agent must not be an ancestor of the handoff itself.
            targets = [node for node in candidates if not encloses(intervals, node, entry.node_id)]
            if len(targets) == 1:
                how = ("handoff to_agent" if facts.kind is _HANDOFF
                       else "agent run routed to agent" if routed
                       else f"handoff tool {facts.tool_name} names agent")
                edges.add(targets[0], _HANDOFF_FROM, entry.node_id, f"{how}={facts.handoff_to_agent}")
        if facts.kind is _AGENT_INVOCATION and facts.graph_parent_id:
            sources = [node for node in agents_by_graph_id.get(facts.graph_parent_id, ()) if node != entry.node_id]
            if len(sources) == 1:
                edges.add(
                    entry.node_id,
                    _HANDOFF_FROM,
                    sources[0],
                    f"{facts.graph_parent_evidence}={facts.graph_parent_id}",
                )


def _sequence_edges(entries: list[SpanEntry], edges: EdgeSet) -> None:
    steps: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.sequence is not None:
            scope, step = entry.facts.sequence
            steps[scope][step].append(entry.node_id)
    for scope, by_step in steps.items():
        ordered = sorted(by_step)
        for previous, current in pairwise(ordered):
            earlier = sorted(by_step[previous])[:MAX_SEQUENCE_FANIN]
            for node in by_step[current]:
                for before in earlier:
                    edges.add(node, _SEQUENCED_AFTER, before, f"runtime step {current} after {previous} ({scope})")
