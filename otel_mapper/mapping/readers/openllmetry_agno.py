"""Agno under OpenLLMetry (``opentelemetry-instrumentation-agno`` 0.62.4, read in its source and observed).

- A team's run is a ``<team>.team`` span of span kind ``workflow`` with ``agno.team.name``: the team's leader
  decides with a model of its own (its ``openai.chat`` spans are the team span's children), so the run is an agent
  invocation named after the team, as OpenInference's Agno instrumentation records it.
- Agno catches a tool's exception and returns a ``FunctionExecutionResult``; the instrumentation ends the tool span
  OK with that result's text in ``traceloop.entity.output``: ``status='failure' result=None error="..." ...``. That
  head makes the run failed, with the error field (a Python string literal, read with ``ast.literal_eval``: literals
  only, nothing executed) as its message.
"""

from __future__ import annotations

import ast
import re
from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import MAX_ERROR_MESSAGE, clean_name
from otel_mapper.mapping.spans import SpanView
from semconv import openllmetry as tl
from semconv.trajectory import NodeKind

__all__ = ["agno_kind", "agno_team_name", "read_agno_tool_result"]

MAX_RESULT_HEAD: Final = 4096
_ERROR_LITERAL: Final = re.compile(r"""('(?:[^'\\\n]|\\.){0,1024}'|"(?:[^"\\\n]|\\.){0,1024}")""")


def agno_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    if kind is NodeKind.WORKFLOW_STEP and tl.AGNO_TEAM_NAME in view.attrs:
        return NodeKind.AGENT_INVOCATION
    return kind


def agno_team_name(view: SpanView) -> str | None:
    return clean_name(view.str_attr(tl.AGNO_TEAM_NAME))


def read_agno_tool_result(view: SpanView, facts: SpanFacts) -> None:
    head = view.str_attr(tl.ENTITY_OUTPUT, limit=MAX_RESULT_HEAD)
    if not head or not head.startswith(tl.AGNO_FAILURE_STATUS):
        return
    facts.failed = True
    _, found, rest = head.partition(tl.AGNO_ERROR_FIELD)
    match = _ERROR_LITERAL.match(rest) if found else None
    if match is None:
        return
    try:
        message = ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return
    if isinstance(message, str) and message.strip():
        facts.error_message = facts.error_message or message.strip()[:MAX_ERROR_MESSAGE]
