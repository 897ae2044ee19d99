"""Agent invocations that name no agent, around or inside one that does: steps of a run, not agents.

Some instrumentations give ``invoke_agent`` to every span of a framework they have no better operation for.
OpenLIT (1.45, ``openlit.instrumentation.openai_agents``, observed in its ``utils.py``: ``OPERATION_MAP`` falls back
to ``invoke_agent``, and a span type it does not know is named after the operation alone) does it for the OpenAI
Agents SDK's task and turn spans: ``invoke_agent`` (the task) -> ``invoke_agent support_agent`` -> one ``invoke_agent``
per turn, each turn holding that turn's model call and tool runs. Read as they say, every turn would be an agent of
its own, so a loop over turns, a retry after a failed turn, and the tools the named agent declares would each be
split across invocations.

An agent invocation that names no agent, neither by an attribute (``gen_ai.agent.name`` or a convention's
equivalent) nor by its span name (empty, or the operation alone: ``invoke_agent``, as the GenAI conventions name a
span whose agent is unknown), becomes a workflow step when the trace says which agent it belongs to:

- it runs inside a named agent invocation (a turn of that agent's run); or
- it holds a named agent invocation and no model call of its own: every model call under it runs inside a nearer
  agent invocation (the task around a run, as a graph's supervisor in :mod:`otel_mapper.mapping.graph_streams`).

A nameless invocation with no named one around or inside it is the only record of its agent and stays one, as
does a nameless one that calls a model itself beside the named agents it holds; so does a span another
instrumentation names otherwise (the Agents SDK's trace, ``Agent workflow``, an agent under OpenInference and the
contrib instrumentation, says what it is by its name).

A named agent invocation is a step too when it only wraps another agent: its one child span is a named agent
invocation that does work of its own (a model call or tool run has it as its nearest agent), and none has the
wrapper. The OpenTelemetry LangChain instrumentation (``opentelemetry-instrumentation-genai-langchain`` 1.3b0) types a
LangChain run ``invoke_agent`` when its name holds "agent", so langgraph-supervisor's node function ``call_agent``,
which runs the billing agent's graph and nothing else, is ``invoke_agent call_agent`` around ``invoke_agent
billing_agent``. So is one whose one child span is a workflow's run (``gen_ai.operation.name = invoke_workflow``)
holding such an agent invocation: the caller of a workflow of agents, not an agent. OpenLIT's Google ADK instrumentor
(``openlit`` 1.45, ``instrumentation/google_adk/utils.py``, ``generate_span_name``) records ``Runner.run_async`` as
``invoke_agent <app>`` (the app's name as ``gen_ai.agent.name``), around ADK's own ``invoke_workflow <root agent>``,
which holds the agents that run. A step of another kind in between (the Agents SDK's task span under ``Agent
workflow``) does not make the outer span a wrapper. Only facts and parent links are read (an earlier revision's spans
are kept without attributes); nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry, ancestors
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.run_state import copy_facts
from semconv.genai import Operation
from semconv.trajectory import NodeKind

__all__ = ["settle_anonymous_agents"]

_BARE_NAMES: Final = frozenset({"", Operation.INVOKE_AGENT.value})


def settle_anonymous_agents(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    """Make each nameless agent invocation that belongs to a named one, and each named one that only wraps another,
    a workflow step (see the module)."""
    agents = [entry for entry in entries if entry.primary and entry.facts.kind is _AGENT_INVOCATION]
    if len(agents) < 2:
        return  # one agent invocation at most: nothing to belong to, nothing wrapped
    nameless = [entry for entry in agents if _names_none(entry)]
    holding_named: set[str] = set()
    calling_a_model: set[str] = set()
    working: set[str] = set()
    for entry in entries:
        if not entry.primary:
            continue
        if entry.facts.kind is _AGENT_INVOCATION and not _names_none(entry):
            holding_named.update(_agent_ancestors(entry, by_span_id, nearest_only=False))
        elif entry.facts.kind is _MODEL_CALL or entry.facts.kind is _TOOL_EXECUTION:
            nearest = _agent_ancestors(entry, by_span_id, nearest_only=True)
            working.update(nearest)
            if entry.facts.kind is _MODEL_CALL:
                calling_a_model.update(nearest)
    steps = [
        entry
        for entry in nameless
        if _inside_named(entry, by_span_id)
        or (entry.view.span_id in holding_named and entry.view.span_id not in calling_a_model)
    ]
    steps += _wrappers(entries, by_span_id, working, steps)
    for entry in steps:  # decided on the facts as read, then changed together
        facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
        facts.kind = NodeKind.WORKFLOW_STEP


def _parents(entry: SpanEntry, by_span_id: dict[str, SpanEntry]) -> list[SpanEntry]:
    """The primary ancestors of ``entry``, nearest first (:func:`~otel_mapper.mapping.entries.ancestors`)."""
    return [parent for parent in ancestors(entry, by_span_id) if parent.primary]


def _agent_ancestors(entry: SpanEntry, by_span_id: dict[str, SpanEntry], *, nearest_only: bool) -> list[str]:
    """Span ids of the agent invocations above ``entry`` (the nearest one only, if ``nearest_only``)."""
    agents = [parent.view.span_id for parent in _parents(entry, by_span_id) if parent.facts.kind is _AGENT_INVOCATION]
    return agents[:1] if nearest_only else agents


def _inside_named(entry: SpanEntry, by_span_id: dict[str, SpanEntry]) -> bool:
    return any(
        parent.facts.kind is _AGENT_INVOCATION and not _names_none(parent)
        for parent in _parents(entry, by_span_id)
    )


def _names_none(entry: SpanEntry) -> bool:
    """Whether the invocation names no agent: no agent name read, and a span name that is empty or the operation."""
    return not entry.facts.agent_name and entry.facts.name.strip().casefold() in _BARE_NAMES


def _wrappers(
    entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], working: set[str], decided: list[SpanEntry]
) -> list[SpanEntry]:
    """Named agent invocations doing no work whose one child span is a named agent invocation doing work
    (``working``: invocations some model call or tool run has as its nearest agent), or a workflow's run (the GenAI
    ``invoke_workflow`` operation) holding one."""
    children: dict[str, list[SpanEntry]] = {}
    for entry in entries:
        parent = entry.view.parent_span_id
        if parent is not None and parent in by_span_id:
            children.setdefault(parent, []).append(entry)
    workflows_holding_work = {
        parent.view.span_id
        for entry in entries
        if _is_named_agent(entry) and entry.view.span_id in working
        for parent in _parents(entry, by_span_id)
        if parent.facts.kind is _WORKFLOW_STEP and parent.facts.workflow_run
    }
    already = {entry.view.span_id for entry in decided}
    found: list[SpanEntry] = []
    for entry in entries:
        span_id = entry.view.span_id
        if not _is_named_agent(entry) or span_id in working or span_id in already:
            continue
        below = children.get(span_id, [])
        if len(below) != 1:
            continue
        child = below[0]
        if (_is_named_agent(child) and child.view.span_id in working) or child.view.span_id in workflows_holding_work:
            found.append(entry)
    return found


def _is_named_agent(entry: SpanEntry) -> bool:
    return entry.primary and entry.facts.kind is _AGENT_INVOCATION and not _names_none(entry)
