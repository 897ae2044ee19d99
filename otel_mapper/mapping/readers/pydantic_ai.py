"""Reader for Pydantic AI spans and the Logfire SDK's markers.

Pinned to ``pydantic-ai-slim`` 2.68.0 (instrumentation data versions 2-6) and ``logfire-sdk`` 5.4.0; names in
:mod:`semconv.pydantic_ai`.

Recovers: Logfire ``pending_span`` placeholders are dropped (re-emitted, never nodes; their children are hung
on the real parent); everything GenAI-shaped through :func:`fill_genai_facts`; agent-level
``gen_ai.aggregated_usage.*`` marked as an aggregate (never counted as model usage); data version 2 spans
(``agent run`` / ``running tool`` with ``agent_name``, ``model_name``, ``tool_arguments``, ``tool_response``);
Logfire's level ``error`` as a failure; Logfire's OpenAI Agents spans (scope ``logfire.openai_agents``) by
their message template (:mod:`otel_mapper.mapping.readers.logfire_agents`), and its handoff / guardrail spans
elsewhere (``from_agent`` / ``to_agent`` / ``triggered``); a failed attempt at a model request (``model request attempt
{model}``, ``pydantic_ai.model_request.attempt``, no operation name) as the model call it was. The HTTP status a
``ModelHTTPError`` writes into its message (``status_code: 429, model_name: ...``), which no attribute carries, is read
for every convention's failed model call (:func:`otel_mapper.mapping.readers.common.model_call_http_status`).
A span the application opens through the ``logfire`` API (scope ``logfire``, ``span_type`` ``span``: ``logfire.span``,
``@logfire.instrument``) that none of the above names is a step of the application's run, as the GenAI reader reads an
operation it does not know; a log line (``span_type`` ``log``) stays ``other``. An OpenInference span that Logfire's
tracer only marked (``openinference.span.kind`` and no Pydantic AI key: Logfire's OpenInference-based integrations, its
``instrument_litellm``) is not claimed: the OpenInference reader reads it.
"""

from __future__ import annotations

import logging
from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation
from otel_mapper.mapping.readers.logfire_agents import read_logfire_agents_span
from otel_mapper.mapping.spans import SpanView
from semconv import genai
from semconv import openinference as oi
from semconv import pydantic_ai as pa
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "PydanticAIReader"]

logger = logging.getLogger(__name__)

CONVENTION: Final = "pydantic_ai"
_LOGFIRE_KEYS: Final = frozenset({pa.SPAN_TYPE, pa.MSG})
"""Keys Logfire's tracer writes on every span it starts, a web request's as well as an agent's."""
_MARKERS: Final = _LOGFIRE_KEYS | frozenset(
    {
        pa.AGENT_CALL_ID,
        pa.AGGREGATED_USAGE_INPUT_TOKENS,
        pa.AGGREGATED_USAGE_OUTPUT_TOKENS,
        pa.ALL_MESSAGES,
        pa.TOOL_ARGUMENTS_V2,
        pa.MODEL_REQUEST_ATTEMPT,
    }
)


def _openinference_span_on_logfire(view: SpanView) -> bool:
    """An OpenInference span that Logfire's tracer only marked: ``openinference.span.kind`` with no Pydantic AI key,
    only the keys Logfire writes on every span it starts (an OpenInference instrumentor run on Logfire's provider, as
    ``logfire.instrument_litellm()`` does; the keys Logfire's processor adds at its end, ``request_data`` and GenAI
    ones, are no marker). Such a span is read by its own convention's reader; a pending placeholder stays here, to be
    dropped."""
    attrs = view.attrs
    if oi.SPAN_KIND not in attrs or view.str_attr(pa.SPAN_TYPE) == pa.SPAN_TYPE_PENDING:
        return False
    return attrs.keys().isdisjoint(_MARKERS - _LOGFIRE_KEYS) and pa.AGENT_NAME_V2 not in attrs


class PydanticAIReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = (_MARKERS - _LOGFIRE_KEYS) | {pa.AGENT_NAME_V2}
    """Attribute keys ``claims`` looks for that show agent work (one of them, a companion key or a marker scope is
    needed for a claim)."""
    companion_keys: ClassVar[frozenset[str]] = _LOGFIRE_KEYS
    """Keys ``claims`` also looks for that show no agent work alone: Logfire writes them on every span its tracer
    starts (``logfire.span_type`` on a FastAPI request's span too). A trace holding only these is no agent's run
    (:mod:`otel_mapper.mapping.recognition`); in an agent's trace, such a span is read (a ``logfire.span`` block is
    a step of the run)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset()

    def claims(self, view: SpanView) -> bool:
        attrs = view.attrs
        if _openinference_span_on_logfire(view):
            return False
        return not attrs.keys().isdisjoint(_MARKERS) or (
            pa.AGENT_NAME_V2 in attrs and view.span.name == pa.AGENT_RUN_SPAN
        )

    def classify(self, view: SpanView) -> NodeKind:
        operation = view.str_attr(genai.OPERATION_NAME)
        if operation:
            return kind_of_operation(operation)
        if view.has(pa.MODEL_REQUEST_ATTEMPT):
            return NodeKind.MODEL_CALL
        name = view.span.name
        if name == pa.AGENT_RUN_SPAN or view.has(pa.AGENT_NAME_V2):
            return NodeKind.AGENT_INVOCATION
        if name == pa.RUNNING_TOOL_SPAN or view.has(pa.TOOL_ARGUMENTS_V2):
            return NodeKind.TOOL_EXECUTION
        if view.has(pa.LOGFIRE_AGENTS_TO_AGENT):
            return NodeKind.HANDOFF
        if view.has(pa.LOGFIRE_AGENTS_TRIGGERED):
            return NodeKind.GUARDRAIL
        if view.has(genai.SYSTEM) or view.has(genai.REQUEST_MODEL):
            return NodeKind.MODEL_CALL
        if view.scope_name == pa.API_SCOPE and view.str_attr(pa.SPAN_TYPE) == pa.SPAN_TYPE_SPAN:
            return NodeKind.WORKFLOW_STEP  # the application's own `logfire.span` block: a step of its run
        return NodeKind.OTHER

    def read(self, view: SpanView) -> SpanFacts:
        if view.str_attr(pa.SPAN_TYPE) == pa.SPAN_TYPE_PENDING:
            return SpanFacts(kind=NodeKind.OTHER, convention=self.name, name=view.name, drop=True)
        if view.scope_name == pa.LOGFIRE_AGENTS_SCOPE:
            return read_logfire_agents_span(view)
        kind = self.classify(view)
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        if kind is NodeKind.AGENT_INVOCATION:
            facts.agent_name = clean_name(view.str_attr(genai.AGENT_NAME)) or clean_name(view.str_attr(pa.AGENT_NAME_V2))
        if view.has(pa.AGGREGATED_USAGE_INPUT_TOKENS) or view.has(pa.AGGREGATED_USAGE_OUTPUT_TOKENS):
            facts.usage_is_aggregate = True
        if kind is NodeKind.MODEL_CALL:
            facts.model = clean_name(view.str_attr(pa.MODEL_NAME_V2))
        if kind is NodeKind.TOOL_EXECUTION and pa.TOOL_ARGUMENTS_V2 in view.attrs:
            facts.arguments = arguments_text(view.json_attr(pa.TOOL_ARGUMENTS_V2))
            facts.arguments_visible = facts.arguments is not None
            facts.result_visible = pa.TOOL_RESPONSE_V2 in view.attrs
        if kind is NodeKind.HANDOFF:
            facts.handoff_from_agent = clean_name(view.str_attr(pa.LOGFIRE_AGENTS_FROM_AGENT))
            facts.handoff_to_agent = clean_name(view.str_attr(pa.LOGFIRE_AGENTS_TO_AGENT))
        fill_genai_facts(view, facts)
        level = view.int_attr(pa.LEVEL_NUM)
        if level is not None and level >= pa.LEVEL_ERROR:
            facts.failed = True
        return facts
