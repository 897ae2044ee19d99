"""Laminar's LangChain callback handler (``lmnr.span.instrumentation_scope.name = langchain``): one span per run.

Pinned to ``lmnr`` 0.8.2 (:data:`semconv.laminar.LANGCHAIN_SCOPE`). Its spans carry Laminar's types (``DEFAULT`` a chain
run, ``TOOL`` a tool run, ``LLM`` a chat-model run) and the GenAI operation it gives each run; read here as the other
LangChain handlers' runs are:

- a chain run is a workflow step, except one whose run name holds "agent": an agent invocation candidate (the rule by
  which OpenInference's and Langfuse's handlers type a run ``agent``; LangSmith's is read alike). The handler's
  ``invoke_agent`` says only that a run is a root (a graph of agents is one too), so it is not read as the kind; its
  ``gen_ai.agent.name`` names the agent. The LangGraph metadata of ``langchain.metadata`` (``graph_run_node``,
  ``sequence``) lets :mod:`otel_mapper.mapping.graph_runs` keep only the runs that execute an agent's graph;
- a tool run is named by ``gen_ai.tool.name`` (its span name is ``execute_tool <tool>``) and joins its proposal by
  ``gen_ai.tool.call.id``;
- LangGraph's control-flow exceptions (a handoff's ``ParentCommand``) are no failure.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name, json_content
from otel_mapper.mapping.readers.langgraph import is_control_flow, sequence_from_metadata
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv import genai, langgraph
from semconv import laminar as lm
from semconv.trajectory import NodeKind

__all__ = ["is_langchain_run", "langchain_chain_kind", "read_langchain_run"]

_AGENT_NAME_MARK: Final = "agent"
_MAX_METADATA: Final = 16 * MAX_NAME
"""Characters of ``langchain.metadata`` read (a longer text is read as none)."""


def is_langchain_run(view: SpanView) -> bool:
    return view.str_attr(lm.INSTRUMENTATION_SCOPE) == lm.LANGCHAIN_SCOPE


def _run_name(view: SpanView) -> str:
    name = view.name
    if name.startswith(lm.LANGCHAIN_TASK_PREFIX):
        return name[len(lm.LANGCHAIN_TASK_PREFIX):]
    if name.endswith(lm.LANGCHAIN_ROOT_SUFFIX):
        return name[: -len(lm.LANGCHAIN_ROOT_SUFFIX)]
    return name


def langchain_chain_kind(view: SpanView) -> NodeKind:
    """A chain run's kind: an agent invocation candidate when its run name holds "agent", else a workflow step."""
    return NodeKind.AGENT_INVOCATION if _AGENT_NAME_MARK in _run_name(view).lower() else NodeKind.WORKFLOW_STEP


def read_langchain_run(view: SpanView, facts: SpanFacts) -> None:
    """Agent name, tool name and call id, LangGraph metadata and control flow of a run's span (after the error is
    read)."""
    run_name = _run_name(view)
    if facts.kind is NodeKind.AGENT_INVOCATION:
        facts.agent_name = clean_name(view.str_attr(genai.AGENT_NAME) or run_name)
    elif facts.kind is NodeKind.TOOL_EXECUTION:
        facts.tool_name = clean_name(view.str_attr(genai.TOOL_NAME)) or facts.tool_name
        facts.tool_call_id = clean_name(view.str_attr(genai.TOOL_CALL_ID)) or facts.tool_call_id
    metadata = json_content(view, lm.LANGCHAIN_METADATA, limit=_MAX_METADATA)
    if isinstance(metadata, dict) and langgraph.STEP in metadata:
        facts.sequence = sequence_from_metadata(view, metadata, run_name[:MAX_NAME])
        node = metadata.get(langgraph.NODE)
        facts.graph_run_node = clean_name(node) if isinstance(node, str) else None
    if facts.failed and is_control_flow(facts.error_type, facts.error_message):
        facts.failed = False
