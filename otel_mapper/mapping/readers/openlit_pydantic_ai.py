"""Pydantic AI under OpenLIT (``openlit`` 1.45, ``instrumentation/pydantic_ai/``, read in its source and observed).

OpenLIT wraps ``Agent.run`` / ``run_sync`` in an ``execute_task <agent>`` span (``gen_ai.operation.name``
``execute_task``, :data:`semconv.openlit.AGENT_LIFECYCLE_PHASE` ``execute``, the agent's name in
``gen_ai.agent.name``): the agent's run, inside which its model calls and tool bodies run. ``execute_task`` is
otherwise a step's operation; on this scope, with this phase, it is an agent invocation.

Its wrappers of ``Agent.iter`` (``invoke_workflow <agent>``) and of the graph nodes' ``run``
(``user_prompt_processing``, ``model_request``, ``execute_tool <model>``) are synchronous wrappers of an async context
manager and of coroutine functions: each span ends once the object is created, before any of it runs, so none holds
the model call or the tool run it names (a tool's body runs under the agent's span). They are read as nodes of no
kind (:data:`semconv.openlit.PYDANTIC_AI_NODE_PHASES`); a tool's run is then known from its proposal and the result
the next model call receives (:mod:`otel_mapper.mapping.spanless_calls`).
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.spans import SpanView
from semconv import openlit
from semconv.trajectory import NodeKind

__all__ = ["is_openlit_pydantic_ai", "pydantic_ai_kind", "read_pydantic_ai_node"]


def is_openlit_pydantic_ai(view: SpanView) -> bool:
    return view.scope_name == openlit.PYDANTIC_AI_SCOPE


def _phase(view: SpanView) -> str | None:
    return view.str_attr(openlit.AGENT_LIFECYCLE_PHASE) if is_openlit_pydantic_ai(view) else None


def pydantic_ai_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """An agent's run (phase ``execute``) is an agent invocation, a node wrapper's span (a phase of
    :data:`semconv.openlit.PYDANTIC_AI_NODE_PHASES`) a node of no kind; any other span keeps ``kind``."""
    phase = _phase(view)
    if phase == openlit.PYDANTIC_AI_RUN_PHASE:
        return _AGENT_INVOCATION
    if phase in openlit.PYDANTIC_AI_NODE_PHASES:
        return NodeKind.OTHER
    return kind


def read_pydantic_ai_node(view: SpanView, facts: SpanFacts) -> None:
    """A node wrapper's span records no run of a workflow (``invoke_workflow <agent>`` ends before the run starts)."""
    if _phase(view) in openlit.PYDANTIC_AI_NODE_PHASES:
        facts.workflow_run = False
