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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from opentelemetry.proto.trace.v1.trace_pb2 import Span, SpanFlags

from otel_mapper.mapping.agent_executor_runs import settle_agent_executor_runs
from otel_mapper.mapping.agent_outputs import drop_replayed_proposals
from otel_mapper.mapping.anonymous_agents import settle_anonymous_agents
from otel_mapper.mapping.callback_model_calls import fold_callback_model_calls
from otel_mapper.mapping.copied_statuses import settle_copied_statuses
from otel_mapper.mapping.declarations import declare
from otel_mapper.mapping.decorated_runs import settle_decorated_runs
from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.mapping.edge_set import EdgeSet
from otel_mapper.mapping.edges import derive_edges
from otel_mapper.mapping.entries import (
    SpanEntry,
    assign_node_ids,
    merge_double_instrumentation,
    read_spans,
    reader_failures_declaration,
)
from otel_mapper.mapping.error_finishes import settle_error_finishes
from otel_mapper.mapping.escaped_exceptions import settle_escaped_exceptions
from otel_mapper.mapping.facts import ConventionReader
from otel_mapper.mapping.failed_answers import settle_failed_answers
from otel_mapper.mapping.graph import CausalIndex, seed_causal_index
from otel_mapper.mapping.graph_runs import settle_graph_agent_runs
from otel_mapper.mapping.graph_streams import settle_graph_streams
from otel_mapper.mapping.langchain_graph_runs import settle_langchain_graph_runs
from otel_mapper.mapping.mcp_server_twins import settle_mcp_server_twins
from otel_mapper.mapping.nameless_tools import settle_nameless_tools
from otel_mapper.mapping.nested_runs import merge_nested_runs
from otel_mapper.mapping.nodes import (
    add_references,
    assign_invocations,
    node_draft,
    proposal_nodes,
    trajectory_bindings,
)
from otel_mapper.mapping.observed_agents import settle_observed_agents
from otel_mapper.mapping.openlit_ag2_calls import settle_openlit_ag2_calls
from otel_mapper.mapping.openlit_crews import settle_openlit_crews
from otel_mapper.mapping.openlit_graph import settle_openlit_graphs
from otel_mapper.mapping.own_replays import settle_own_replays
from otel_mapper.mapping.prefix import conversation_prefix_proposals, conversation_prefix_results
from otel_mapper.mapping.proposal_spans import settle_proposal_spans
from otel_mapper.mapping.readers import default_readers
from otel_mapper.mapping.run_state import RunState, earlier_revisions_missing, kept_span, with_spans
from otel_mapper.mapping.sdk_request_twins import settle_sdk_request_twins
from otel_mapper.mapping.spanless_calls import settle_spanless_calls
from otel_mapper.mapping.step_ids import inherit_step_call_ids
from otel_mapper.mapping.transfer_tools import settle_transfer_tools
from otel_mapper.mapping.turn_call_ids import settle_turn_call_ids
from otel_mapper.mapping.uncaused_failures import settle_uncaused_failures
from otel_mapper.mapping.wrapped_model_calls import fold_wrapped_model_calls
from otel_mapper.model import CompletenessStatus, Declaration, ExternalParent, Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope

__all__ = [
    "MappingOptions",
    "MappingResult",
    "SpanEntry",
    "map_trace",
    "parent_is_remote",
    "top_arrived",
    "trajectory_id_for",
]

_HAS_IS_REMOTE: Final = SpanFlags.SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
_IS_REMOTE: Final = SpanFlags.SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK
_ENTRY_KINDS: Final = frozenset({Span.SPAN_KIND_SERVER, Span.SPAN_KIND_CONSUMER})
_OPEN: Final = CompletenessStatus.OPEN
_EARLIER_REVISIONS: Final = earlier_revisions_missing().qualifier


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
    keep_run: bool = False
    """Return the :class:`~otel_mapper.mapping.run_state.RunState` the next revision of this trace maps with."""


@dataclass(frozen=True, slots=True)
class MappingResult:
    trajectory: Trajectory
    node_of_span: tuple[str | None, ...]
    """For each input span (by position), the node it became or was merged into."""
    state: RunState | None = None
    """Every span of the run mapped so far, for the next revision (with ``MappingOptions.keep_run``)."""


def parent_is_remote(span: Span) -> bool:
    """Whether a span's parent lives in another process: the W3C ``is_remote`` flag when the SDK records it
    (OTLP ``SpanFlags``), else a SERVER or CONSUMER span, which starts a process's part of a trace."""
    flags = span.flags
    if flags & _HAS_IS_REMOTE:
        return bool(flags & _IS_REMOTE)
    return span.kind in _ENTRY_KINDS


def top_arrived(entries: Sequence[SpanEntry], by_span_id: Mapping[str, SpanEntry]) -> bool:
    """Whether the run's top span is here: a span without a parent; or, when the run hangs under a span of
    another process, no span waiting for a parent of its own process. A missing parent of this process has not
    ended yet (spans are exported as they end): the run may still be under way. Order-free: every entry counts."""
    if any(entry.view.parent_span_id is None for entry in entries):
        return True
    remote = False
    for entry in entries:
        parent = entry.view.parent_span_id
        if parent in by_span_id:
            continue
        if not parent_is_remote(entry.view.span):
            return False
        remote = True
    return remote


