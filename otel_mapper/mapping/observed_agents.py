"""Laminar ``@observe`` functions that call a model themselves: the agent loops of an app that has no agent type.

Laminar types a span only ``DEFAULT``, ``LLM``, ``TOOL`` (or its evaluation types); an app that traces its own agent
with ``@observe`` (``lmnr`` 0.8.2, ``lmnr/sdk/decorators.py``: a ``DEFAULT`` span named after the function, or the
``name`` given) records its agent, the workflow around it and every other function alike. What the trace still says:
the function that runs the agent loop is the one whose own child spans are the model calls (Laminar's client
instrumentations' ``anthropic.chat``, ``openai.chat``), each made while it runs. Such a span becomes an agent invocation
named after the span; a workflow function around it holds no model call of its own and stays a step.

Only the SDK's own spans are read so (the reader marks them :attr:`~otel_mapper.mapping.facts.SpanFacts.
observed_function`: no ``lmnr.span.instrumentation_scope.name``, no Agents SDK task, turn or custom attribute; the
spans of its LangChain handler and its Agents SDK processor say what they are by their own attributes). Only facts and
parent links are read (an earlier revision's spans are kept without attributes); nothing here reads an order.
"""

from __future__ import annotations

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.run_state import copy_facts
from semconv.trajectory import NodeKind

__all__ = ["settle_observed_agents"]


def settle_observed_agents(entries: list[SpanEntry]) -> None:
    """Make each observed function (see the module) that parents a model call of its convention an agent invocation."""
    functions = {
        entry.view.span_id: entry
        for entry in entries
        if entry.facts.observed_function and entry.facts.kind is _WORKFLOW_STEP
    }
    if not functions:
        return
    loops: set[str] = set()
    for entry in entries:
        parent = functions.get(entry.view.parent_span_id or "")
        if parent is not None and entry.facts.kind is _MODEL_CALL and entry.facts.convention == parent.facts.convention:
            loops.add(parent.view.span_id)
    for span_id in loops:
        entry = functions[span_id]
        facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
        facts.kind = NodeKind.AGENT_INVOCATION
        facts.agent_name = clean_name(entry.facts.name)
