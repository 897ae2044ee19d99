"""MLflow Tracing spans of LangChain runs (``mlflow.langchain.autolog()``): what the run data adds to the span type.

Pinned to ``mlflow-tracing`` 3.17.2 on ``langchain-core`` 1.8.3 / ``langgraph`` 1.2.24; names in
:mod:`semconv.mlflow` and :mod:`semconv.langgraph`. MLflow's LangChain tracer opens one span per run and writes the
start callback's extra arguments as attributes: the run's metadata (``metadata``, JSON), a tool run's call id
(``tool_call_id``).

- LangGraph's run metadata (``langgraph_step`` / ``langgraph_node`` ...) gives the node runs their sequence and every
  run the node it runs in, as for the other LangChain conventions (:mod:`otel_mapper.mapping.readers.langgraph`).
- A ``CHAIN`` run of a LangGraph graph (``ls_integration`` ``langgraph``) whose name holds "agent" is an agent
  invocation candidate, the rule by which OpenInference's and Langfuse's LangChain handlers type a run ``agent``;
  :mod:`otel_mapper.mapping.graph_runs` keeps only the runs that execute an agent's graph.
- A tool run carries the model's call id; langgraph-supervisor's handoff tools say in their metadata
  (``__handoff_destination``) which agent they hand the run to: their execution is the handoff.
- LangGraph's control-flow exceptions (``ParentCommand`` for a handoff to the parent graph) mark runs ERROR although
  nothing failed.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.langgraph import is_control_flow, sequence_from_metadata
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import langgraph
from semconv import mlflow as ml
from semconv.trajectory import NodeKind

__all__ = ["read_langchain_run", "run_metadata"]

MAX_METADATA: Final = 64 * 1024
"""Longest run-metadata text parsed (LangGraph's keys and a few ids are far shorter)."""
_AGENT_NAME_MARK: Final = "agent"


def run_metadata(view: SpanView) -> dict[str, Decoded] | None:
    """The run's metadata object, ``None`` when the span has none (no LangChain run) or it is no bounded object."""
    text = view.str_attr(ml.RUN_METADATA, limit=MAX_METADATA + 1)
    if text is None or len(text) > MAX_METADATA:
        return None
    value = parse_json_text(text)
    return value if isinstance(value, dict) else None


def read_langchain_run(view: SpanView, facts: SpanFacts, metadata: dict[str, Decoded]) -> None:
    """Complete ``facts`` (already read for the span type, errors included) from the LangChain run's data."""
    if (
        facts.kind is NodeKind.WORKFLOW_STEP
        and metadata.get(langgraph.INTEGRATION) == langgraph.INTEGRATION_LANGGRAPH
        and _AGENT_NAME_MARK in view.name.lower()
    ):
        facts.kind = NodeKind.AGENT_INVOCATION
        facts.agent_name = clean_name(view.name)
    elif facts.kind is NodeKind.TOOL_EXECUTION:
        call_id = view.json_attr(ml.TOOL_CALL_ID) if ml.TOOL_CALL_ID in view.attrs else None
        facts.tool_call_id = clean_name(call_id) if isinstance(call_id, str) else None
        destination = metadata.get(langgraph.HANDOFF_DESTINATION)
        if isinstance(destination, str) and clean_name(destination):
            facts.kind = NodeKind.HANDOFF
            facts.handoff_to_agent = clean_name(destination)
    facts.sequence = sequence_from_metadata(view, metadata)
    node = metadata.get(langgraph.NODE)
    facts.graph_run_node = clean_name(node) if isinstance(node, str) else None
    if facts.failed and is_control_flow(facts.error_type, facts.error_message):
        facts.failed = False
