"""LangGraph graph runs recorded by a LangChain callback handler that names runs by their class: which run an agent.

OpenLLMetry's LangChain instrumentation for JavaScript (``@traceloop/instrumentation-langchain`` 0.27.0, read in its
``dist/index.mjs``) opens a span ``workflow <name>`` per chain run, reading the run's name from an argument that LangChain
1.x passes elsewhere: every run is named by its class, a graph's run ``workflow CompiledStateGraph``
(``traceloop.workflow.name`` the class too), whether it is an agent's graph (LangGraph's prebuilt ReAct agent) or a
graph of agents (a supervisor). Its patch of LangChain's callback manager also drops every child run's parent run id,
so each span opens under whatever OpenTelemetry context is current (the app's own span, the same for all): no span is
inside another, and nothing says which runs a graph's run held.

What a graph run's own span still says:

- its output is the graph's state, ``{"messages": [...]}``, its input's messages followed by those the run added;
  LangGraph's prebuilt agents give their name to every AI message they write. A run whose added AI messages all carry
  one name ran that agent; a run that added messages of several agents ran a graph of agents (a workflow step);
- a run that handed the run to its parent graph (it raised LangGraph's ``ParentCommand``, ``Command.PARENT``: a handoff
  out of an agent's graph) ran an agent; which one, the span does not say;
- a run that is the only graph run of the trace ran the graph that drove its model calls: the agent (its name, if
  its output gives none, unknown).

Such a run becomes an agent invocation; any other graph run stays a workflow step. The reader marks the graph runs and
reads their messages (:func:`~otel_mapper.mapping.readers.openllmetry_langchain_js.read_langchain_js_graph`); this stage
reads facts only (a run mapped in pieces keeps no span's content). Nothing here reads an order.
"""

from __future__ import annotations

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import WORKFLOW_STEP
from otel_mapper.mapping.run_state import copy_facts
from semconv import langgraph
from semconv.trajectory import NodeKind

__all__ = ["settle_langchain_graph_runs"]


def settle_langchain_graph_runs(entries: list[SpanEntry]) -> None:
    """Make each graph run that ran an agent (see the module) an agent invocation."""
    graphs = [
        entry
        for entry in entries
        if entry.primary
        and entry.node_id is not None
        and entry.facts.class_named_graph_run
        and entry.facts.kind is WORKFLOW_STEP
    ]
    for entry in graphs:
        name = entry.facts.graph_run_agent
        if name == "":
            continue  # messages of several agents: a graph of agents
        handed_off = entry.facts.error_type == langgraph.PARENT_COMMAND
        if name is None and not handed_off and len(graphs) > 1:
            continue
        facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
        facts.kind = NodeKind.AGENT_INVOCATION
        facts.agent_name = name
        facts.graph_node_id = name
