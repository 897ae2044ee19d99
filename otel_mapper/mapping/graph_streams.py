"""OpenLLMetry's LangGraph spans: one invocation per graph run, and the agent is the graph that calls a model.

OpenLLMetry's LangChain instrumentation (0.62.4, observed and read in its ``patch.py``) records each graph
invocation twice: a span ``invoke_agent <graph>`` around ``Pregel.stream`` (``gen_ai.provider.name=langgraph``, no
``traceloop.span.kind``) and the LangChain run of the graph. For the outermost graph the run is that span's only
child (``<graph>.workflow``); for a graph run inside a node (a supervisor's agents) the stream span is an empty
sibling of the run (``execute_task <graph>``). Both say ``invoke_agent`` on every graph, a multi-agent graph whose
nodes only run other graphs included.

Here a graph run is a span one of whose child spans is the own run of a node of another graph (the test of
:mod:`otel_mapper.mapping.graph_runs`). A graph run with a model call of its own (one whose nearest enclosing graph
run is this one) is an agent invocation; a graph whose model calls all happen inside the graphs it runs keeps the
kind its reader gave. A stream span with exactly one graph run of its name as its only child, or, having no child,
as a sibling, is merged into that run's node (declared). Only facts are read here (an earlier revision's spans are
kept without attributes); parent links only, nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry, follow_merged, merged_declaration
from otel_mapper.mapping.graph_runs import runs_a_node_of_another_graph
from otel_mapper.mapping.readers.openllmetry import CONVENTION as OPENLLMETRY
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.model import Declaration
from semconv import langgraph
from semconv.trajectory import NodeKind

__all__ = ["settle_graph_streams"]

MAX_ANCESTORS: Final = 64
"""Parent hops searched for a model call's enclosing graph run."""


def settle_graph_streams(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], notes: list[Declaration]) -> None:
    graph_runs = _graph_runs(entries, by_span_id)
    if not graph_runs:
        return
    for span_id in _runs_calling_a_model(entries, by_span_id, graph_runs):
        entry = graph_runs[span_id]
        if entry.facts.kind is NodeKind.AGENT_INVOCATION:
            continue
        facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
        facts.kind = NodeKind.AGENT_INVOCATION
        facts.agent_name = facts.agent_name or facts.run_name
        facts.graph_node_id = facts.graph_node_id or facts.agent_name
    merged = _merge_stream_spans(entries, by_span_id, graph_runs)
    if merged:
        notes.append(
            merged_declaration("a graph's stream span and the run of the graph it streams were read as one invocation", merged)
        )


def _graph_runs(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> dict[str, SpanEntry]:
    """OpenLLMetry spans that run a graph, by span id."""
    runs: dict[str, SpanEntry] = {}
    for entry in entries:
        if entry.facts.sequence is None or entry.facts.convention != OPENLLMETRY:
            continue  # cheap: most spans are no node's own run
        parent = by_span_id.get(entry.view.parent_span_id or "")
        if (
            parent is not None
            and parent.primary
            and parent.facts.convention == OPENLLMETRY
            and runs_a_node_of_another_graph(entry, parent)
        ):
            runs[parent.view.span_id] = parent
    return runs


def _runs_calling_a_model(
    entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], graph_runs: dict[str, SpanEntry]
) -> set[str]:
    """Graph runs that are the nearest enclosing graph run of a model call."""
    calling: set[str] = set()
    for entry in entries:
        if not entry.primary or entry.facts.kind is not NodeKind.MODEL_CALL:
            continue
        current = entry.view.parent_span_id
        for _ in range(MAX_ANCESTORS):
            if current is None:
                break
            if current in graph_runs:
                calling.add(current)
                break
            parent = by_span_id.get(current)
            current = parent.view.parent_span_id if parent is not None else None
    return calling


def _merge_stream_spans(
    entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], graph_runs: dict[str, SpanEntry]
) -> int:
    streams = {
        entry.view.span_id: entry
        for entry in entries
        if entry.primary
        and entry.facts.kind is NodeKind.AGENT_INVOCATION
        and entry.facts.provider == langgraph.PROVIDER
        and entry.facts.agent_name is not None
        and entry.view.span_id not in graph_runs
    }
    if not streams:
        return 0
    children: dict[str, list[str]] = {}
    siblings: dict[str, list[str]] = {}
    parents = {entry.view.parent_span_id for entry in streams.values()}
    for entry in entries:
        parent = entry.view.parent_span_id
        if parent in streams:
            children.setdefault(parent, []).append(entry.view.span_id)
        if parent in parents and entry.view.span_id in graph_runs:
            siblings.setdefault(parent or "", []).append(entry.view.span_id)
    moved: dict[str, str] = {}
    for span_id, stream in sorted(streams.items()):
        name = stream.facts.agent_name
        own = children.get(span_id, [])
        if own:
            named = [child for child in own if child in graph_runs and _run_name(graph_runs[child]) == name]
            partner = named[0] if len(own) == 1 and named else None
        else:
            named = [run for run in siblings.get(stream.view.parent_span_id or "", []) if _run_name(graph_runs[run]) == name]
            partner = named[0] if len(named) == 1 else None
        if partner is None:
            continue
        run = graph_runs[partner]
        if stream.node_id is None or run.node_id is None:
            continue
        if run.facts.agent_name is None:
            run.facts = copy_facts(run.facts)
            run.facts.agent_name = name
        moved[stream.node_id] = run.node_id
        stream.node_id = run.node_id
        stream.primary = False
    follow_merged(entries, moved)
    return len(moved)


def _run_name(entry: SpanEntry) -> str | None:
    return entry.facts.agent_name or entry.facts.run_name
