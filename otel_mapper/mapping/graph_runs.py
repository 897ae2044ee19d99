"""Agent spans that are graph steps: LangChain runs OpenInference marks AGENT only because "agent" is in their name.

OpenInference's LangChain instrumentation gives a run the AGENT kind when its name contains "agent" (observed in
``openinference-instrumentation-langchain`` 0.1.80): LangGraph's prebuilt ReAct agent names its model node
``agent``, so every model turn is such a span, and a supervisor wraps each agent in node runs named after it
(``billing_agent`` → ``call_agent`` → the agent's graph). Only the run that executes an agent's graph is an agent
invocation: one of its child spans is the own run of a node of another graph (a LangGraph node's run is sequenced,
see :mod:`otel_mapper.mapping.readers.langgraph`), i.e. a node other than the one the span itself runs in. An AGENT
span inside a LangGraph node that runs no such graph becomes a workflow step. Parent links only; nothing here reads
an order.
"""

from __future__ import annotations

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.run_state import copy_facts
from semconv.trajectory import NodeKind

__all__ = ["runs_a_node_of_another_graph", "settle_graph_agent_runs"]


def settle_graph_agent_runs(entries: list[SpanEntry]) -> None:
    candidates = {
        entry.view.span_id: entry
        for entry in entries
        if entry.primary  # a redelivered copy of the span must not take its place here
        and entry.facts.kind is _AGENT_INVOCATION
        and entry.facts.graph_run_node is not None
        and not entry.facts.tool_name
    }
    if not candidates:
        return
    runs_a_graph: set[str] = set()
    for entry in entries:
        parent = candidates.get(entry.view.parent_span_id or "")
        if parent is not None and runs_a_node_of_another_graph(entry, parent):
            runs_a_graph.add(parent.view.span_id)
    for span_id, entry in candidates.items():
        if span_id in runs_a_graph:
            continue
        facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
        facts.kind = NodeKind.WORKFLOW_STEP
        facts.agent_name = None


def runs_a_node_of_another_graph(child: SpanEntry, parent: SpanEntry) -> bool:
    """Whether ``child`` is the own run of a LangGraph node (sequenced) of a graph other than the one ``parent``
    runs in: then ``parent`` runs that graph."""
    facts = child.facts
    return (
        facts.sequence is not None
        and facts.graph_run_node is not None
        and facts.graph_run_node != parent.facts.graph_run_node
    )