def map_trace(
    envelopes: Sequence[SpanEnvelope], options: MappingOptions | None = None, prior: RunState | None = None
) -> MappingResult:
    """Map the spans of one trace. ``envelopes`` must all carry the same trace id. ``prior``: the state an earlier
    revision of the same trace left (:attr:`MappingResult.state`); the trajectory is then the whole run's, its
    spans and these, while ``node_of_span`` covers ``envelopes`` only."""
    options = options or MappingOptions()
    if not envelopes:
        raise ValueError("map_trace needs at least one span")
    trace_id = envelopes[0].span.trace_id.hex()
    if prior is not None and prior.trace_id != trace_id:
        raise ValueError(f"the earlier state is of trace {prior.trace_id}, not {trace_id}")
    readers = options.readers
    notes: list[Declaration] = list(options.declarations)
    earlier_missing = any(note.qualifier == _EARLIER_REVISIONS for note in notes)
    if prior is not None and prior.earlier_missing and not earlier_missing:
        notes.append(earlier_revisions_missing())  # a revision before this one was mapped without its predecessors

    new_entries, failures = read_spans(envelopes, readers)
    if prior is not None:
        failures += prior.reader_failures
        # Stages after reading that complete facts (merging double instrumentation, ids from a parent step,
        # proposals from a later prefix) replace an entry's facts with a changed copy, so the kept facts are
        # shared here and stay as the readers read them.
        entries = [
            SpanEntry(view=kept.view, facts=kept.facts, node_id=kept.node_id, primary=kept.primary, earlier=True)
            for kept in prior.spans
        ]
        entries.extend(new_entries)
    else:
        entries = new_entries
    if failures:
        notes.append(reader_failures_declaration(failures))
    by_span_id = assign_node_ids(entries, notes)
    kept = (
        tuple(kept_span(entry.view, entry.facts, entry.node_id, entry.primary) for entry in new_entries)
        if options.keep_run
        else ()
    )
    # A copy of a span that arrived again (at-least-once export) is a reference of its node and nothing more: the
    # stages below count spans and children, and a copy read as one more span would change what they find.
    received = entries
    entries = [entry for entry in received if entry.primary]
    copied = {entry.node_id: entry for entry in entries if entry.node_id is not None}
    merge_double_instrumentation(entries, by_span_id, notes)
    merge_nested_runs(entries, notes)
    settle_mcp_server_twins(entries, by_span_id, notes)
    settle_sdk_request_twins(entries, notes)
    settle_proposal_spans(entries, by_span_id, notes)
    fold_wrapped_model_calls(entries, notes)
    fold_callback_model_calls(entries, notes)
    inherit_step_call_ids(entries)
    settle_graph_agent_runs(entries)
    settle_langchain_graph_runs(entries)
    settle_observed_agents(entries)
    settle_agent_executor_runs(entries, by_span_id)
    settle_graph_streams(entries, by_span_id, notes)
    settle_openlit_graphs(entries, by_span_id, notes)
    settle_openlit_crews(entries, by_span_id)
    settle_openlit_ag2_calls(entries)
    settle_decorated_runs(entries)
    settle_anonymous_agents(entries, by_span_id)
    settle_copied_statuses(entries)
    settle_escaped_exceptions(entries, by_span_id)
    settle_uncaused_failures(entries, by_span_id)
    settle_error_finishes(entries, by_span_id)
    settle_failed_answers(entries, by_span_id)
    settle_transfer_tools(entries)
    settle_turn_call_ids(entries)
    conversation_prefix_proposals(entries, notes)
    conversation_prefix_results(entries)
    settle_own_replays(entries, by_span_id)
    drop_replayed_proposals(entries, by_span_id)
    settle_nameless_tools(entries)

    nodes_by_id: dict[str, NodeDraft] = {}
    roots: set[str] = set()
    for entry in entries:
        if entry.node_id is not None and entry.primary:
            nodes_by_id[entry.node_id] = node_draft(entry, entry.node_id, trace_id)
            if entry.view.parent_span_id is None:
                roots.add(entry.node_id)
    for entry in received:
        if not entry.primary and entry.node_id in copied:
            entry.node_id = copied[entry.node_id].node_id  # the node its span's first copy ended in
    add_references(received, nodes_by_id, trace_id)
    proposals = proposal_nodes(entries, nodes_by_id)

    edges = EdgeSet()
    external = derive_edges(entries, by_span_id, proposals, nodes_by_id, edges, notes)
    settle_spanless_calls(entries, nodes_by_id, edges, proposals)
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
        top_arrived=top_arrived(received, by_span_id),
    )
    trajectory = Trajectory(
        trace_id=trace_id,
        trajectory_id=trajectory_id_for(trace_id),
        revision=options.revision,
        nodes=nodes,
        edges=edge_tuple,
        declarations=declarations,
        bindings=trajectory_bindings(received, nodes),
        completeness=completeness,
        span_count=len(received),
        external_parents=external_parents,
        root_node_ids=tuple(sorted(roots)),
        released_early=options.released_early,
    )
    if built:
        seed_causal_index(trajectory, built[0])
    state = (
        with_spans(
            prior, trace_id, options.revision, kept, settled=completeness.status is not _OPEN, reader_failures=failures,
            earlier_missing=earlier_missing,
        )
        if options.keep_run
        else None
    )
    return MappingResult(
        trajectory=trajectory, node_of_span=tuple(entry.node_id for entry in new_entries), state=state
    )


