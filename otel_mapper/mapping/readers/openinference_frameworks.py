"""What OpenInference's smolagents and LlamaIndex instrumentations carry beyond the common OpenInference shapes
(names in :mod:`semconv.smolagents` and :mod:`semconv.llama_index`): smolagents run spans and the calls its model
inputs replay as text, LlamaIndex agent runs, preparation spans and the call ids its ``call_tool`` steps record."""

from __future__ import annotations

import re
from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import replayed_call_ids
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from otel_mapper.mapping.spans import SpanView
from semconv import llama_index, smolagents
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = [
    "LLAMA_TOOL_MESSAGE",
    "MAX_STEP_TEXT",
    "llama_index_kind",
    "llama_index_tool_id",
    "read_smolagents_run",
    "smolagents_replayed_ids",
    "smolagents_response_id",
]

MAX_STEP_TEXT: Final = 64 * 1024
"""A step span's ``input.value`` / ``output.value`` is searched for call ids only up to this size."""
LLAMA_TOOL_MESSAGE: Final = re.compile(llama_index.TOOL_MESSAGE_REPR)


def llama_index_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """LlamaIndex's agent run is a CHAIN; its ``_prepare_chat_with_tools`` LLM spans send no request."""
    if kind is NodeKind.WORKFLOW_STEP and view.name in llama_index.AGENT_RUN_SPANS:
        return NodeKind.AGENT_INVOCATION
    if kind is NodeKind.MODEL_CALL and view.name.endswith(llama_index.PREPARE_CHAT_SUFFIX):
        return NodeKind.OTHER
    return kind


def llama_index_tool_id(view: SpanView) -> str | None:
    """The call id in the ``ToolCallResult`` repr a ``call_tool`` step outputs (``tool_id='call_...'``)."""
    text = view.str_attr(oi.OUTPUT_VALUE, limit=MAX_STEP_TEXT)
    if not text:
        return None
    start = text.find(llama_index.TOOL_ID_REPR)
    if start < 0:
        return None
    start += len(llama_index.TOOL_ID_REPR)
    end = text.find("'", start)
    return clean_name(text[start:end]) if end > start else None


def smolagents_replayed_ids(message: FlatMessage) -> list[str]:
    """Call ids of a smolagents ``tool-call`` message (``Calling tools:`` and the calls' Python text, read as a
    literal, never run): the ``tool-response`` message after it carries their results."""
    if message.fields.get(oi.MESSAGE_ROLE) != smolagents.ROLE_TOOL_CALL or not message.texts:
        return []
    return replayed_call_ids(message.texts[min(message.texts)])


def smolagents_response_id(message: FlatMessage) -> str | None:
    """The call id smolagents writes at the head of a ``tool-response`` message (``Call id: X``; the first call of
    the step only)."""
    if message.fields.get(oi.MESSAGE_ROLE) != smolagents.ROLE_TOOL_RESPONSE or not message.texts:
        return None
    first = message.texts[min(message.texts)]
    if not first.startswith(smolagents.TOOL_RESPONSE_CALL_ID_PREFIX):
        return None
    return clean_name(first[len(smolagents.TOOL_RESPONSE_CALL_ID_PREFIX):].partition("\n")[0])


def read_smolagents_run(view: SpanView, facts: SpanFacts) -> None:
    """A smolagents ``{agent}.run`` span: the agent's name, and the tools it offers its model (its tools and its
    managed agents, which the model calls as tools)."""
    if view.name.endswith(smolagents.RUN_SPAN_SUFFIX):
        facts.agent_name = facts.agent_name or clean_name(view.name[: -len(smolagents.RUN_SPAN_SUFFIX)])
    offered = set(view.str_list_attr(smolagents.TOOLS_NAMES) or ())
    for key in view.keys_with_prefix(smolagents.MANAGED_AGENTS_PREFIX):
        rest = key[len(smolagents.MANAGED_AGENTS_PREFIX):]
        index, _, suffix = rest.partition(".")
        if index.isdigit() and "." + suffix == smolagents.MANAGED_AGENT_NAME_SUFFIX and (managed := clean_name(view.str_attr(key))):
            offered.add(managed)
    facts.tool_definitions = tuple(sorted(name for name in offered if name))
