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
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields

from otel_mapper.mapping.graph import containment_intervals, encloses, strongly_connected
from otel_mapper.mapping.members import (
    AGENT_INVOCATION as _AGENT_INVOCATION,
    CAUSED_BY as _CAUSED_BY,
    DEPENDS_ON as _DEPENDS_ON,
    DISPATCHED as _DISPATCHED,
    EXECUTION_KINDS as _EXECUTION_KINDS,
    HANDOFF as _HANDOFF,
    HANDOFF_FROM as _HANDOFF_FROM,
    LINKED as _LINKED,
    MODEL_CALL as _MODEL_CALL,
    SEQUENCED_AFTER as _SEQUENCED_AFTER,
)
from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.model import Declaration, Edge
from semconv.trajectory import DeclarationCategory, DeclarationEffect, EdgeType

__all__ = ["CONTAINMENT_EVIDENCE", "EdgeSet", "LINK_TYPE_ATTRIBUTE", "ProposalNode", "derive_edges", "is_containment"]

LINK_TYPE_ATTRIBUTE = "agent_trajectory.link.type"
CONTAINMENT_EVIDENCE = "parent_span_id"
"""Evidence prefix of the ``caused_by`` edge a span's parent link became: the child runs inside its parent."""
_LINK_TYPES = {EdgeType.CAUSED_BY, EdgeType.DEPENDS_ON, EdgeType.RETRIES, EdgeType.HANDOFF_FROM}
MAX_EXECUTIONS_PER_CALL = 8
"""A consuming model call depends on at most this many executions of one tool call (framework retries)."""
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


_SET_FROM, _SET_TYPE, _SET_TO, _SET_EVIDENCE = (
    Edge.__dict__[name].__set__ for name in ("from_node", "type", "to_node", "evidence")
)
if [f.name for f in dataclass_fields(Edge)] != ["from_node", "type", "to_node", "evidence"] or hasattr(Edge, "__post_init__"):
    raise TypeError("_new_edge sets Edge's four fields itself and skips Edge.__init__: keep it in step with Edge")


def is_containment(edge: Edge) -> bool:
    """Whether ``edge`` is a span parent link (the later node ran inside the earlier one)."""
    return edge.type is _CAUSED_BY and edge.evidence.startswith(CONTAINMENT_EVIDENCE)


@dataclass(slots=True)
class ProposalNode:
    """A proposal node's join keys for edge derivation (mapper-internal; never hashed or changed)."""

    node_id: str
    model_node: str
    call_id: str | None
    name: str
    arguments_digest: str | None


