"""Reader for OpenLLMetry / Traceloop spans.

Pinned to ``opentelemetry-semantic-conventions-ai`` 0.5.1, ``traceloop-sdk`` 0.62.4 and its instrumentations
0.62.4 (names in :mod:`semconv.openllmetry`); indexed ``gen_ai.prompt.N`` / ``gen_ai.completion.N`` of <= 0.54.

Recovers: kind from ``gen_ai.operation.name`` when present, else ``traceloop.span.kind``, else
``llm.request.type``, else the ``{name}.{kind}`` span name; everything GenAI-shaped (messages, usage, response
id, tool-call ids) through :func:`fill_genai_facts`; tool name and arguments of decorator tool spans from
``traceloop.entity.*`` (the ``{"args": [], "kwargs": {...}}`` record, unwrapped identically on both sides of the
argument join; the MCP instrumentation's ``{"tool_name", "arguments"}`` record of a ``tools/call``, in
:mod:`~otel_mapper.mapping.readers.openllmetry_mcp`) and of LangChain tool spans (``input_str`` payload; the JavaScript handler's, named after the tool's
class, in :mod:`~otel_mapper.mapping.readers.openllmetry_langchain_js`); agent names and handoff parents; handoffs
``{from} → {to}.handoff`` (``unknown`` targets left unknown); LangGraph steps from association properties.
"""

from __future__ import annotations

import ast
import logging
from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation
from otel_mapper.mapping.readers.langchain_agents import read_openllmetry_langchain_run
from otel_mapper.mapping.readers.langchain_messages import MAX_TOOL_MESSAGE, tool_message_call_id
from otel_mapper.mapping.readers.langgraph import is_control_flow, sequence_from_metadata
from otel_mapper.mapping.readers.openai_agents import handoff_tool_name
from otel_mapper.mapping.readers.openllmetry_agno import agno_kind, agno_team_name, read_agno_tool_result
from otel_mapper.mapping.readers.openllmetry_langchain_js import read_langchain_js_graph, read_langchain_js_tool
from otel_mapper.mapping.readers.openllmetry_llama_index import llama_index_kind, read_llama_index
from otel_mapper.mapping.readers.openllmetry_mcp import mcp_call_arguments
from otel_mapper.mapping.readers.openllmetry_tool_results import fill_decorated_tool_result
from otel_mapper.mapping.spans import MAX_TEXT, SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai, langgraph
from semconv import openllmetry as tl
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "OpenLLMetryReader", "langchain_arguments"]

logger = logging.getLogger(__name__)

CONVENTION: Final = "openllmetry"
_MARKERS: Final = frozenset({tl.SPAN_KIND, tl.ENTITY_NAME, tl.WORKFLOW_NAME, tl.LLM_REQUEST_TYPE})
_SPAN_KINDS: Final = {
    tl.KIND_WORKFLOW: NodeKind.WORKFLOW_STEP,
    tl.KIND_TASK: NodeKind.WORKFLOW_STEP,
    tl.KIND_AGENT: NodeKind.AGENT_INVOCATION,
    tl.KIND_TOOL: NodeKind.TOOL_EXECUTION,
    tl.KIND_HANDOFF: NodeKind.HANDOFF,
}
_STEP_KINDS: Final = (tl.KIND_WORKFLOW, tl.KIND_TASK)
_LANGGRAPH_KEYS: Final = (langgraph.STEP, langgraph.NODE, langgraph.CHECKPOINT_NS)


def _kind_by_name(name: str) -> str | None:
    """The OpenLLMetry span kind a ``<entity>.<kind>`` span name gives (the SDK's decorators name spans so)."""
    for suffix, suffix_kind in tl.NAME_SUFFIX_KINDS:
        if name.endswith(suffix):
            return suffix_kind
    return None


class OpenLLMetryReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = _MARKERS
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({tl.CREWAI_SCOPE_NAME})

    def claims(self, view: SpanView) -> bool:
        attrs = view.attrs
        return not attrs.keys().isdisjoint(_MARKERS) or view.scope_name == tl.CREWAI_SCOPE_NAME

    def classify(self, view: SpanView) -> NodeKind:
        operation = view.str_attr(genai.OPERATION_NAME)
        span_kind = view.str_attr(tl.SPAN_KIND)
        if operation:
            kind = kind_of_operation(operation)
            # The CrewAI instrumentation writes invoke_agent on the crew (``crewai.workflow``), task (``<task>.task``)
            # and agent spans alike (0.62.4, observed): its own kind says which of them runs an agent.
            if kind is NodeKind.AGENT_INVOCATION and (span_kind or _kind_by_name(view.name)) in _STEP_KINDS:
                return NodeKind.WORKFLOW_STEP
            return kind
        if span_kind in _SPAN_KINDS:
            return _SPAN_KINDS[span_kind]
        request_type = view.str_attr(tl.LLM_REQUEST_TYPE)
        if request_type in tl.REQUEST_TYPES_MODEL:
            return NodeKind.MODEL_CALL
        if request_type in tl.REQUEST_TYPES_RETRIEVAL:
            return NodeKind.RETRIEVAL
        by_name = _kind_by_name(view.name)
        if by_name is not None:
            return _SPAN_KINDS[by_name]
        if view.has(genai.SYSTEM) or view.has(genai.REQUEST_MODEL):
            return NodeKind.MODEL_CALL
        return NodeKind.OTHER

    def read(self, view: SpanView) -> SpanFacts:
        kind = self.classify(view)
        llama_index = view.scope_name == tl.LLAMAINDEX_SCOPE_NAME
        agno = view.scope_name == tl.AGNO_SCOPE_NAME
        if llama_index:
            kind = llama_index_kind(view, kind)
        elif agno:
            kind = agno_kind(view, kind)
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        entity = clean_name(view.str_attr(tl.ENTITY_NAME))
        if kind is NodeKind.TOOL_EXECUTION:
            facts.tool_name = clean_name(view.str_attr(genai.TOOL_NAME)) or entity or _strip_suffix(view.name)
            _read_tool_input(view, facts)
            read_langchain_js_tool(view, facts)
        elif kind is NodeKind.AGENT_INVOCATION:
            facts.agent_name = (
                clean_name(view.str_attr(genai.AGENT_NAME))
                or (agno_team_name(view) if agno else None)
                or entity
                or _strip_suffix(view.name)
            )
            facts.graph_node_id = facts.agent_name
            parent = clean_name(view.str_attr(tl.AGENT_HANDOFF_PARENT))
            if parent:
                facts.graph_parent_id = parent
                facts.graph_parent_evidence = tl.AGENT_HANDOFF_PARENT
        elif kind is NodeKind.HANDOFF:
            _read_handoff(view, facts)
        elif kind is NodeKind.WORKFLOW_STEP:
            read_langchain_js_graph(view, facts)
        fill_genai_facts(view, facts)  # also reads errors
        if facts.handoff_to_agent == tl.UNKNOWN_AGENT:
            facts.handoff_to_agent = None
        if facts.kind is NodeKind.TOOL_EXECUTION and not facts.arguments_visible:
            _read_tool_input(view, facts)
        elif facts.kind is NodeKind.TOOL_EXECUTION and facts.arguments is not None:
            # LangChain's callback payload in gen_ai.tool.call.arguments: use the tool input inside it.
            unwrapped = langchain_arguments(view.json_attr(genai.TOOL_CALL_ARGUMENTS))
            if unwrapped is not None:
                facts.arguments = unwrapped
        if view.has(tl.ENTITY_OUTPUT):
            facts.result_visible = True
            if facts.kind is NodeKind.TOOL_EXECUTION and facts.tool_call_id is None:
                facts.tool_call_id = _tool_message_call_id(view)
            fill_decorated_tool_result(view, facts)
        _read_langgraph(view, facts)
        if facts.kind is NodeKind.TOOL_EXECUTION:
            _read_handoff_destination(view, facts)
        if llama_index:
            read_llama_index(view, facts)
        elif agno and facts.kind is NodeKind.TOOL_EXECUTION:
            read_agno_tool_result(view, facts)
        elif view.scope_name == tl.LANGCHAIN_SCOPE_NAME:
            read_openllmetry_langchain_run(view, facts)
        if facts.failed and is_control_flow(facts.error_type, facts.error_message):
            facts.failed = False
        return facts


def _strip_suffix(name: str) -> str | None:
    for suffix, _ in tl.NAME_SUFFIX_KINDS:
        if name.endswith(suffix):
            return clean_name(name[: -len(suffix)])
    return clean_name(name)


