"""A runtime saying a called tool does not exist: read from a span's error, its tool result or a recovery event.

When no tool definitions are recorded, the runtime's own rejection is the evidence that a model called a tool it
was never offered. The wording is each framework's (read in their sources):

- OpenAI Agents SDK: ``SpanError("Tool not found", data={"tool_name": X})`` on the turn span, rendered by the
  instrumentations as ``Tool not found: {'tool_name': 'X'}``; ``ModelBehaviorError("Tool X not found in agent Y")``;
- Strands Agents: tool result / span status ``Unknown tool: X``;
- smolagents: ``AgentToolExecutionError("Unknown tool X, should be one of: ...")`` (an ``agent.step_recovery`` event
  on the step span under OpenInference);
- LangGraph ``ToolNode``: ``Error: X is not a valid tool, try one of [...]``;
- CrewAI: ``You tried to use the tool X, but it doesn't exist``;
- pydantic-ai: ``Unknown tool name: 'X'``; Google ADK: ``Tool 'X' not found``; Microsoft Agent Framework:
  ``Error: Requested function "X" not found.``; AG2 (a ``ConversableAgent`` asked to run a function it does not
  have): ``Error: Function X not found.``; Agno (a result naming no tool): ``Error: The requested tool does not
  exist or is not available.``; the Claude Code CLI (the Claude Agent SDK's runtime; a tool span's error through
  OpenInference's PostToolUseFailure hook): ``<tool_use_error>Error: No such tool available: X</tool_use_error>``;
  an app's own ``unknown tool 'X'`` (the result of its tool function: ``traceloop.entity.output`` under OpenLLMetry's
  ``@tool``, ``agentops.tool.output`` under AgentOps' ``@agentops.tool``).

On a span, only a rejection that names a tool counts, and on a tool span only one naming that span's own tool; a
tool result in a model's input may reject without naming the tool (CrewAI's ``Tool not found``): its call id says
which (``SpanFacts.rejected_results``). Text is read from a bounded head of each value; nothing here is executed
or followed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from otel_mapper.mapping.spans import SpanView
from otel_mapper.mapping.tool_names import MAX_REJECTION_TEXT, function_style, unknown_tool_named
from otel_mapper.otlp.anyvalue import to_text
from semconv import adk, agentops, genai, openllmetry, pydantic_ai, strands, vercel
from semconv import openinference as oi

__all__ = ["function_style", "read_unknown_tool", "unknown_tool_named"]

_RESULT_KEYS: Final = (
    genai.TOOL_CALL_RESULT,
    oi.OUTPUT_VALUE,
    openllmetry.ENTITY_OUTPUT,
    pydantic_ai.TOOL_RESPONSE_V2,
    adk.TOOL_RESPONSE,
    agentops.DECORATED_TOOL_OUTPUT,
    *vercel.TOOL_CALL_RESULT,
)
_TOOL_EVENT_KEYS: Final = frozenset({strands.EVENT_MESSAGE, strands.EVENT_CONTENT})
"""Event attributes of a tool span that carry its result (Strands ``gen_ai.choice``)."""


def _texts(view: SpanView, execution: bool) -> Iterable[str]:
    """Status message and exception / recovery events of any span; results too on a tool span (elsewhere a
    result-like text is the model's or the conversation's, not the runtime's verdict on this span)."""
    status = view.span.status.message
    if status:
        yield status
    if execution:
        for key in _RESULT_KEYS:
            if key in view.attrs:
                text = view.str_attr(key, limit=MAX_REJECTION_TEXT)
                if text:
                    yield text
    for event in view.span.events:
        if event.name == genai.EXCEPTION_EVENT:
            keys: frozenset[str] = frozenset({genai.EXCEPTION_MESSAGE})
        elif event.name == oi.SMOLAGENTS_STEP_RECOVERY_EVENT:
            keys = frozenset({oi.EVENT_MESSAGE})
        elif execution:
            keys = _TOOL_EVENT_KEYS
        else:
            continue
        for kv in event.attributes:
            if kv.key in keys:
                text = to_text(kv.value)
                if text:
                    yield text[:MAX_REJECTION_TEXT]


def read_unknown_tool(view: SpanView, own_tool: str | None, *, execution: bool) -> str | None:
    """The tool this span's runtime rejected as unknown; on a tool span (``execution``) only its own tool."""
    for text in _texts(view, execution):
        name = unknown_tool_named(text)
        if name is None:
            continue
        if not execution:
            return name
        if own_tool and (name == own_tool or function_style(name) == function_style(own_tool)):
            return own_tool
    return None
