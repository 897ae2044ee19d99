"""OpenLIT's CrewAI spans typed ``invoke_agent`` that are no agent's run: the methods of CrewAI flows.

OpenLIT's CrewAI instrumentor (``openlit`` 1.45, ``instrumentation/crewai/__init__.py`` and ``utils.py``; observed in
``corpus/NOTES-frameworks-u.md``) types two calls ``invoke_agent``: a task's execution by its agent
(``Task._execute_core``, ``invoke_agent <role>``, the agent's name, id and tools as attributes) and each method a
CrewAI Flow runs (``Flow._execute_method``, ``invoke_agent <method>``). Since CrewAI 1.x an agent's executor is itself
a Flow (``invoke_workflow AgentExecutor``), so every step of an agent's loop (``call_llm_native_tools``,
``execute_native_tool``, ``finalize``, ...) is an ``invoke_agent`` span beside the agent's model calls. The method is a
coroutine function and the wrapper is synchronous: the span covers the creation of the coroutine only and holds
nothing; the model calls and tool runs of the method hang under the flow's span.

Read as typed, one agent's run would be a dozen agents. Here an ``invoke_agent`` span of that scope is an agent
invocation only when it is the nearest agent of a model call, tool run or handoff; one that is nobody's is a workflow
step (:func:`~otel_mapper.mapping.openlit_graph.settle_idle_agents`, the same rule as for LangChain runs OpenLIT types
``invoke_agent`` by their name). Only facts and parent links are read; nothing here reads an order.
"""

from __future__ import annotations

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.openlit_graph import settle_idle_agents
from semconv import openlit

__all__ = ["settle_openlit_crews"]


def settle_openlit_crews(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    """Make each ``invoke_agent`` span of OpenLIT's CrewAI instrumentation that runs no agent's work a step."""
    typed = [
        entry
        for entry in entries
        if entry.primary and entry.view.scope_name == openlit.CREWAI_SCOPE and entry.facts.kind is _AGENT_INVOCATION
    ]
    if typed:
        settle_idle_agents(entries, by_span_id, typed)