def _new_edge(from_node: str, edge_type: EdgeType, to_node: str, evidence: str) -> Edge:
    """``Edge(from_node=..., type=..., to_node=..., evidence=...)`` at less than half the cost (a trace has more
    edges than spans): the frozen ``__init__`` sets each field with ``object.__setattr__``, a generic attribute
    lookup; here each slot is set through its member descriptor, where that lookup ends."""
    edge = object.__new__(Edge)
    _SET_FROM(edge, from_node)
    _SET_TYPE(edge, edge_type)
    _SET_TO(edge, to_node)
    _SET_EVIDENCE(edge, evidence)
    return edge


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
            self._edges[key] = _new_edge(from_node, edge_type, to_node, evidence)

    def add_parent(self, child: str, parent: str, evidence: str) -> None:
        if child == parent:
            return
        self.add(child, _CAUSED_BY, parent, evidence)
        self._parents.setdefault(child, parent)

    def containment_parents(self) -> dict[str, str]:
        return self._parents

    def sorted(self) -> tuple[Edge, ...]:
        # Keys are (from, type, to), unique per edge: sorting them gives the edges' own order without comparing
        # Edge objects field by field.
        return tuple(map(self._edges.__getitem__, sorted(self._edges)))

    def break_cycles(self, node_ids: Iterable[str], notes: list[Declaration]) -> None:
        """Remove the weakest edges inside each cycle until the graph is acyclic.

        Only edges whose two ends lie in the same strongly connected component are on a cycle; nodes merely
        downstream of a cycle keep their edges. Within a component every edge of its weakest present type is
        removed at once, so the result does not depend on which edge was found first.
        """
        ids = list(node_ids)
        removed = 0
        parent_cycle_nodes: set[str] = set()
        for _ in range(len(_CYCLE_REMOVAL_ORDER) + 1):
            component = strongly_connected(ids, self._edges.values())
            if component is None:
                break
            inside: dict[EdgeType, list[tuple[str, EdgeType, str]]] = defaultdict(list)
            for key, edge in self._edges.items():
                label = component.get(edge.from_node)
                if label is not None and label == component.get(edge.to_node):
                    inside[edge.type].append(key)
            # Per component, the weakest type present inside it.
            weakest: dict[int, EdgeType] = {}
            for edge_type in reversed(_CYCLE_REMOVAL_ORDER):
                for key in inside.get(edge_type, ()):
                    weakest[component[key[0]]] = edge_type
            for edge_type, keys in inside.items():
                for key in keys:
                    if weakest.get(component[key[0]]) is not edge_type:
                        continue
                    del self._edges[key]
                    removed += 1
                    if edge_type is _CAUSED_BY and self._parents.get(key[0]) == key[2]:
                        del self._parents[key[0]]
                        parent_cycle_nodes.add(key[0])
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
    _tool_call_edges(entries, proposals, nodes_by_id, edges, notes)
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
            for kv in link.attributes:
                if kv.key == LINK_TYPE_ATTRIBUTE and kv.value.string_value in _LINK_TYPES:
                    edge_type = EdgeType(kv.value.string_value)
            evidence = f"span link to {link.span_id.hex()}"
            if edge_type is not _LINKED:
                evidence += f" ({LINK_TYPE_ATTRIBUTE}={edge_type.value})"
            edges.add(entry.node_id, edge_type, target.node_id, evidence)


