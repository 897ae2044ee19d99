"""Logfire's OpenAI Agents SDK spans (``logfire.instrument_openai_agents()``): the kind from the message template.

Pinned to ``logfire`` 5.4.0 (``_internal/integrations/openai_agents.py``) on ``openai-agents`` 0.24.0; names in
:mod:`semconv.pydantic_ai`. Logfire opens one span per SDK span, named by a message template per span type
(``Agent run: {name!r}``, ``Function: {name}``, ``Chat completion with {gen_ai.request.model!r}``, ``Handoff:
{from_agent} → {to_agent}``, ``Task: <name>``, ``Turn {turn} for agent <name>``, ...), with the SDK's
``span_data.export()`` fields as attributes and ``gen_ai.system=openai`` on every one of them, so neither an
operation name nor ``gen_ai.system`` says what a span is; the template does. Its attributes:

- agent runs: ``name``, ``tools`` (JSON list of tool names), ``handoffs``;
- function (tool) runs: ``name``, ``input`` (the arguments, JSON text), ``output`` (the result); no call id;
- generations: ``input`` / ``output`` as Chat Completions messages (assistant ``tool_calls`` with their ids,
  ``tool`` messages with ``tool_call_id``), ``gen_ai.usage.*``, ``gen_ai.request.model``;
- task and turn spans (``sdk_span_type``): the run's and the turn's totals in ``usage`` (never model usage), the
  turn's ``agent_name``; they are steps, not agents;
- a failed span: level error (status ERROR) and ``error``, the SDK's ``{"message": ..., "data": {...}}``: ``Error
  running tool (non-fatal)`` on a tool that raised, ``Error getting response`` on a failed model request, ``Error
  in agent run``, and ``Tool not found`` with ``data.tool_name`` on the turn whose model called an unknown tool.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.readers.common import GUARDRAIL_TRIGGERED_ERROR, clean_name, fill_chat_completions, fill_error
from otel_mapper.mapping.readers.genai import fill_genai_facts
from otel_mapper.mapping.spans import MAX_TEXT, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import pydantic_ai as pa
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "read_logfire_agents_span"]

CONVENTION: Final = "logfire_openai_agents"

_KINDS: Final[dict[str, NodeKind]] = {
    pa.LOGFIRE_AGENTS_TRACE: NodeKind.WORKFLOW_STEP,
    pa.LOGFIRE_AGENTS_AGENT: NodeKind.AGENT_INVOCATION,
    pa.LOGFIRE_AGENTS_FUNCTION: NodeKind.TOOL_EXECUTION,
    pa.LOGFIRE_AGENTS_GENERATION: NodeKind.MODEL_CALL,
    pa.LOGFIRE_AGENTS_GUARDRAIL: NodeKind.GUARDRAIL,
    pa.LOGFIRE_AGENTS_HANDOFF: NodeKind.HANDOFF,
    pa.LOGFIRE_AGENTS_CUSTOM: NodeKind.WORKFLOW_STEP,
    pa.LOGFIRE_AGENTS_MCP_TOOLS: NodeKind.OTHER,
}


def kind_of_template(template: str, sdk_span_type: str | None) -> NodeKind:
    """The node kind of a Logfire Agents span from its message template (task and turn spans: steps)."""
    kind = _KINDS.get(template)
    if kind is not None:
        return kind
    if template.startswith(pa.LOGFIRE_AGENTS_RESPONSE):
        return NodeKind.MODEL_CALL
    if sdk_span_type is not None:  # task, turn, and span types newer than this reader
        return NodeKind.WORKFLOW_STEP
    return NodeKind.OTHER


def read_logfire_agents_span(view: SpanView) -> SpanFacts:
    template = view.str_attr(pa.MSG_TEMPLATE) or view.span.name
    kind = kind_of_template(template, view.str_attr(pa.LOGFIRE_AGENTS_SDK_SPAN_TYPE))
    facts = SpanFacts(kind=kind, convention=CONVENTION, name=view.name)
    if kind is NodeKind.MODEL_CALL:
        fill_genai_facts(view, facts)  # model, provider, usage, error
        fill_chat_completions(
            facts, _recorded_messages(view, pa.LOGFIRE_AGENTS_INPUT), _recorded_messages(view, pa.LOGFIRE_AGENTS_OUTPUT)
        )
    elif kind is NodeKind.AGENT_INVOCATION:
        facts.agent_name = clean_name(view.str_attr(pa.LOGFIRE_AGENTS_NAME))
        tools = view.json_attr(pa.LOGFIRE_AGENTS_TOOLS)
        if isinstance(tools, list):
            facts.tool_definitions = tuple(sorted({name for item in tools if (name := clean_name(str(item)))}))
    elif kind is NodeKind.TOOL_EXECUTION:
        facts.tool_name = clean_name(view.str_attr(pa.LOGFIRE_AGENTS_NAME))
        if pa.LOGFIRE_AGENTS_INPUT in view.attrs:
            facts.arguments = arguments_text(view.json_attr(pa.LOGFIRE_AGENTS_INPUT))
            facts.arguments_visible = facts.arguments is not None
        facts.result_visible = pa.LOGFIRE_AGENTS_OUTPUT in view.attrs
    elif kind is NodeKind.HANDOFF:
        facts.handoff_from_agent = clean_name(view.str_attr(pa.LOGFIRE_AGENTS_FROM_AGENT))
        facts.handoff_to_agent = clean_name(view.str_attr(pa.LOGFIRE_AGENTS_TO_AGENT))
    elif kind is NodeKind.GUARDRAIL and view.bool_attr(pa.LOGFIRE_AGENTS_TRIGGERED):
        facts.error_type = GUARDRAIL_TRIGGERED_ERROR
    _fill_sdk_error(view, facts)
    fill_error(view, facts)
    level = view.int_attr(pa.LEVEL_NUM)
    if level is not None and level >= pa.LEVEL_ERROR and kind is not NodeKind.GUARDRAIL:
        facts.failed = True
    return facts


def _recorded_messages(view: SpanView, key: str) -> Decoded:
    """A generation's message list; recorded but no list (``null``: a failed request answered nothing) is no message,
    not content left uncaptured; ``None`` when the attribute is absent."""
    if key not in view.attrs:
        return None
    messages = view.json_attr(key)
    return messages if isinstance(messages, list) else []


def _fill_sdk_error(view: SpanView, facts: SpanFacts) -> None:
    """The SDK's ``SpanError``: its data's error text as the message, and the tool a ``Tool not found`` names."""
    error = view.json_attr(pa.LOGFIRE_AGENTS_ERROR)
    if not isinstance(error, dict):
        return
    message, data = error.get("message"), error.get("data")
    data = data if isinstance(data, dict) else {}
    detail = data.get("error")
    text = detail if isinstance(detail, str) and detail else message
    if isinstance(text, str) and text:
        facts.error_message = facts.error_message or text[:MAX_TEXT]
    if message == pa.LOGFIRE_AGENTS_TOOL_NOT_FOUND and facts.unknown_tool is None:
        facts.unknown_tool = clean_name(str(data.get("tool_name") or "")) or None
