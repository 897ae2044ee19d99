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
- pydantic-ai: ``Unknown tool name: 'X'``; Google ADK: ``Tool 'X' not found``; an app's own ``unknown tool 'X'``.

Only a rejection that names a tool counts, and on a tool span only one naming that span's own tool. Text is read
from a bounded head of each value; nothing here is executed or followed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from otel_mapper.mapping.spans import MAX_NAME, SpanView
from otel_mapper.otlp.anyvalue import to_text
from semconv import adk, genai, openllmetry, pydantic_ai, strands, vercel
from semconv import openinference as oi

__all__ = ["function_style", "read_unknown_tool", "unknown_tool_named"]

MAX_REJECTION_TEXT: Final = 4096
"""Head of each value searched (rejections are short and come first)."""
_NAME = r"['\"`]?(?!(?:was|is|has|been|the|a|an)\b)([A-Za-z0-9_.\-:/]{1,256}?)['\"`]?"
_PATTERNS: Final = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"tool not found\W*\{?\s*['\"]tool_name['\"]\s*:\s*['\"]([^'\"]{1,256})['\"]",
        r"unknown tool(?: name)?\s*[:\s]\s*" + _NAME + r"(?=[\s,;.'\"`]|$)",
        r"\btool\s+" + _NAME + r"\s+(?:was\s+)?not found\b",
        r"\btool\s+" + _NAME + r"\s+is not (?:available|found|registered)\b",
        r"(?:^|[\s:])" + _NAME + r"\s+is not a valid tool\b",
        r"use the tool\s+['\"`]?([^,'\"`\n]{1,256}?)['\"`]?,?\s+but it does(?:n't| not) exist",
        r"\bno tool named\s+" + _NAME + r"(?=[\s,;.'\"`]|$)",
    )
)
_MARKERS: Final = ("tool not found", "unknown tool", "not found", "not a valid tool", "doesn't exist", "does not exist",
                   "no tool named", "is not available", "is not registered")
_RESULT_KEYS: Final = (
    genai.TOOL_CALL_RESULT,
    oi.OUTPUT_VALUE,
    openllmetry.ENTITY_OUTPUT,
    pydantic_ai.TOOL_RESPONSE_V2,
    adk.TOOL_RESPONSE,
    *vercel.TOOL_CALL_RESULT,
)
_TOOL_EVENT_KEYS: Final = frozenset({strands.EVENT_MESSAGE, strands.EVENT_CONTENT})
"""Event attributes of a tool span that carry its result (Strands ``gen_ai.choice``)."""


def function_style(name: str) -> str:
    """A tool name as function-calling APIs spell it: casefolded, runs of other characters as one ``_``
    (CrewAI's ``Delegate work to coworker`` is ``delegate_work_to_coworker`` to the model)."""
    return re.sub(r"[^0-9a-z]+", "_", name.casefold()).strip("_")


def unknown_tool_named(text: str) -> str | None:
    """The tool a rejection text names, or ``None`` when the text is not a rejection naming one."""
    head = text[:MAX_REJECTION_TEXT]
    lowered = head.lower()
    if not any(marker in lowered for marker in _MARKERS):
        return None
    for pattern in _PATTERNS:
        match = pattern.search(head)
        if match:
            name = match.group(1).strip().strip(".")
            if name:
                return name[:MAX_NAME]
    return None


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
