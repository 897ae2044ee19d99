"""LangChain's classic ``AgentExecutor``: which run is the agent's, from the steps whose output is its decision.

The executor is a chain run like any other: OpenInference types a run AGENT when its name holds "agent" (the default
``AgentExecutor``, or an executor named after its agent) and CHAIN otherwise, and types the same way the runnables
inside each step (``RunnableAssign<agent_scratchpad>``, ``ToolsAgentOutputParser``: AGENT); OpenLLMetry opens a
``<name>.workflow`` span for a top-level run and ``execute_task <name>`` for a nested one (an executor run by a tool),
both steps. What says which run is the agent's is the loop's own record
(:mod:`otel_mapper.mapping.readers.langchain_agents`): each step of the agent is a run whose output is the agent's
decision (``SpanFacts.agent_decision``), run by the executor; the run holding such a step (a decision whose parent is
no decision: the output parser inside a step decides too) is the agent's invocation. Runs inside a step are parts of
the decision, workflow steps whatever their name.

A call of a tool the executor does not have runs ``InvalidTool`` without the call's id or arguments; the executor's
decisions name the call: when exactly one action of the agent's steps named that tool, with a call id, the rejected
execution ran that call. Parent links and recorded outputs only; nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.run_state import copy_facts
from semconv import genai
from semconv import openllmetry as tl

__all__ = ["MAX_STEP_DEPTH", "settle_agent_executor_runs"]

MAX_STEP_DEPTH: Final = 32
"""Parent links followed from a run up to the step it is part of (a step's runnables nest a few levels deep)."""
_DECIDED: Final = "the agent's decision (AgentAction) that named the rejected tool"


def settle_agent_executor_runs(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    """Make each run that holds a step of a classic agent an agent invocation, and the runs inside its steps workflow
    steps (see the module)."""
    steps = {
        entry.view.span_id: entry
        for entry in entries
        if entry.primary and entry.facts.agent_decision is not None
    }
    if not steps:
        return
    executors: dict[str, SpanEntry] = {}
    decisions: dict[str, list[tuple[str, str | None]]] = {}
    for entry in steps.values():
        parent_id = entry.view.parent_span_id
        if parent_id is None or parent_id in steps:
            continue  # a part of a step (its output parser decides too), or no executor recorded
        parent = by_span_id.get(parent_id)
        if parent is None or not parent.primary or parent.facts.kind not in (_WORKFLOW_STEP, _AGENT_INVOCATION):
            continue
        executors[parent_id] = parent
        decisions.setdefault(parent_id, []).extend(entry.facts.agent_decision or ())
    for entry in executors.values():
        facts = entry.facts
        if facts.kind is _AGENT_INVOCATION and facts.agent_name:
            continue
        facts = entry.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
        facts.kind = _AGENT_INVOCATION
        facts.agent_name = facts.agent_name or facts.run_name or _run_name(facts.name)
    for entry in entries:
        if entry.primary and entry.facts.kind is _AGENT_INVOCATION and entry.view.span_id not in executors \
                and _inside_step(entry, by_span_id, steps, executors):
            facts = entry.facts = copy_facts(entry.facts)
            facts.kind = _WORKFLOW_STEP
            facts.agent_name = None
    for entry in entries:
        facts = entry.facts
        parent_id = entry.view.parent_span_id
        if not entry.primary or facts.kind is not _TOOL_EXECUTION or not facts.unknown_tool or facts.tool_call_id \
                or parent_id not in decisions:
            continue
        named = [call_id for tool, call_id in decisions[parent_id] if tool == facts.unknown_tool]
        if len(named) == 1 and named[0]:
            facts = entry.facts = copy_facts(facts)
            facts.tool_call_id = named[0]
            facts.tool_call_id_evidence = _DECIDED


def _inside_step(
    entry: SpanEntry, by_span_id: dict[str, SpanEntry], steps: dict[str, SpanEntry], executors: dict[str, SpanEntry]
) -> bool:
    """Whether a step of an agent holds the run, within :data:`MAX_STEP_DEPTH` parent links: a run whose output is a
    decision, or a chain run of an executor (a step that raised records no decision)."""
    span_id: str | None = entry.view.span_id
    below: SpanEntry | None = None
    for _ in range(MAX_STEP_DEPTH):
        if span_id is None:
            return False
        if span_id in executors:
            return below is not None and below is not entry and below.facts.kind is _WORKFLOW_STEP
        if span_id in steps:
            return True
        below = by_span_id.get(span_id)
        span_id = below.view.parent_span_id if below is not None else None
    return False


def _run_name(span_name: str) -> str:
    """The run's name in a span named after it: OpenLLMetry's ``<run>.workflow`` / ``<run>.task`` and GenAI's
    ``<operation> <run>``; other spans carry the run's name as it is (OpenInference)."""
    for suffix, _ in tl.NAME_SUFFIX_KINDS:
        if span_name.endswith(suffix) and len(span_name) > len(suffix):
            return span_name[: -len(suffix)]
    operation, _, rest = span_name.partition(" ")
    if rest and operation in genai.WORKFLOW_OPERATIONS:
        return rest
    return span_name
