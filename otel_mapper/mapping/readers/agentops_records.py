"""AgentOps spans that carry no ``agentops.span.kind``, typed by what they record, and tool runs whose span names no
tool.

Its smolagents instrumentation (``agentops`` 0.4.21, :mod:`semconv.agentops`) writes no kind: its agent run span
records the agent's name and tools (an agent invocation), its tool span a run's status and result (a tool
execution), its model span the requested model and usage around the client's request span (a model call, marked a
layer of that request: :mod:`otel_mapper.mapping.wrapped_model_calls` folds it into the request's span when one is
there). Its Agents SDK mirrors (scope ``openai-agents``) and its ``tool_call.<name>`` records are not read here.

Its smolagents tool span writes the placeholder name ``unknown`` and the default arguments ``{}``: no name, no
arguments. What the span says of the call it ran is then its result (joined to the call a later model input replays
with it, :mod:`otel_mapper.mapping.nameless_tools`) or its error: smolagents' ``Error executing tool '<name>' with
arguments <Python dict>: ...`` names the tool and its arguments, a rejection of an unknown tool names the tool.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text, result_text_digest
from otel_mapper.mapping.readers.common import MAX_ERROR_MESSAGE, clean_name
from otel_mapper.mapping.result_texts import python_literal
from otel_mapper.mapping.spans import MAX_TEXT, SpanView
from otel_mapper.mapping.tool_names import unknown_tool_named
from otel_mapper.otlp.anyvalue import Decoded
from semconv import agentops as ao
from semconv import genai
from semconv import smolagents as smol
from semconv.trajectory import NodeKind

__all__ = ["read_unnamed_run", "recorded_kind"]

MAX_EVENTS_READ: Final = 8
"""Span events looked at for an exception's message."""


def recorded_kind(view: SpanView) -> NodeKind | None:
    """The kind of an AgentOps span with no ``agentops.span.kind`` outside its Agents SDK mirrors, by what it records;
    ``None`` when it records none of these."""
    if view.scope_name == ao.MIRROR_SCOPE or not view.scope_name.startswith(ao.SCOPE_PREFIX):
        return None
    attrs = view.attrs
    if ao.TOOL_STATUS in attrs:
        return NodeKind.TOOL_EXECUTION
    if ao.AGENT_NAME in attrs and ao.AGENT_TOOLS in attrs:
        return NodeKind.AGENT_INVOCATION
    if genai.REQUEST_MODEL in attrs:
        return NodeKind.MODEL_CALL
    return None


def read_unnamed_run(view: SpanView, facts: SpanFacts) -> None:
    """A tool span whose name is the placeholder: its result's digest, and the tool (and arguments) its error names."""
    result = view.str_attr(ao.TOOL_RESULT, limit=MAX_TEXT)
    if result is not None:
        facts.result_digest = result_text_digest(result)
    message = _error_text(view)
    if not message:
        return
    failed = failed_call(message)
    if failed is not None:
        facts.tool_name, arguments = failed
        facts.arguments = arguments_text(arguments) if arguments is not None else None
        facts.arguments_visible = facts.arguments is not None
        return
    facts.tool_name = clean_name(unknown_tool_named(message) or "")


def failed_call(text: str) -> tuple[str, Decoded] | None:
    """(tool, arguments) of smolagents' report of a tool that raised (``Error executing tool 'X' with arguments
    {...}: ...``); the arguments ``None`` when their text is not a Python dict literal."""
    start = text.find(smol.TOOL_ERROR_TEXT_PREFIX)
    if start < 0:
        return None
    rest = text[start + len(smol.TOOL_ERROR_TEXT_PREFIX):]
    cut = rest.find(smol.TOOL_ERROR_ARGUMENTS)
    name = clean_name(rest[:cut]) if cut > 0 else None
    if not name:
        return None
    tail = rest[cut + len(smol.TOOL_ERROR_ARGUMENTS):]
    # The arguments are the Python text up to the ``: `` after its closing brace; a brace inside a value can move it,
    # so each candidate end is tried, first to last.
    arguments: Decoded = None
    for end in range(len(tail)):
        if tail[end] == "}" and tail[end + 1:end + 3] == ": ":
            value = python_literal(tail[:end + 1])
            if isinstance(value, dict):
                arguments = value
                break
    return name, arguments


def _error_text(view: SpanView) -> str | None:
    """The span's status description, else its first exception event's message, bounded."""
    status = view.span.status.message
    if status:
        return status[:MAX_ERROR_MESSAGE]
    for event in view.span.events[:MAX_EVENTS_READ]:
        if event.name != genai.EXCEPTION_EVENT:
            continue
        for kv in event.attributes:
            if kv.key == genai.EXCEPTION_MESSAGE and kv.value.string_value:
                return kv.value.string_value[:MAX_ERROR_MESSAGE]
    return None
