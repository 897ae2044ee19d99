"""OpenLIT's LangGraph spans: one graph run recorded twice, one node run recorded twice, and LangChain runs typed
``invoke_agent`` for their name.

OpenLIT (1.45, read in ``instrumentation/langgraph/langgraph.py`` and ``instrumentation/langchain/__init__.py``;
observed in ``corpus/NOTES-frameworks-q.md``) traces a LangGraph flow from two sides:

- its LangGraph instrumentation wraps ``Pregel.invoke`` / ``stream`` (an ``invoke_workflow <graph>`` span, current;
  a graph invoked inside another is suppressed) and each node function added with ``StateGraph.add_node`` (an
  ``invoke_agent <node>`` span, ``gen_ai.provider.name=langgraph``, that reports the model, usage and response id
  of the last message the node returned);
- its LangChain callback handler opens a span per chat-model and tool run, and per chain run whose name (or class
  path) holds "agent" (``invoke_agent <run>``). Its spans take their parent from the LangChain run tree, so a node
  wrapper, current while its node runs, ends up a childless sibling of the node's own run.

Read as they are, every node run is an agent twice over, and a supervisor's node runs and the graphs they run are
agents nested in agents. Here, from facts and parent links only (an earlier revision's spans are kept without
attributes; nothing here reads an order):

1. A graph span (``invoke_workflow <graph>``) with exactly one child LangChain agent run named after the graph is
   the same graph run: merged into that run's node (declared). Without one (OpenLIT gives no span to a graph run
   whose name holds no "agent") it is the graph run's only record and stays a workflow step.
2. A node wrapper and the LangChain run of its node are one node run: the wrapper reports the response id of a
   model call whose nearest agent run is named after the node; or, without a response to go by, the wrapper and
   one run named after the node are the only ones of that name under one parent node. The wrapper is merged into
   that run (declared), and a node run is a workflow step. A wrapper with no such run is a workflow step of its own.
3. A LangChain run typed ``invoke_agent`` only for its name is an agent invocation when it is the nearest agent of a
   model call, tool run or handoff (after 1 and 2); one that only holds other agents' work is a workflow step.
"""

from __future__ import annotations

from collections import defaultdict

from otel_mapper.mapping.entries import SpanEntry, ancestors, follow_merged, merged_declaration
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import EXECUTION_KINDS as _EXECUTION_KINDS
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.model import Declaration
from semconv import langgraph, openlit
from semconv.genai import Operation

__all__ = ["settle_idle_agents", "settle_openlit_graphs"]

_GRAPH_PREFIX = Operation.INVOKE_WORKFLOW.value + " "


def settle_openlit_graphs(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], notes: list[Declaration]) -> None:
    graphs = [entry for entry in entries if _is_graph_span(entry)]
    wrappers = [entry for entry in entries if _is_node_wrapper(entry)]
    runs = [entry for entry in entries if _is_langchain_agent_run(entry)]
    if not runs or not (graphs or wrappers):
        return
    moved: dict[str, str] = {}
    graph_merges = _merge_graph_spans(entries, graphs, runs, moved)
    node_runs = _pair_node_wrappers(entries, by_span_id, wrappers, runs, moved)
    follow_merged(entries, moved)
    for entry in node_runs:
        _make_step(entry)
    settle_idle_agents(entries, by_span_id, [run for run in runs if run.facts.kind is _AGENT_INVOCATION])
    if graph_merges:
        notes.append(merged_declaration("a LangGraph graph's span and the LangChain run of that graph were read as one run", graph_merges))
    if len(moved) > graph_merges:
        notes.append(
            merged_declaration("a LangGraph node's span and the LangChain run of that node were read as one step", len(moved) - graph_merges)
        )


def _is_graph_span(entry: SpanEntry) -> bool:
    return (
        entry.primary
        and entry.view.scope_name == openlit.LANGGRAPH_SCOPE
        and entry.facts.kind is _WORKFLOW_STEP
        and entry.facts.name.startswith(_GRAPH_PREFIX)
    )


def _is_node_wrapper(entry: SpanEntry) -> bool:
    return (
        entry.primary
        and entry.view.scope_name == openlit.LANGGRAPH_SCOPE
        and entry.facts.kind is _AGENT_INVOCATION
        and entry.facts.provider == langgraph.PROVIDER
        and bool(entry.facts.agent_name)
    )


def _is_langchain_agent_run(entry: SpanEntry) -> bool:
    return (
        entry.primary
        and entry.view.scope_name == openlit.LANGCHAIN_SCOPE
        and entry.facts.kind is _AGENT_INVOCATION
        and bool(entry.facts.agent_name)
    )


