"""OTLP spans of one trace -> :class:`Trajectory`.

Steps: view every span, read it with the first convention reader that claims it, merge double-instrumented
calls, make nodes (and proposal nodes for tool calls a model proposed), derive edges from evidence only
(:mod:`otel_mapper.edges`), break cycles, then declare what the mapping lost (:mod:`otel_mapper.declarations`).

The result does not depend on span arrival order: duplicates are ranked by their bytes, nodes and edges are
sorted by id, and nothing reads a timestamp to decide anything.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Final

from otel_mapper.canonical import digest_text
from otel_mapper.declarations import declare
from otel_mapper.edges import EdgeSet, derive_edges
from otel_mapper.facts import ConventionReader, SpanFacts, absorb_facts
from otel_mapper.graph import CausalIndex, seed_causal_index
from otel_mapper.members import (
    AGENT_INVOCATION as _AGENT_INVOCATION,
    COMMITTED as _COMMITTED,
    FAILED as _FAILED,
    HANDOFF as _HANDOFF,
    MODEL_AUTHORITY as _MODEL_AUTHORITY,
    MODEL_CALL as _MODEL_CALL,
    OUTCOME_UNKNOWN as _OUTCOME_UNKNOWN,
    PROPOSED as _PROPOSED,
    TOOL_EXECUTION as _TOOL_EXECUTION,
    TOOL_PROPOSAL as _TOOL_PROPOSAL,
)
from otel_mapper.model import (
    Bindings,
    Declaration,
    ExternalParent,
    Node,
    SpanRef,
    ToolDefinition,
    Trajectory,
    derived_node_id,
    span_node_id,
)
from otel_mapper.otlp import SpanEnvelope
from otel_mapper.readers import FallbackReader, default_readers
from otel_mapper.spans import MAX_NAME, SpanView
from semconv import genai
from semconv.trajectory import (
    Authority,
    DeclarationCategory,
    DeclarationEffect,
    NodeKind,
)

__all__ = ["MappingOptions", "MappingResult", "SpanEntry", "map_trace", "trajectory_id_for"]

logger = logging.getLogger(__name__)

MAX_PROPOSALS_PER_CALL = 256
MAX_DECLARED_NODES = 32


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


@dataclass(slots=True)
class SpanEntry:
    """One input span during mapping: its view, its facts and the node it became."""

    view: SpanView
    facts: SpanFacts
    node_id: str | None = None
    """Node this span became or was merged into; ``None`` for dropped placeholders."""
    primary: bool = True
    """False for a span merged into another span's node (double instrumentation)."""


@dataclass(frozen=True, slots=True)
class MappingResult:
    trajectory: Trajectory
    node_of_span: tuple[str | None, ...]
    """For each input span (by position), the node it became or was merged into."""


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


def map_trace(envelopes: Sequence[SpanEnvelope], options: MappingOptions | None = None) -> MappingResult:
    """Map the spans of one trace. ``envelopes`` must all carry the same trace id."""
    options = options or MappingOptions()
    if not envelopes:
        raise ValueError("map_trace needs at least one span")
    trace_id = envelopes[0].span.trace_id.hex()
    readers = options.readers
    notes: list[Declaration] = list(options.declarations)

    entries = _read_spans(envelopes, readers, notes)
    by_span_id = _assign_node_ids(entries, notes)
    _merge_double_instrumentation(entries, by_span_id, notes)

    nodes_by_id: dict[str, dict[str, object]] = {}
    roots: set[str] = set()
    for entry in entries:
        if entry.node_id is not None and entry.primary:
            nodes_by_id[entry.node_id] = _node_fields(entry, trace_id)
            if entry.view.parent_span_id is None:
                roots.add(entry.node_id)
    _add_references(entries, nodes_by_id, trace_id)
    proposals = _proposal_nodes(entries, nodes_by_id)

    edges = EdgeSet()
    external = derive_edges(entries, by_span_id, proposals, nodes_by_id, edges, notes)
    edges.break_cycles(nodes_by_id.keys(), notes)

    _assign_invocations(nodes_by_id, edges)
    nodes = tuple(_frozen_node(nodes_by_id[node_id]) for node_id in sorted(nodes_by_id))
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
        bindings=_bindings(entries, nodes),
        completeness=completeness,
        span_count=len(envelopes),
        external_parents=external_parents,
        root_node_ids=tuple(sorted(roots)),
        released_early=options.released_early,
    )
    if built:
        seed_causal_index(trajectory, built[0])
    return MappingResult(trajectory=trajectory, node_of_span=tuple(entry.node_id for entry in entries))


