"""Edges joined by tool calls: a proposal ``caused_by`` the model call that output it, an execution
``caused_by`` the proposal it ran, and the model call whose input holds the result ``depends_on`` the execution.

How an execution finds its proposal, in order, each named on the edge: the tool-call id (from the convention's
attribute, or where the reader found it: a span event, the tool's output); a unique (tool name, argument digest)
match, narrowed when needed to the one proposal whose model call shares the execution's parent span (a framework's
per-turn span holds one model call and the tools it asked for); a single-input tool whose plain-text input is the
proposal's only argument; a handoff by its tool name. Tool names match as written, else in function style.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Final

from otel_mapper.bundle.canonical import digest_text
from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.mapping.edge_set import EdgeSet
from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import (
    AGENT_INVOCATION as _AGENT_INVOCATION,
)
from otel_mapper.mapping.members import (
    CAUSED_BY as _CAUSED_BY,
)
from otel_mapper.mapping.members import (
    DEPENDS_ON as _DEPENDS_ON,
)
from otel_mapper.mapping.members import (
    DISPATCHED as _DISPATCHED,
)
from otel_mapper.mapping.members import (
    EXECUTION_KINDS as _EXECUTION_KINDS,
)
from otel_mapper.mapping.members import (
    HANDOFF as _HANDOFF,
)
from otel_mapper.mapping.members import (
    MODEL_CALL as _MODEL_CALL,
)
from otel_mapper.mapping.members import (
    TOOL_EXECUTION as _TOOL_EXECUTION,
)
from otel_mapper.mapping.members import (
    WORKFLOW_STEP as _WORKFLOW_STEP,
)
from otel_mapper.mapping.tool_joins import (
    ATTRIBUTION_LINK_TYPE,
    CAUSED_BY_GENERATION,
    Fallbacks,
    generation_link,
    only_by_name_beside,
    only_proposal_of,
    same_call,
)
from otel_mapper.mapping.tool_names import function_style
from otel_mapper.mapping.unproposed_results import unproposed_result_edges
from otel_mapper.model import Declaration
from semconv.openai_agents import DEFAULT_HANDOFF_TOOL_PREFIX
from semconv.trajectory import DeclarationCategory, DeclarationEffect

__all__ = ["MAX_EXECUTIONS_PER_CALL", "ProposalNode", "tool_call_edges"]

MAX_EXECUTIONS_PER_CALL: Final = 8
"""A consuming model call depends on at most this many executions of one tool call (framework retries)."""
PROPOSAL_EVIDENCE: Final = "tool_call part in model output"
_HANDOFF_TOOL_PREFIX: Final = DEFAULT_HANDOFF_TOOL_PREFIX
_BESIDE_EVIDENCE: Final = (
    "the only proposal of tool {tool} by a model call under the same parent span (arguments not recorded on both sides)"
)


@dataclass(slots=True)
class ProposalNode:
    """A proposal node's join keys for edge derivation (mapper-internal; never hashed or changed)."""

    node_id: str
    model_node: str
    call_id: str | None
    name: str
    arguments_digest: str | None
    evidence: str = PROPOSAL_EVIDENCE
    """Why the proposal is the model call's: its output, or where else the call was read."""