def _merge(entry: SpanEntry, into: SpanEntry, moved: dict[str, str]) -> None:
    if entry.node_id is None or into.node_id is None:
        return
    moved[entry.node_id] = into.node_id
    entry.node_id = into.node_id
    entry.primary = False


def _merge_graph_spans(entries: list[SpanEntry], graphs: list[SpanEntry], runs: list[SpanEntry], moved: dict[str, str]) -> int:
    """Step 1: each graph span merged into the one child run named after its graph."""
    runs_under: dict[str, list[SpanEntry]] = defaultdict(list)
    for run in runs:
        runs_under[run.view.parent_span_id or ""].append(run)
    merged = 0
    for graph in graphs:
        name = graph.facts.name[len(_GRAPH_PREFIX):].strip()
        named = [run for run in runs_under.get(graph.view.span_id, ()) if run.facts.agent_name == name]
        if len(named) == 1:
            _merge(graph, named[0], moved)
            merged += 1
    return merged


def _pair_node_wrappers(
    entries: list[SpanEntry],
    by_span_id: dict[str, SpanEntry],
    wrappers: list[SpanEntry],
    runs: list[SpanEntry],
    moved: dict[str, str],
) -> list[SpanEntry]:
    """Step 2: the runs of the nodes the wrappers record (merging each wrapper into its run); unpaired wrappers
    become steps. Returns the node runs."""
    if not wrappers:
        return []
    run_ids = {run.view.span_id for run in runs}
    calls_by_response: dict[str, list[SpanEntry]] = defaultdict(list)
    for entry in entries:
        if entry.primary and entry.facts.kind is _MODEL_CALL and entry.facts.response_id:
            calls_by_response[entry.facts.response_id].append(entry)
    paired: dict[str, SpanEntry] = {}  # wrapper span id -> node run
    for wrapper in wrappers:
        calls = calls_by_response.get(wrapper.facts.response_id or "", [])
        if len(calls) != 1:
            continue
        nearest = _nearest_agent(calls[0], by_span_id)
        if nearest is not None and nearest.view.span_id in run_ids and nearest.facts.agent_name == wrapper.facts.agent_name:
            paired[wrapper.view.span_id] = nearest
    taken = {run.view.span_id for run in paired.values()}

    def parent_node(entry: SpanEntry) -> str | None:
        parent = by_span_id.get(entry.view.parent_span_id or "")
        return parent.node_id if parent is not None else None  # a merged graph span answers with its run's node

    by_place: dict[tuple[str | None, str | None], tuple[list[SpanEntry], list[SpanEntry]]] = defaultdict(lambda: ([], []))
    for wrapper in wrappers:
        if wrapper.view.span_id not in paired:
            by_place[(parent_node(wrapper), wrapper.facts.agent_name)][0].append(wrapper)
    for run in runs:
        if run.view.span_id not in taken:
            key = (parent_node(run), run.facts.agent_name)
            if key in by_place:
                by_place[key][1].append(run)
    for (parent, _), (unpaired, named_runs) in by_place.items():
        if parent is not None and len(unpaired) == 1 and len(named_runs) == 1:
            paired[unpaired[0].view.span_id] = named_runs[0]
    node_runs: list[SpanEntry] = []
    for wrapper in wrappers:
        node_run = paired.get(wrapper.view.span_id)
        if node_run is None:
            _make_step(wrapper)
            continue
        _merge(wrapper, node_run, moved)
        node_runs.append(node_run)
    return node_runs


def settle_idle_agents(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], runs: list[SpanEntry]) -> None:
    """Step 3: ``runs`` (agent invocations typed so by an instrumentation's naming) that are nobody's nearest agent,
    for no model call, tool run or handoff, become steps (also OpenLIT's CrewAI flow methods,
    :mod:`otel_mapper.mapping.openlit_crews`)."""
    if not runs:
        return
    working: set[str] = set()
    for entry in entries:
        if entry.primary and (entry.facts.kind is _MODEL_CALL or entry.facts.kind in _EXECUTION_KINDS):
            nearest = _nearest_agent(entry, by_span_id)
            if nearest is not None:
                working.add(nearest.view.span_id)
    for run in runs:
        if run.view.span_id not in working:
            _make_step(run)


def _nearest_agent(entry: SpanEntry, by_span_id: dict[str, SpanEntry]) -> SpanEntry | None:
    return next((up for up in ancestors(entry, by_span_id) if up.primary and up.facts.kind is _AGENT_INVOCATION), None)


def _make_step(entry: SpanEntry) -> None:
    facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
    facts.kind = _WORKFLOW_STEP
    facts.agent_name = None  # a node or chain run named after an agent is not that agent
