"""OpenInference handoff spans: the OpenAI Agents SDK's ``handoff to <agent>`` TOOL spans and langgraph-supervisor's
``transfer_to_<agent>`` tools.

The Python Agents SDK instrumentation writes the two agents' names as they are (``input.value`` = from,
``output.value`` = to) and no ``tool.name``: the span executes the SDK's handoff tool, whose default name
(``transfer_to_<agent>``) joins it to the model's proposal. The JavaScript instrumentation writes them as JSON
objects (``{"from_agent": ...}``, ``{"to_agent": ...}``) and a ``tool.name`` of its own, ``handoff_to_<agent>``, which
names no tool the model called: read as no tool name, so that the SDK's default applies there too.
"""

from __future__ import annotations

import logging

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.openai_agents import handoff_tool_name
from otel_mapper.mapping.spans import MAX_NAME, SpanView, parse_json_text
from semconv import langgraph
from semconv import openinference as oi

logger = logging.getLogger(__name__)

_MAX_AGENT_VALUE = 2 * MAX_NAME
"""Longest ``input.value`` / ``output.value`` read as an agent's name or a one-key object holding it."""


def read_handoff(view: SpanView, facts: SpanFacts, tool_name: str | None) -> None:
    """A ``handoff to X`` span (from / to agent from ``input.value`` / ``output.value``) or a ``transfer_to_X`` tool."""
    facts.tool_name = tool_name
    if view.name.startswith(oi.HANDOFF_SPAN_PREFIX):
        facts.handoff_from_agent = _agent_value(view, oi.INPUT_VALUE, oi.HANDOFF_FROM_KEY)
        facts.handoff_to_agent = _agent_value(view, oi.OUTPUT_VALUE, oi.HANDOFF_TO_KEY) or clean_name(
            view.name[len(oi.HANDOFF_SPAN_PREFIX):]
        )
        target = facts.handoff_to_agent
        if target and facts.tool_name == oi.HANDOFF_TOOL_LABEL_PREFIX + target:
            facts.tool_name = None  # the instrumentation's label of the handoff, not the tool the model called
        if target and facts.tool_name is None:
            # The span executes the SDK's handoff tool; its default name joins it to the model's proposal.
            facts.tool_name = handoff_tool_name(target)
    elif tool_name:
        facts.handoff_to_agent = clean_name(tool_name[len(langgraph.HANDOFF_TOOL_PREFIX):])
        facts.tool_call_id = clean_name(view.str_attr(oi.TOOL_ID)) or clean_name(view.str_attr(oi.TOOL_CALL_ID))
        if oi.INPUT_VALUE in view.attrs:
            facts.arguments = arguments_text(view.text_attr(oi.INPUT_VALUE))
            facts.arguments_visible = facts.arguments is not None


def _agent_value(view: SpanView, attribute: str, key: str) -> str | None:
    """An agent's name written as it is, or as the one-key JSON object ``{key: name}``; another object names none."""
    text = view.str_attr(attribute, limit=_MAX_AGENT_VALUE + 1)
    if text is None or not text.lstrip().startswith("{"):
        return clean_name(text)
    if len(text) > _MAX_AGENT_VALUE:
        return None  # an object too long to be a one-key name
    value = parse_json_text(text)
    if isinstance(value, dict):
        name = value.get(key)
        return clean_name(name) if isinstance(name, str) and len(value) == 1 else None
    return clean_name(text)
