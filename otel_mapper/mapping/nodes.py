"""Mapping entries -> node drafts: each primary span's node, references of merged and redelivered spans, one
proposal node per tool call a model proposed, the agent invocation each node runs in, and the trajectory's
bindings. :meth:`~otel_mapper.mapping.drafts.NodeDraft.freeze` makes the frozen nodes.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.bundle.canonical import digest_text
from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.mapping.edge_set import EdgeSet
from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import (
    AGENT_INVOCATION as _AGENT_INVOCATION,
)
from otel_mapper.mapping.members import (
    COMMITTED as _COMMITTED,
)
from otel_mapper.mapping.members import (
    FAILED as _FAILED,
)
from otel_mapper.mapping.members import (
    HANDOFF as _HANDOFF,
)
from otel_mapper.mapping.members import (
    MODEL_AUTHORITY as _MODEL_AUTHORITY,
)
from otel_mapper.mapping.members import (
    MODEL_CALL as _MODEL_CALL,
)
from otel_mapper.mapping.members import (
    OUTCOME_UNKNOWN as _OUTCOME_UNKNOWN,
)
from otel_mapper.mapping.members import (
    PROPOSED as _PROPOSED,
)
from otel_mapper.mapping.members import (
    TOOL_EXECUTION as _TOOL_EXECUTION,
)
from otel_mapper.mapping.members import (
    TOOL_PROPOSAL as _TOOL_PROPOSAL,
)
from otel_mapper.mapping.tool_edges import PROPOSAL_EVIDENCE, ProposalNode
from otel_mapper.mapping.tool_names import local_name
from otel_mapper.model import Bindings, Node, SpanRef, ToolDefinition, derived_node_id
from semconv.trajectory import Authority, NodeKind

__all__ = [
    "add_references",
    "assign_invocations",
    "node_draft",
    "proposal_nodes",
    "trajectory_bindings",
]

MAX_PROPOSALS_PER_CALL: Final = 256

_AUTHORITY = {
    NodeKind.AGENT_INVOCATION: Authority.AGENT,
    NodeKind.MODEL_CALL: Authority.MODEL,
    NodeKind.TOOL_PROPOSAL: Authority.MODEL,
    NodeKind.TOOL_EXECUTION: Authority.RUNTIME,
    NodeKind.HANDOFF: Authority.AGENT,
    NodeKind.GUARDRAIL: Authority.VERIFIER,
    NodeKind.RETRIEVAL: Authority.RUNTIME,
    NodeKind.WORKFLOW_STEP: Authority.HARNESS,
    NodeKind.OTHER: Authority.RUNTIME,
}


def node_draft(entry: SpanEntry, node_id: str, trace_id: str) -> NodeDraft:
    """The node a primary span becomes (``node_id`` is the entry's)."""
    facts = entry.facts
    span = entry.view.span
    if facts.failed:
        status = _FAILED
    elif facts.outcome_unknown or span.end_time_unix_nano == 0:
        status = _OUTCOME_UNKNOWN
    else:
        status = _COMMITTED
    actor = facts.agent_name or ""
    if facts.kind is _MODEL_CALL:
        actor = facts.model or facts.provider or actor
    elif facts.kind is _TOOL_EXECUTION:
        actor = facts.tool_name or actor
    return NodeDraft(
        id=node_id,
        kind=facts.kind,
        status=status,
        source=SpanRef(trace_id=trace_id, span_id=entry.view.span_id),
        convention=facts.convention,
        name=facts.name,
        actor=actor,
        authority=_AUTHORITY[facts.kind],
        agent_name=facts.agent_name,
        tool_name=facts.tool_name,
        tool_call_id=facts.tool_call_id,
        arguments=facts.arguments,
        arguments_digest=digest_text(facts.arguments) if facts.arguments is not None else None,
        arguments_visible=facts.arguments_visible,
        result_visible=facts.result_visible,
        model=facts.model,
        provider=facts.provider,
        usage=facts.usage if not facts.usage_is_aggregate else None,
        tool_definitions=facts.tool_definitions,
        output_digest=_output_digest(facts),
        error_type=facts.error_type,
        error_message=facts.error_message,
        http_status=facts.http_status,
        finish_reasons=facts.finish_reasons,
        start_unix_nano=span.start_time_unix_nano,
        end_unix_nano=span.end_time_unix_nano,
        handoff_from=facts.handoff_from_agent if facts.kind is _HANDOFF else None,
        handoff_to=facts.handoff_to_agent if facts.kind is _HANDOFF else None,
        arguments_json=facts.arguments_json,
        unknown_tools=(facts.unknown_tool,) if facts.unknown_tool else (),
        tool_local_name=local_name(facts.tool_name, facts.tool_namespace_separator),
        returned_answer=facts.returned_answer,
    )


def _output_digest(facts: SpanFacts) -> str | None:
    if not facts.messages.outputs:
        return None
    if len(facts.messages.outputs) == 1:
        return facts.messages.outputs[0]
    return digest_text("|".join(facts.messages.outputs))


def add_references(entries: list[SpanEntry], nodes_by_id: dict[str, NodeDraft], trace_id: str) -> None:
    references: dict[str, list[SpanRef]] = {}
    for entry in entries:
        if entry.node_id is not None and not entry.primary:
            references.setdefault(entry.node_id, []).append(SpanRef(trace_id=trace_id, span_id=entry.view.span_id))
    for node_id, refs in references.items():
        nodes_by_id[node_id].references = tuple(sorted(refs, key=lambda ref: ref.span_id))


def proposal_nodes(entries: list[SpanEntry], nodes_by_id: dict[str, NodeDraft]) -> list[ProposalNode]:
    """One node per tool call a model proposed (AT-4.5a, AT-9b): a proposal is never the execution."""
    proposals: list[ProposalNode] = []
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None or not facts.proposals:
            continue
        seen: set[str] = set()
        model_call = nodes_by_id[entry.node_id]  # the proposing model call: same source span and times
        source, start, end = model_call.source, model_call.start_unix_nano, model_call.end_unix_nano
        for position, call in enumerate(facts.proposals[:MAX_PROPOSALS_PER_CALL]):
            suffix = f"call:{call.call_id}" if call.call_id else f"call#{position}"
            while suffix in seen:
                suffix += "+"
            seen.add(suffix)
            node_id = derived_node_id(entry.view.span_id, suffix)
            args_digest = digest_text(call.arguments) if call.arguments is not None else None
            nodes_by_id[node_id] = NodeDraft(
                id=node_id,
                kind=_TOOL_PROPOSAL,
                status=_PROPOSED,
                source=source,
                convention=facts.convention,
                name=call.name or "tool_call",
                actor=facts.model or facts.agent_name or "",
                authority=_MODEL_AUTHORITY,
                agent_name=facts.agent_name,
                tool_name=call.name or None,
                tool_call_id=call.call_id,
                arguments=call.arguments,
                arguments_digest=args_digest,
                arguments_visible=call.arguments is not None,
                model=facts.model,
                start_unix_nano=start,
                end_unix_nano=end,
                tool_local_name=local_name(call.name, facts.tool_namespace_separator),
            )
            evidence = call.evidence or (f"{PROPOSAL_EVIDENCE} ({facts.message_evidence})" if facts.message_evidence else PROPOSAL_EVIDENCE)
            key = call.call_id or call.join_key  # results join by the id, else by the key the reader gave the call
            proposals.append(ProposalNode(node_id, entry.node_id, key, call.name, args_digest, evidence))
    return proposals


def assign_invocations(nodes_by_id: dict[str, NodeDraft], edges: EdgeSet) -> None:
    """Nearest agent-invocation ancestor along parent (containment) edges; iterative with memo."""
    parent_of = edges.containment_parents()
    memo: dict[str, str | None] = {}
    for start in nodes_by_id:
        path: list[str] = []
        on_path: set[str] = set()  # a set, not the list: 10,000-deep chains must not cost a quadratic scan
        current: str | None = start
        answer: str | None = None
        while current is not None:
            if current in memo:
                answer = memo[current]
                break
            parent = parent_of.get(current)
            if parent is None or parent in on_path or len(path) > 100_000:
                answer = None
                path.append(current)
                break
            path.append(current)
            on_path.add(current)
            parent_node = nodes_by_id.get(parent)
            if parent_node is not None and parent_node.kind is _AGENT_INVOCATION:
                answer = parent
                break
            current = parent
        # Every node on the walked path shares the answer of its nearest agent ancestor, except that an agent
        # node's own answer is its parent agent; the walk never passes through an agent node, so this holds.
        for node in path:
            memo[node] = answer
    for node_id, draft in nodes_by_id.items():
        if draft.kind is _TOOL_PROPOSAL:
            # A proposal belongs to the invocation of the model call that proposed it.
            draft.invocation = memo.get(node_id.split("#", 1)[0])
        else:
            draft.invocation = memo.get(node_id)


def trajectory_bindings(entries: list[SpanEntry], nodes: tuple[Node, ...]) -> Bindings:
    services: set[str] = set()
    conventions: set[str] = set()
    tools: dict[str, str | None] = {}
    for entry in entries:
        if entry.view.service_name:
            services.add(entry.view.service_name)
        conventions.add(entry.facts.convention)
        for name, tool_digest in entry.facts.tool_definition_digests.items():
            if tools.get(name) is None:
                tools[name] = tool_digest
    agents: set[str] = set()
    models: set[str] = set()
    providers: set[str] = set()
    for node in nodes:
        if node.agent_name:
            agents.add(node.agent_name)
        if node.model and node.kind is _MODEL_CALL:
            models.add(node.model)
        if node.provider:
            providers.add(node.provider)
        if node.kind is _TOOL_EXECUTION and node.tool_name and node.tool_name not in tools:
            tools[node.tool_name] = None
    return Bindings(
        services=tuple(sorted(services)),
        agents=tuple(sorted(agents)),
        models=tuple(sorted(models)),
        providers=tuple(sorted(providers)),
        tools=tuple(ToolDefinition(name=name, digest=tools[name]) for name in sorted(tools)),
        conventions=tuple(sorted(conventions)),
    )
