"""Edge derivation: every edge comes with the evidence that proves it, never from a timestamp or an array
position (DESIGN invariant 1, AT-7.2a).

Evidence, in the order applied:
1. span parent links -> ``caused_by`` (``parent_span_id``);
2. span links -> typed where the link says so, else ``linked`` (never read as succession, AT-4.4a);
3. tool-call ids: proposal ``caused_by`` the model call that output it; execution ``caused_by`` the proposal;
   the model call whose input holds the result ``depends_on`` the execution. Tool spans without an id are joined
   to a proposal only on a unique (tool name, argument digest) match;
4. ``gen_ai.request.previous_response.id`` -> ``depends_on``;
5. message content: model call B ``depends_on`` model call A when B's input holds A's output message (digests);
6. handoffs: the receiving agent ``handoff_from`` the handoff span; agent-graph parent ids;
7. authoritative runtime sequence numbers -> ``sequenced_after`` (ordering, not causation).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from otel_mapper.graph import find_cycle_nodes
from otel_mapper.model import Declaration, Edge
from semconv.trajectory import DeclarationCategory, DeclarationEffect, EdgeType, NodeKind, NodeStatus

if TYPE_CHECKING:
    from otel_mapper.build import ProposalNode, SpanEntry

__all__ = ["EdgeSet", "derive_edges", "LINK_TYPE_ATTRIBUTE"]

LINK_TYPE_ATTRIBUTE = "agent_trajectory.link.type"
_LINK_TYPES = {EdgeType.CAUSED_BY, EdgeType.DEPENDS_ON, EdgeType.RETRIES, EdgeType.HANDOFF_FROM}
MAX_SEQUENCE_FANIN = 16
"""A node is ``sequenced_after`` at most this many nodes of the previous runtime step."""

# Weakest evidence is removed first when a cycle must be broken.
_CYCLE_REMOVAL_ORDER = (
    EdgeType.LINKED,
    EdgeType.SEQUENCED_AFTER,
    EdgeType.DEPENDS_ON,
    EdgeType.HANDOFF_FROM,
    EdgeType.RETRIES,
    EdgeType.CAUSED_BY,
)


class EdgeSet:
    """Edges keyed by (from, type, to): the first evidence found for a pair is kept."""

    def __init__(self) -> None:
        self._edges: dict[tuple[str, EdgeType, str], Edge] = {}
        self._parents: dict[str, str] = {}

    def add(self, from_node: str, edge_type: EdgeType, to_node: str, evidence: str) -> None:
        if from_node == to_node:
            return
        key = (from_node, edge_type, to_node)
        if key not in self._edges:
            self._edges[key] = Edge(from_node=from_node, type=edge_type, to_node=to_node, evidence=evidence)

    def add_parent(self, child: str, parent: str, evidence: str) -> None:
        if child == parent:
            return
        self.add(child, EdgeType.CAUSED_BY, parent, evidence)
        self._parents.setdefault(child, parent)

    def containment_parents(self) -> dict[str, str]:
        return self._parents

    def sorted(self) -> tuple[Edge, ...]:
        return tuple(sorted(self._edges.values()))

    def break_cycles(self, node_ids: Iterable[str], notes: list[Declaration]) -> None:
        """Remove the weakest edges among nodes that cannot be ordered, until the graph is acyclic."""
        ids = list(node_ids)
        removed = 0
        parent_cycle_nodes: set[str] = set()
        for _ in range(len(_CYCLE_REMOVAL_ORDER) + 1):
            stuck = find_cycle_nodes(ids, self._edges.values())
            if not stuck:
                break
            for edge_type in _CYCLE_REMOVAL_ORDER:
                victims = [
                    key
                    for key, edge in self._edges.items()
                    if edge.type is edge_type and edge.from_node in stuck and edge.to_node in stuck
                ]
                if victims:
                    for key in victims:
                        del self._edges[key]
                        if edge_type is EdgeType.CAUSED_BY and self._parents.get(key[0]) == key[2]:
                            del self._parents[key[0]]
                            parent_cycle_nodes.add(key[0])
                    removed += len(victims)
                    break
        if removed:
            notes.append(
                Declaration(
                    category=DeclarationCategory.PARENT_CYCLE,
                    effect=DeclarationEffect.DROPPED,
                    qualifier="cycle_broken",
                    reason="edges on a cycle were removed (weakest evidence first); the nodes are left unordered",
                    count=removed,
                    nodes=tuple(sorted(parent_cycle_nodes)[:32]),
                )
            )


def derive_edges(
    entries: list[SpanEntry],
    by_span_id: dict[str, SpanEntry],
    proposals: list[ProposalNode],
    nodes_by_id: dict[str, dict[str, object]],
    edges: EdgeSet,
    notes: list[Declaration],
) -> list[tuple[str, str]]:
    """Add every evidenced edge to ``edges``; return (node, missing parent span id) pairs."""
    dropped_parent = {entry.view.span_id: entry.view.parent_span_id for entry in entries if entry.facts.drop}
    external = _parent_edges(entries, by_span_id, dropped_parent, edges)
    _link_edges(entries, by_span_id, edges)
    _tool_call_edges(entries, proposals, nodes_by_id, edges)
    _response_chain_edges(entries, edges)
    _content_edges(entries, edges)
    _handoff_edges(entries, nodes_by_id, edges)
    _sequence_edges(entries, edges)
    return external


def _parent_edges(
    entries: list[SpanEntry],
    by_span_id: dict[str, SpanEntry],
    dropped_parent: dict[str, str | None],
    edges: EdgeSet,
) -> list[tuple[str, str]]:
    external: list[tuple[str, str]] = []
    for entry in entries:
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
        edges.add_parent(entry.node_id, parent.node_id, f"parent_span_id={parent_id}")
    return external


def _link_edges(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], edges: EdgeSet) -> None:
    for entry in entries:
        if entry.node_id is None:
            continue
        for link in entry.view.span.links:
            if link.trace_id != entry.view.span.trace_id:
                continue
            target = by_span_id.get(link.span_id.hex())
            if target is None or target.node_id is None:
                continue
            edge_type = EdgeType.LINKED
            for kv in link.attributes:
                if kv.key == LINK_TYPE_ATTRIBUTE and kv.value.string_value in _LINK_TYPES:
                    edge_type = EdgeType(kv.value.string_value)
            evidence = f"span link to {link.span_id.hex()}"
            if edge_type is not EdgeType.LINKED:
                evidence += f" ({LINK_TYPE_ATTRIBUTE}={edge_type.value})"
            edges.add(entry.node_id, edge_type, target.node_id, evidence)


def _tool_call_edges(
    entries: list[SpanEntry],
    proposals: list[ProposalNode],
    nodes_by_id: dict[str, dict[str, object]],
    edges: EdgeSet,
) -> None:
    by_call_id: dict[str, list[ProposalNode]] = defaultdict(list)
    by_name_args: dict[tuple[str, str], list[ProposalNode]] = defaultdict(list)
    for proposal in proposals:
        edges.add(proposal.node_id, EdgeType.CAUSED_BY, proposal.model_node, "tool_call part in model output")
        if proposal.call_id:
            by_call_id[proposal.call_id].append(proposal)
        if proposal.name and proposal.arguments_digest:
            by_name_args[(proposal.name, proposal.arguments_digest)].append(proposal)

    executed_by_proposal: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None:
            continue
        if facts.kind not in (NodeKind.TOOL_EXECUTION, NodeKind.HANDOFF):
            continue
        matched: list[ProposalNode] = []
        evidence = ""
        if facts.tool_call_id and facts.tool_call_id in by_call_id:
            matched = by_call_id[facts.tool_call_id]
            evidence = f"tool call id {facts.tool_call_id}"
        elif facts.tool_name and facts.arguments is not None:
            fields = nodes_by_id[entry.node_id]
            candidates = by_name_args.get((facts.tool_name, str(fields.get("arguments_digest"))), [])
            if len(candidates) == 1:
                matched = candidates
                evidence = "unique tool name and argument digest match (span carries no tool call id)"
        for proposal in matched:
            edges.add(entry.node_id, EdgeType.CAUSED_BY, proposal.node_id, evidence)
            executed_by_proposal[proposal.node_id].append(entry.node_id)

    for proposal_id, executions in executed_by_proposal.items():
        if executions:
            nodes_by_id[proposal_id]["status"] = NodeStatus.DISPATCHED

    for entry in entries:
        if not entry.primary or entry.node_id is None or not entry.facts.consumed_call_ids:
            continue
        for call_id in entry.facts.consumed_call_ids:
            for proposal in by_call_id.get(call_id, ()):
                if proposal.model_node == entry.node_id:
                    continue
                executions = executed_by_proposal.get(proposal.node_id)
                if executions:
                    for execution in executions:
                        edges.add(entry.node_id, EdgeType.DEPENDS_ON, execution, f"tool result {call_id} in model input")
                else:
                    edges.add(entry.node_id, EdgeType.DEPENDS_ON, proposal.node_id, f"tool result {call_id} in model input")


def _response_chain_edges(entries: list[SpanEntry], edges: EdgeSet) -> None:
    by_response: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.response_id and entry.facts.kind is NodeKind.MODEL_CALL:
            by_response[entry.facts.response_id].append(entry.node_id)
    for entry in entries:
        previous = entry.facts.previous_response_id
        if not entry.primary or entry.node_id is None or not previous:
            continue
        producers = by_response.get(previous, [])
        if len(producers) == 1:
            edges.add(entry.node_id, EdgeType.DEPENDS_ON, producers[0], f"previous_response.id={previous}")


def _content_edges(entries: list[SpanEntry], edges: EdgeSet) -> None:
    """B depends_on A when B's input holds A's output message. Only the most recent such message in B's input
    (content order of one message list, not time) gives an edge; earlier ones follow transitively through A."""
    producers: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.kind is NodeKind.MODEL_CALL:
            for message_digest in set(entry.facts.messages.outputs):
                producers[message_digest].append(entry.node_id)
    if not producers:
        return
    for entry in entries:
        if not entry.primary or entry.node_id is None or entry.facts.kind is not NodeKind.MODEL_CALL:
            continue
        inputs = entry.facts.messages.inputs
        for position in range(len(inputs) - 1, -1, -1):
            sources = [node for node in producers.get(inputs[position], ()) if node != entry.node_id]
            if len(sources) == 1:
                edges.add(entry.node_id, EdgeType.DEPENDS_ON, sources[0], f"input message {position} equals output message digest")
                break
            if len(sources) > 1:
                break  # ambiguous: the same message came out of several calls


def _handoff_edges(entries: list[SpanEntry], nodes_by_id: dict[str, dict[str, object]], edges: EdgeSet) -> None:
    agents_by_name: dict[str, list[str]] = defaultdict(list)
    agents_by_graph_id: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.kind is NodeKind.AGENT_INVOCATION:
            if entry.facts.agent_name:
                agents_by_name[entry.facts.agent_name].append(entry.node_id)
            if entry.facts.graph_node_id:
                agents_by_graph_id[entry.facts.graph_node_id].append(entry.node_id)
    parents = edges.containment_parents()
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None:
            continue
        if facts.kind is NodeKind.HANDOFF and facts.handoff_to_agent:
            # The receiving agent must not be an ancestor of the handoff itself.
            ancestors: set[str] = set()
            current = parents.get(entry.node_id)
            while current is not None and current not in ancestors and len(ancestors) < 10_000:
                ancestors.add(current)
                current = parents.get(current)
            targets = [node for node in agents_by_name.get(facts.handoff_to_agent, ()) if node not in ancestors]
            if len(targets) == 1:
                edges.add(targets[0], EdgeType.HANDOFF_FROM, entry.node_id, f"handoff to_agent={facts.handoff_to_agent}")
        if facts.kind is NodeKind.AGENT_INVOCATION and facts.graph_parent_id:
            sources = [node for node in agents_by_graph_id.get(facts.graph_parent_id, ()) if node != entry.node_id]
            if len(sources) == 1:
                edges.add(entry.node_id, EdgeType.HANDOFF_FROM, sources[0], f"graph.node.parent_id={facts.graph_parent_id}")


def _sequence_edges(entries: list[SpanEntry], edges: EdgeSet) -> None:
    steps: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for entry in entries:
        if entry.primary and entry.node_id and entry.facts.sequence is not None:
            scope, step = entry.facts.sequence
            steps[scope][step].append(entry.node_id)
    for scope, by_step in steps.items():
        ordered = sorted(by_step)
        for previous, current in zip(ordered, ordered[1:]):
            earlier = sorted(by_step[previous])[:MAX_SEQUENCE_FANIN]
            for node in by_step[current]:
                for before in earlier:
                    edges.add(node, EdgeType.SEQUENCED_AFTER, before, f"runtime step {current} after {previous} ({scope})")
