"""The spans of AgentOps' SDK decorators (``@agentops.agent``, ``@agentops.tool`` ... on a user's own functions).

Pinned to ``agentops`` 0.4.21 (:mod:`semconv.agentops`). A decorator's span names its unit only in
``operation.name`` (the span itself is ``<name>.<kind>``) and records the call as ``agentops.<kind>.input``, JSON
``{"args": [...], "kwargs": {...}}``, and the return value as ``agentops.<kind>.output``. A tool's span writes no
``tool.name``, no ``tool.parameters`` and no call id: its tool is the unit's name, its arguments the call's keyword
arguments (the model proposed a JSON object, which a tool function receives by keyword; positional values have no
names, so a call with any records no arguments that can be joined), its result the output. Without a call id the
execution joins its proposal by tool name and arguments, as AgentOps' other tool spans do.
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text, result_text_digest, unwrap_call_arguments
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import MAX_TEXT, SpanView, parse_json_text
from semconv import agentops as ao

__all__ = ["decorated_unit_name", "read_decorated_tool"]


def decorated_unit_name(view: SpanView) -> str | None:
    """The unit a decorator's span records (``operation.name``), bounded; ``None`` when not written."""
    return clean_name(view.str_attr(ao.OPERATION_NAME))


def read_decorated_tool(view: SpanView, facts: SpanFacts) -> bool:
    """A ``@agentops.tool`` span (no ``tool.name``; ``operation.name`` and the decorator's input): its tool, keyword
    arguments and result. Whether the span was one."""
    if ao.TOOL_NAME in view.attrs or ao.DECORATED_TOOL_INPUT not in view.attrs:
        return False
    name = decorated_unit_name(view)
    if name is None:
        return False
    facts.tool_name = name
    text = view.str_attr(ao.DECORATED_TOOL_INPUT, limit=MAX_TEXT + 1)
    if text is not None and len(text) <= MAX_TEXT:
        record = parse_json_text(text)
        if isinstance(record, dict) and unwrap_call_arguments(record) is not record:
            facts.arguments = arguments_text(record)
            facts.arguments_visible = facts.arguments is not None
    result = view.str_attr(ao.DECORATED_TOOL_OUTPUT, limit=MAX_TEXT)
    if result is not None:
        facts.result_visible = True
        facts.result_digest = result_text_digest(result)
    return True
