"""smolagents under OpenLIT (``openlit`` 1.45, ``instrumentation/smolagents/``, read in its source and observed).

OpenLIT types a smolagents agent's run and each step of it alike, ``gen_ai.operation.name`` ``invoke_agent``: the run
is ``invoke_agent <agent>``, a step ``invoke_agent <agent> step_<n>`` with :data:`semconv.openlit.SMOLAGENTS_STEP_NUMBER`
(a planning step ``invoke_agent <agent> planning`` with :data:`semconv.openlit.SMOLAGENTS_PLANNING`). A step is no run
of an agent: it holds one model call and the tool calls that model call asked for, as OpenInference's ``Step N`` does,
so it is a workflow step naming no agent (its agent is the run's), and its ``gen_ai.usage.*`` (the step's model usage)
is an aggregate, never counted.

The run and tool wrappers write every attribute when the call returns: a run or a tool call that raised (an unknown
tool, a tool error smolagents turns into ``AgentToolExecutionError``, a model error ending the run) leaves a span with
its name, status ERROR and ``error.type`` alone. Such a span is claimed by its scope, its operation read from the first
word of its name and its agent or tool from the rest, as for OpenLIT's CrewAI spans (the scope is one of
:data:`semconv.openlit.NAMED_ONLY_SCOPES`, read by :mod:`otel_mapper.mapping.readers.openlit_crewai`).

A tool span's ``gen_ai.tool.call.id`` is OpenLIT's, not the model's: smolagents calls a tool with its name and
arguments only, and OpenLIT writes the value of an id-like key of those arguments, else a new UUID
(``_resolve_tool_call_id``). It is left unread: the call is joined to its proposal by name and arguments.
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit
from semconv.trajectory import NodeKind

__all__ = ["is_openlit_smolagents", "read_smolagents_step", "smolagents_kind", "tool_call_id_of"]

_STEP_KEYS = (openlit.SMOLAGENTS_STEP_NUMBER, openlit.SMOLAGENTS_PLANNING)


def is_openlit_smolagents(view: SpanView) -> bool:
    return view.scope_name == openlit.SMOLAGENTS_SCOPE


def smolagents_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """A smolagents step (``invoke_agent`` with a step number or the planning flag) is a workflow step; any other
    span keeps ``kind``."""
    if kind is _AGENT_INVOCATION and is_openlit_smolagents(view) and any(key in view.attrs for key in _STEP_KEYS):
        return _WORKFLOW_STEP
    return kind


def tool_call_id_of(view: SpanView) -> str | None:
    """A tool span's ``gen_ai.tool.call.id``, but for OpenLIT's smolagents spans, where it is none of the model's."""
    return None if is_openlit_smolagents(view) else view.str_attr(genai.TOOL_CALL_ID)


def read_smolagents_step(view: SpanView, facts: SpanFacts) -> None:
    """A step names no agent (its agent is the run's)."""
    if facts.kind is _WORKFLOW_STEP and is_openlit_smolagents(view):
        facts.agent_name = None