_NODE_REQUIRED: Final = tuple(
    (f.name, Node.__dict__[f.name].__set__) for f in dataclass_fields(Node) if f.default is MISSING
)
_NODE_OPTIONAL: Final = tuple(
    (f.name, f.default, Node.__dict__[f.name].__set__) for f in dataclass_fields(Node) if f.default is not MISSING
)
if hasattr(Node, "__post_init__"):
    raise TypeError("_frozen_node skips Node.__init__: give it the __post_init__ work too")


def _frozen_node(values: dict[str, object]) -> Node:
    """``Node(**values)`` for the mapper's own field dicts (keys are ``Node`` fields), at about half the cost.

    A frozen dataclass's ``__init__`` sets each of Node's 30 fields with ``object.__setattr__``, a generic
    attribute lookup per field, for 1.5 nodes per span. Here each slot is set through its member descriptor,
    which is where that lookup ends; the object is the same (``Node`` has no ``__post_init__``).
    """
    node = object.__new__(Node)
    for name, set_slot in _NODE_REQUIRED:
        set_slot(node, values[name])
    for name, default, set_slot in _NODE_OPTIONAL:
        set_slot(node, values.get(name, default))
    return node


def _read_spans(
    envelopes: Sequence[SpanEnvelope], readers: tuple[ConventionReader, ...], notes: list[Declaration]
) -> list[SpanEntry]:
    service_cache: dict[int, str | None] = {}
    entries: list[SpanEntry] = []
    failures = 0
    fallback = FallbackReader()
    for index, envelope in enumerate(envelopes):
        span = envelope.span
        key = id(envelope.resource)
        if key not in service_cache:
            service_cache[key] = next(
                (kv.value.string_value[:MAX_NAME] for kv in envelope.resource.attributes if kv.key == genai.SERVICE_NAME),
                None,
            )
        view = SpanView(
            index=index,
            span=span,
            trace_id=span.trace_id.hex(),
            span_id=span.span_id.hex(),
            parent_span_id=span.parent_span_id.hex() if span.parent_span_id else None,
            service_name=service_cache[key],
            scope_name=envelope.scope.name[:MAX_NAME],
        )
        try:
            for reader in readers:
                if reader.claims(view):
                    break
            else:
                raise LookupError("no convention reader claims the span")
            facts = reader.read(view)
        except Exception:  # a reader bug must not lose the span: it becomes an `other` node, declared
            logger.debug("reader failed on span %s", view.span_id, exc_info=True)
            failures += 1
            facts = fallback.read(view)
        view.release()  # later stages read facts, ids and links only; holding 100k attribute maps costs memory
        entries.append(SpanEntry(view=view, facts=facts))
    if failures:
        notes.append(
            Declaration(
                category=DeclarationCategory.ANALYSIS,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="reader_error",
                reason="a convention reader failed on some spans; they were mapped as generic nodes",
                count=failures,
            )
        )
    return entries


def _assign_node_ids(entries: list[SpanEntry], notes: list[Declaration]) -> dict[str, SpanEntry]:
    """Give each span its node id; duplicate span ids are kept apart and declared (AT-16b).

    Among duplicates, the one with the smallest serialised bytes keeps the plain id, so the choice does not
    depend on arrival order. A byte-identical copy is a redelivery (at-least-once export), not another call: it
    joins the first copy's node as a reference instead of becoming a phantom second execution.
    """
    first: dict[str, SpanEntry] = {}
    shared: dict[str, list[SpanEntry]] = {}  # span ids seen more than once: every entry, in input order
    for entry in entries:
        if entry.facts.drop:
            continue
        span_id = entry.view.span_id
        earlier = first.setdefault(span_id, entry)
        if earlier is not entry:
            shared.setdefault(span_id, [earlier]).append(entry)
    primary: dict[str, SpanEntry] = {}
    duplicated: list[str] = []
    redelivered = 0
    for span_id, entry in first.items():
        group = shared.get(span_id)
        if group is None:
            entry.node_id = span_node_id(span_id)
            primary[span_id] = entry
            continue
        kept_apart, copies, primary[span_id] = _rank_duplicates(span_id, group)
        if kept_apart:
            duplicated.append(span_id)
        redelivered += copies
    if duplicated:
        duplicated.sort()
        notes.append(
            Declaration(
                category=DeclarationCategory.DUPLICATE_SPAN_ID,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="kept_apart",
                reason="several spans share a span id; each is its own node and parent references resolve to the first",
                count=len(duplicated),
                nodes=tuple(span_node_id(span_id) for span_id in duplicated[:MAX_DECLARED_NODES]),
            )
        )
    if redelivered:
        notes.append(
            Declaration(
                category=DeclarationCategory.DUPLICATE_SPAN_ID,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="redelivered",
                reason="byte-identical copies of a span were received; each copy is a reference of one node",
                count=redelivered,
            )
        )
    return primary


