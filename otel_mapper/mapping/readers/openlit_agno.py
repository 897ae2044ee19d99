"""Agno under OpenLIT (``openlit`` 1.45, ``instrumentation/agno/``, read in its source and observed).

OpenLIT maps an Agno ``Team.run`` to the GenAI ``invoke_workflow`` operation (``OPERATION_MAP``: ``team_run`` ->
``invoke_workflow``), with the team's name in ``gen_ai.workflow.name`` and its members in
:data:`semconv.openlit.AGNO_TEAM_AGENTS`. The team's leader decides with a model of its own (its model calls are the
team span's children) and hands work to a member through a tool (``delegate_task_to_member``): the run is the
leader's agent invocation, named after the team, as OpenLLMetry's and OpenInference's Agno instrumentations record it
(:mod:`otel_mapper.mapping.readers.openllmetry_agno`). A workflow span without the members attribute stays a step.
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit
from semconv.trajectory import NodeKind

__all__ = ["agno_team_kind", "read_agno_team"]


def agno_team_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """An Agno team's ``invoke_workflow`` span is its leader's agent invocation; any other kind is kept."""
    if kind is _WORKFLOW_STEP and openlit.AGNO_TEAM_AGENTS in view.attrs:
        return _AGENT_INVOCATION
    return kind


def read_agno_team(view: SpanView, facts: SpanFacts) -> None:
    """The team's name (``gen_ai.workflow.name``) as the invocation's agent, when the span names no agent."""
    if facts.kind is _AGENT_INVOCATION and openlit.AGNO_TEAM_AGENTS in view.attrs:
        facts.agent_name = facts.agent_name or clean_name(view.str_attr(genai.WORKFLOW_NAME))