def _read_tool_input(view: SpanView, facts: SpanFacts) -> None:
    if tl.ENTITY_INPUT not in view.attrs:
        return
    facts.arguments = arguments_text(mcp_call_arguments(view.json_attr(tl.ENTITY_INPUT), facts.tool_name))
    facts.arguments_visible = facts.arguments is not None


def langchain_arguments(payload: Decoded) -> str | None:
    """Arguments inside LangChain's ``{"input_str": "<repr>", ...}`` callback payload, else ``None``.

    ``input_str`` is a Python repr (``{'order_id': 'A-1'}``), read with ``ast.literal_eval``: it builds literals
    only, never runs code; size-bounded and any failure leaves the payload as recorded.
    """
    if not isinstance(payload, dict) or tl.LANGCHAIN_INPUT_STR not in payload:
        return None
    text = payload[tl.LANGCHAIN_INPUT_STR]
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return None
    parsed: Decoded
    try:
        parsed = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return arguments_text(text)
    if isinstance(parsed, (dict, list, str, int, float, bool)) or parsed is None:
        return arguments_text(parsed)
    return None


def _read_handoff(view: SpanView, facts: SpanFacts) -> None:
    from_agent = clean_name(view.str_attr(genai.HANDOFF_FROM_AGENT))
    to_agent = clean_name(view.str_attr(genai.HANDOFF_TO_AGENT))
    name = view.name
    if (from_agent is None or to_agent is None) and name.endswith(tl.HANDOFF_NAME_SUFFIX) and tl.HANDOFF_NAME_ARROW in name:
        left, _, right = name[: -len(tl.HANDOFF_NAME_SUFFIX)].partition(tl.HANDOFF_NAME_ARROW)
        from_agent = from_agent or clean_name(left)
        to_agent = to_agent or clean_name(right)
    facts.handoff_from_agent = from_agent
    # "unknown" is the instrumentation's placeholder, not an agent called "unknown" (observed in 0.62.4).
    facts.handoff_to_agent = to_agent if to_agent != tl.UNKNOWN_AGENT else None
    if facts.handoff_to_agent:
        facts.tool_name = handoff_tool_name(facts.handoff_to_agent)


def _tool_message_call_id(view: SpanView) -> str | None:
    """The call id of the LangChain ``ToolMessage`` a tool run returned, inside ``{"output": <message>, ...}``."""
    head = view.str_attr(tl.ENTITY_OUTPUT, limit=MAX_TOOL_MESSAGE)
    if not head or tl.LANGCHAIN_TOOL_CALL_ID not in head or len(head) >= MAX_TOOL_MESSAGE:
        return None  # cheap: only outputs that name a call id are parsed
    payload = parse_json_text(head)
    return tool_message_call_id(payload.get(tl.LANGCHAIN_OUTPUT) if isinstance(payload, dict) else None)


def _read_handoff_destination(view: SpanView, facts: SpanFacts) -> None:
    """A tool that names the agent it hands the run to in its metadata (langgraph-supervisor's handoff tools) runs a
    handoff: its execution is the handoff node, joined to the model's proposal by its tool name and call id."""
    destination = clean_name(view.str_attr(tl.ASSOCIATION_PROPERTIES + langgraph.HANDOFF_DESTINATION))
    if destination:
        facts.kind = NodeKind.HANDOFF
        facts.handoff_to_agent = destination


def _read_langgraph(view: SpanView, facts: SpanFacts) -> None:
    prefix = tl.ASSOCIATION_PROPERTIES
    step_key = prefix + langgraph.STEP
    if step_key not in view.attrs:
        return
    metadata: dict[str, Decoded] = {}
    for key in _LANGGRAPH_KEYS:
        value = view.str_attr(prefix + key, limit=1024)
        if value is not None:
            metadata[key] = value
    # Spans are named ``execute_task <run>`` (0.62.4); the run's own name is the entity name (else the span name).
    facts.run_name = clean_name(view.str_attr(tl.ENTITY_NAME))
    facts.sequence = sequence_from_metadata(view, metadata, facts.run_name)
    node = metadata.get(langgraph.NODE)
    facts.graph_run_node = clean_name(node) if isinstance(node, str) else None