def tool_call_edges(
    entries: list[SpanEntry],
    proposals: list[ProposalNode],
    nodes_by_id: dict[str, NodeDraft],
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
        edges.add(proposal.node_id, _CAUSED_BY, proposal.model_node, proposal.evidence)
        if proposal.call_id:
            by_call_id[proposal.call_id].append(proposal)
        if proposal.name and proposal.arguments_digest:
            by_name_args[(proposal.name, proposal.arguments_digest)].append(proposal)
        if proposal.name:
            by_name[proposal.name].append(proposal)
    fallbacks: list[Fallbacks] = []
    grouped: list[dict[str, list[ProposalNode]]] = []

    def by_model(items: list[ProposalNode]) -> dict[str, list[ProposalNode]]:
        if not grouped:
            groups: dict[str, list[ProposalNode]] = defaultdict(list)
            for item in items:
                groups[item.model_node].append(item)
            grouped.append(groups)
        return grouped[0]

    def fallback() -> Fallbacks:
        """Joins by function-style name and by single-input argument, built on first need (most traces match
        names as written)."""
        if not fallbacks:
            fallbacks.append(Fallbacks.build(proposals, nodes_by_id))
        return fallbacks[0]
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
        generation = generation_link(entry, nodes_by_id) if entry.view.span.links else None
        if generation is not None and not (facts.tool_call_id and facts.tool_call_id in by_call_id):
            matched = only_proposal_of(generation, facts.tool_name, by_model(proposals))
            if matched is not None:
                edges.add(entry.node_id, _CAUSED_BY, matched.node_id,
                          f"span link ({ATTRIBUTION_LINK_TYPE}={CAUSED_BY_GENERATION}) to the model call that proposed it")
                executed_by_proposal[matched.node_id].append(entry.node_id)
                continue
        if facts.tool_call_id and facts.tool_call_id in by_call_id:
            candidates = by_call_id[facts.tool_call_id]
            matched = narrow(candidates, entry.node_id, facts.tool_name)
            evidence = f"tool call id {facts.tool_call_id}"
            if facts.tool_call_id_evidence:
                evidence += f" ({facts.tool_call_id_evidence})"
            if len(candidates) > 1:
                evidence += " (id reused; the only proposal under the same parent)"
        elif facts.tool_name and facts.arguments is not None:
            digest = str(nodes_by_id[entry.node_id].arguments_digest)
            candidates = same_call(by_name_args.get((facts.tool_name, digest), []), facts.tool_call_id)
            styled = ""
            if not candidates:
                candidates = same_call(fallback().by_style_args.get((function_style(facts.tool_name), digest), []), facts.tool_call_id)
                styled = f"; tool name {facts.tool_name} in function style" if candidates else ""
            how = "unique tool name and argument digest match"
            if not candidates and not facts.arguments_json:
                key = (function_style(facts.tool_name), digest_text(facts.arguments))
                candidates = same_call(fallback().single_input.get(key, []), facts.tool_call_id)
                how = "single-input tool: its plain-text input is the proposal's only argument"
            if not candidates:
                matched, several = only_by_name_beside(entry.node_id, facts.tool_name, by_name, parents, unrecorded_only=True)
                if matched is not None:
                    edges.add(entry.node_id, _CAUSED_BY, matched.node_id, _BESIDE_EVIDENCE.format(tool=facts.tool_name))
                    executed_by_proposal[matched.node_id].append(entry.node_id)
                elif several:
                    ambiguous.append(entry.node_id)
                continue
            if len(candidates) == 1:
                matched = candidates[0]
                evidence = f"{how}{styled} (span carries no tool call id)"
            elif candidates:
                matched = narrow(candidates, entry.node_id, None)
                if matched is None:
                    ambiguous.append(entry.node_id)
                    continue
                evidence = f"{how}{styled}, the only one whose model call shares this span's parent (span carries no tool call id)"
        elif facts.kind is _HANDOFF and facts.tool_name and facts.tool_name in by_name:
            # A handoff span records no arguments; the tool it executes is named after the target agent.
            candidates = by_name[facts.tool_name]
            if len(candidates) == 1:
                matched = candidates[0]
                evidence = f"unique proposal of handoff tool {facts.tool_name}"
            else:
                ambiguous.append(entry.node_id)
                continue
        elif facts.kind is _TOOL_EXECUTION and facts.tool_name and not facts.tool_call_id:
            matched, several = only_by_name_beside(entry.node_id, facts.tool_name, by_name, parents, unrecorded_only=False)
            if several:
                ambiguous.append(entry.node_id)
                continue
            evidence = _BESIDE_EVIDENCE.format(tool=facts.tool_name)
        elif facts.kind is _HANDOFF and not facts.tool_name:
            # The target was not recorded (OpenLLMetry's Agents SDK spans say "unknown"): the handoff runs the one
            # handoff tool a model call beside it proposed, if there is exactly one.
            parent = parents.get(entry.node_id)
            candidates = [
                proposal
                for proposal in proposals
                if parent is not None
                and proposal.name.startswith(_HANDOFF_TOOL_PREFIX)
                and parents.get(proposal.model_node) == parent
            ]
            if len(candidates) != 1:
                continue
            matched = candidates[0]
            evidence = f"the only handoff tool ({_HANDOFF_TOOL_PREFIX}*) proposed by a model call under the same parent span"
        if matched is None:
            if facts.tool_call_id and facts.tool_call_id in by_call_id:
                ambiguous.append(entry.node_id)
            continue
        edges.add(entry.node_id, _CAUSED_BY, matched.node_id, evidence)
        executed_by_proposal[matched.node_id].append(entry.node_id)

    _delegation_edges(entries, by_name, parents, edges, executed_by_proposal)

    for proposal_id, executions in executed_by_proposal.items():
        if executions:
            nodes_by_id[proposal_id].status = _DISPATCHED

    _rejected_results(entries, by_call_id, nodes_by_id)
    unproposed_result_edges(entries, {call_id for call_id, found in by_call_id.items() if found}, edges)

    for entry in entries:
        if not entry.primary or entry.node_id is None or not entry.facts.consumed_call_ids:
            continue
        if entry.facts.kind is not _MODEL_CALL and entry.facts.kind is not _WORKFLOW_STEP:
            # Agent spans often repeat the whole conversation (contrib invoke_agent, OTel invoke_agent): their
            # input is a summary of their children's work, not something consumed before it ran. (A workflow step
            # reports consumed results only where its input is what it was given: LlamaIndex's run_agent_step.)
            continue
        for call_id in dict.fromkeys(entry.facts.consumed_call_ids):
            proposed = by_call_id.get(call_id)
            if proposed is None:
                continue
            candidates = [proposal for proposal in proposed if proposal.model_node != entry.node_id]
            if not candidates:
                continue
            consumed = narrow(candidates, entry.node_id, None)
            if consumed is None:
                ambiguous.append(entry.node_id)
                continue
            ran = executed_by_proposal.get(consumed.node_id)
            how = entry.facts.consumed_evidence.get(call_id) or entry.facts.message_evidence
            where = f" ({how})" if how else ""
            if entry.facts.kind is _WORKFLOW_STEP:
                where += " (the step's input event)"
            for execution in (ran or [consumed.node_id])[:MAX_EXECUTIONS_PER_CALL]:
                edges.add(entry.node_id, _DEPENDS_ON, execution, f"tool result {call_id} in model input{where}")
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


def _delegation_edges(
    entries: list[SpanEntry],
    by_name: dict[str, list[ProposalNode]],
    parents: dict[str, str],
    edges: EdgeSet,
    executed_by_proposal: dict[str, list[str]],
) -> None:
    """A managed agent called as a tool (smolagents) runs as an agent invocation, with no tool span: it is caused by
    the one proposal of its name whose model call shares its parent span (the manager's step)."""
    taken = set(executed_by_proposal)
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None or facts.kind is not _AGENT_INVOCATION or not facts.agent_name:
            continue
        matched, _ = only_by_name_beside(entry.node_id, facts.agent_name, by_name, parents, unrecorded_only=False)
        if matched is None or matched.node_id in taken:
            continue
        edges.add(entry.node_id, _CAUSED_BY, matched.node_id,
                  f"managed agent {facts.agent_name} called as a tool by a model call under the same parent span")
        executed_by_proposal[matched.node_id].append(entry.node_id)


def _rejected_results(
    entries: list[SpanEntry], by_call_id: dict[str, list[ProposalNode]], nodes_by_id: dict[str, NodeDraft]
) -> None:
    """Tools the runtime rejected in results a model call received, named by the text or by the proposal of the
    result's call id, become that model call's ``unknown_tools``."""
    for entry in entries:
        if not entry.primary or entry.node_id is None or not entry.facts.rejected_results:
            continue
        names = set(nodes_by_id[entry.node_id].unknown_tools)
        for call_id, named in entry.facts.rejected_results:
            if named:
                names.add(named)
                continue
            proposed = {proposal.name for proposal in by_call_id.get(call_id or "", ()) if proposal.name}
            if len(proposed) == 1:
                names.update(proposed)
        nodes_by_id[entry.node_id].unknown_tools = tuple(sorted(names))