def _tool_call_edges(
    entries: list[SpanEntry],
    proposals: list[ProposalNode],
    nodes_by_id: dict[str, dict[str, object]],
    edges: EdgeSet,
    notes: list[Declaration],
) -> None:
    """Proposal -> model call, execution -> proposal, consuming model call -> execution.

    A tool-call id joins only when it names one proposal. Some providers reuse ids across turns; then the
    proposal whose model call shares the execution's (or consumer's) containment parent is taken if it is the
    only one, else no edge is drawn and the ambiguity is declared: guessing would invent an order.
    """
    by_call_id: dict[str, list[ProposalNode]] = defaultdict(list)
    by_name_args: dict[tuple[str, str], list[ProposalNode]] = defaultdict(list)
    by_name: dict[str, list[ProposalNode]] = defaultdict(list)
    for proposal in proposals:
        edges.add(proposal.node_id, _CAUSED_BY, proposal.model_node, "tool_call part in model output")
        if proposal.call_id:
            by_call_id[proposal.call_id].append(proposal)
        if proposal.name and proposal.arguments_digest:
            by_name_args[(proposal.name, proposal.arguments_digest)].append(proposal)
        if proposal.name:
            by_name[proposal.name].append(proposal)
    parents = edges.containment_parents()
    ambiguous: list[str] = []

    def narrow(candidates: list[ProposalNode], node: str, name: str | None) -> ProposalNode | None:
        if len(candidates) == 1:
            return candidates[0]
        parent = parents.get(node)
        close = [
            proposal
            for proposal in candidates
            if parent is not None and parents.get(proposal.model_node) == parent and (not name or proposal.name == name)
        ]
        return close[0] if len(close) == 1 else None

    executed_by_proposal: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None:
            continue
        if facts.kind not in _EXECUTION_KINDS:
            continue
        matched: ProposalNode | None = None
        evidence = ""
        if facts.tool_call_id and facts.tool_call_id in by_call_id:
            candidates = by_call_id[facts.tool_call_id]
            matched = narrow(candidates, entry.node_id, facts.tool_name)
            evidence = f"tool call id {facts.tool_call_id}"
            if len(candidates) > 1:
                evidence += " (id reused; the only proposal under the same parent)"
        elif facts.tool_name and facts.arguments is not None:
            fields = nodes_by_id[entry.node_id]
            candidates = by_name_args.get((facts.tool_name, str(fields.get("arguments_digest"))), [])
            if len(candidates) == 1:
                matched = candidates[0]
                evidence = "unique tool name and argument digest match (span carries no tool call id)"
            elif candidates:
                ambiguous.append(entry.node_id)
                continue
        elif facts.kind is _HANDOFF and facts.tool_name and facts.tool_name in by_name:
            # A handoff span records no arguments; the tool it executes is named after the target agent.
            candidates = by_name[facts.tool_name]
            if len(candidates) == 1:
                matched = candidates[0]
                evidence = f"unique proposal of handoff tool {facts.tool_name}"
            else:
                ambiguous.append(entry.node_id)
                continue
        if matched is None:
            if facts.tool_call_id and facts.tool_call_id in by_call_id:
                ambiguous.append(entry.node_id)
            continue
        edges.add(entry.node_id, _CAUSED_BY, matched.node_id, evidence)
        executed_by_proposal[matched.node_id].append(entry.node_id)

    for proposal_id, executions in executed_by_proposal.items():
        if executions:
            nodes_by_id[proposal_id]["status"] = _DISPATCHED

    for entry in entries:
        if not entry.primary or entry.node_id is None or not entry.facts.consumed_call_ids:
            continue
        if entry.facts.kind is not _MODEL_CALL:
            # Agent spans often repeat the whole conversation (contrib invoke_agent, OTel invoke_agent): their
            # input is a summary of their children's work, not something consumed before it ran.
            continue
        for call_id in dict.fromkeys(entry.facts.consumed_call_ids):
            proposed = by_call_id.get(call_id)
            if proposed is None:
                continue
            candidates = [proposal for proposal in proposed if proposal.model_node != entry.node_id]
            if not candidates:
                continue
            proposal = narrow(candidates, entry.node_id, None)
            if proposal is None:
                ambiguous.append(entry.node_id)
                continue
            executions = executed_by_proposal.get(proposal.node_id)
            for execution in (executions or [proposal.node_id])[:MAX_EXECUTIONS_PER_CALL]:
                edges.add(entry.node_id, _DEPENDS_ON, execution, f"tool result {call_id} in model input")
    if ambiguous:
        notes.append(
            Declaration(
                category=DeclarationCategory.TOOL_PROPOSAL,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="ambiguous_link",
                reason="a tool call matched several proposals (reused id, or same tool and arguments without an id);"
                " no edge was drawn rather than one guessed",
                count=len(ambiguous),
                nodes=tuple(sorted(set(ambiguous))[:32]),
            )
        )


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


def _handoff_edges(entries: list[SpanEntry], nodes_by_id: dict[str, dict[str, object]], edges: EdgeSet) -> None:
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
        if facts.kind is _HANDOFF and facts.handoff_to_agent:
            candidates = agents_by_name.get(facts.handoff_to_agent, ())
            if not candidates:
                continue
            if intervals is None:  # computed once, only for traces with handoffs
                intervals = containment_intervals(edges.containment_parents())
            # The receiving agent must not be an ancestor of the handoff itself.
            targets = [node for node in candidates if not encloses(intervals, node, entry.node_id)]
            if len(targets) == 1:
                edges.add(targets[0], _HANDOFF_FROM, entry.node_id, f"handoff to_agent={facts.handoff_to_agent}")
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
        for previous, current in zip(ordered, ordered[1:]):
            earlier = sorted(by_step[previous])[:MAX_SEQUENCE_FANIN]
            for node in by_step[current]:
                for before in earlier:
                    edges.add(node, _SEQUENCED_AFTER, before, f"runtime step {current} after {previous} ({scope})")