def _rank_duplicates(span_id: str, group: list[SpanEntry]) -> tuple[bool, int, SpanEntry]:
    """Node ids for the spans sharing ``span_id``, ranked by their bytes. Returns (several distinct spans, number
    of byte-identical copies, the entry that keeps the plain id)."""
    keyed = sorted(((item.view.span.SerializeToString(deterministic=True), item) for item in group), key=lambda pair: pair[0])
    position = 0
    copies = 0
    previous: bytes | None = None
    for data, entry in keyed:
        if data == previous:
            entry.node_id = span_node_id(span_id) if position == 1 else derived_node_id(span_id, f"dup:{position - 1}")
            entry.primary = False
            copies += 1
            continue
        entry.node_id = span_node_id(span_id) if position == 0 else derived_node_id(span_id, f"dup:{position}")
        position += 1
        previous = data
    return position > 1, copies, keyed[0][1]


def _merge_double_instrumentation(
    entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], notes: list[Declaration]
) -> None:
    """Two spans of one call (same response id or tool-call id, same kind, from different conventions or nested)
    become one node: the innermost span's. The other span stays a reference."""
    groups: dict[tuple[str, str], list[SpanEntry]] = {}
    for entry in entries:
        if entry.node_id is None or not entry.primary or entry.facts.dedup_key is None:
            continue
        groups.setdefault((entry.facts.kind.value, entry.facts.dedup_key), []).append(entry)
    merged = 0
    moved: dict[str, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        members = {entry.view.span_id for entry in group}
        conventions = {entry.facts.convention for entry in group}

        def nested_count(entry: SpanEntry) -> int:
            count, current, steps = 0, entry.view.parent_span_id, 0
            while current is not None and steps < 64:
                if current in members:
                    count += 1
                parent = by_span_id.get(current)
                current = parent.view.parent_span_id if parent else None
                steps += 1
            return count

        depths = {entry.view.span_id: nested_count(entry) for entry in group}
        if len(conventions) < 2 and not any(depths.values()):
            continue  # same convention, not nested: separate calls that reuse an id (e.g. retries)
        keeper = max(group, key=lambda entry: (depths[entry.view.span_id], entry.view.span_id))
        others = sorted((entry for entry in group if entry is not keeper), key=lambda entry: entry.view.span_id)
        for entry in others:
            absorb_facts(keeper.facts, entry.facts)
            if entry.node_id is not None and keeper.node_id is not None:
                moved[entry.node_id] = keeper.node_id
            entry.node_id = keeper.node_id
            entry.primary = False
            merged += 1
    if moved:
        # Redelivered copies of a merged span follow it into the keeper's node.
        for entry in entries:
            if not entry.primary and entry.node_id in moved:
                entry.node_id = moved[entry.node_id]
    if merged:
        notes.append(
            Declaration(
                category=DeclarationCategory.DOUBLE_INSTRUMENTATION,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="merged",
                reason="spans describing the same call were merged into one node; the others are kept as references",
                count=merged,
            )
        )


def _node_fields(entry: SpanEntry, trace_id: str) -> dict[str, object]:
    facts = entry.facts
    span = entry.view.span
    if facts.failed:
        status = _FAILED
    elif span.end_time_unix_nano == 0:
        status = _OUTCOME_UNKNOWN
    else:
        status = _COMMITTED
    actor = facts.agent_name or ""
    if facts.kind is _MODEL_CALL:
        actor = facts.model or facts.provider or actor
    elif facts.kind is _TOOL_EXECUTION:
        actor = facts.tool_name or actor
    return {
        "id": entry.node_id,
        "kind": facts.kind,
        "status": status,
        "source": SpanRef(trace_id=trace_id, span_id=entry.view.span_id),
        "convention": facts.convention,
        "name": facts.name,
        "actor": actor,
        "authority": _AUTHORITY[facts.kind],
        "agent_name": facts.agent_name,
        "tool_name": facts.tool_name,
        "tool_call_id": facts.tool_call_id,
        "arguments": facts.arguments,
        "arguments_digest": digest_text(facts.arguments) if facts.arguments is not None else None,
        "arguments_visible": facts.arguments_visible,
        "result_visible": facts.result_visible,
        "model": facts.model,
        "provider": facts.provider,
        "usage": facts.usage if not facts.usage_is_aggregate else None,
        "tool_definitions": facts.tool_definitions,
        "output_digest": _output_digest(facts),
        "error_type": facts.error_type,
        "error_message": facts.error_message,
        "http_status": facts.http_status,
        "finish_reasons": facts.finish_reasons,
        "start_unix_nano": span.start_time_unix_nano,
        "end_unix_nano": span.end_time_unix_nano,
        "handoff_from": facts.handoff_from_agent if facts.kind is _HANDOFF else None,
        "handoff_to": facts.handoff_to_agent if facts.kind is _HANDOFF else None,
    }


def _output_digest(facts: SpanFacts) -> str | None:
    if not facts.messages.outputs:
        return None
    if len(facts.messages.outputs) == 1:
        return facts.messages.outputs[0]
    return digest_text("|".join(facts.messages.outputs))


def _add_references(entries: list[SpanEntry], nodes_by_id: dict[str, dict[str, object]], trace_id: str) -> None:
    references: dict[str, list[SpanRef]] = {}
    for entry in entries:
        if entry.node_id is not None and not entry.primary:
            references.setdefault(entry.node_id, []).append(SpanRef(trace_id=trace_id, span_id=entry.view.span_id))
    for node_id, refs in references.items():
        nodes_by_id[node_id]["references"] = tuple(sorted(refs, key=lambda ref: ref.span_id))


@dataclass(slots=True)
class ProposalNode:
    """A proposal node's join keys for edge derivation (mapper-internal; never hashed or changed)."""

    node_id: str
    model_node: str
    call_id: str | None
    name: str
    arguments_digest: str | None


def _proposal_nodes(entries: list[SpanEntry], nodes_by_id: dict[str, dict[str, object]]) -> list[ProposalNode]:
    """One node per tool call a model proposed (AT-4.5a, AT-9b): a proposal is never the execution."""
    proposals: list[ProposalNode] = []
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None or not facts.proposals:
            continue
        seen: set[str] = set()
        model_fields = nodes_by_id[entry.node_id]  # the proposing model call: same source span and times
        source, start, end = model_fields["source"], model_fields["start_unix_nano"], model_fields["end_unix_nano"]
        for position, call in enumerate(facts.proposals[:MAX_PROPOSALS_PER_CALL]):
            suffix = f"call:{call.call_id}" if call.call_id else f"call#{position}"
            while suffix in seen:
                suffix += "+"
            seen.add(suffix)
            node_id = derived_node_id(entry.view.span_id, suffix)
            args_digest = digest_text(call.arguments) if call.arguments is not None else None
            nodes_by_id[node_id] = {
                "id": node_id,
                "kind": _TOOL_PROPOSAL,
                "status": _PROPOSED,
                "source": source,
                "convention": facts.convention,
                "name": call.name or "tool_call",
                "actor": facts.model or facts.agent_name or "",
                "authority": _MODEL_AUTHORITY,
                "agent_name": facts.agent_name,
                "tool_name": call.name or None,
                "tool_call_id": call.call_id,
                "arguments": call.arguments,
                "arguments_digest": args_digest,
                "arguments_visible": call.arguments is not None,
                "model": facts.model,
                "start_unix_nano": start,
                "end_unix_nano": end,
            }
            proposals.append(ProposalNode(node_id, entry.node_id, call.call_id, call.name, args_digest))
    return proposals


def _assign_invocations(nodes_by_id: dict[str, dict[str, object]], edges: EdgeSet) -> None:
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
            if nodes_by_id.get(parent, {}).get("kind") is _AGENT_INVOCATION:
                answer = parent
                break
            current = parent
        # Every node on the walked path shares the answer of its nearest agent ancestor, except that an agent
        # node's own answer is its parent agent; the walk never passes through an agent node, so this holds.
        for node in path:
            memo[node] = answer
    for node_id, fields in nodes_by_id.items():
        if fields["kind"] is _TOOL_PROPOSAL:
            # A proposal belongs to the invocation of the model call that proposed it.
            fields["invocation"] = memo.get(node_id.split("#", 1)[0])
        else:
            fields["invocation"] = memo.get(node_id)


def _bindings(entries: list[SpanEntry], nodes: tuple[Node, ...]) -> Bindings:
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
