"""OpenLIT's AG2 spans of agent calls that raised: which of them was the agent's reply.

OpenLIT's AG2 instrumentor (``openlit`` 1.45, ``instrumentation/ag2/``; observed in ``corpus/NOTES-frameworks-ag.md``)
names an agent's ``generate_reply``, ``send`` and ``receive`` alike (``execute_task <agent>``) and tells them apart
only by an attribute written when the call returns. When a model call fails, the reply that made it raises, and so
do the ``receive`` that asked for the reply and the ``send`` that delivered the message: three spans with a name, an
error and nothing else, nested in each other. The reader types each a step
(:mod:`otel_mapper.mapping.readers.openlit_ag2`); AG2 makes its model calls in the reply itself, so only a span that
is a model call's parent stays one, and the others, which ran nothing of their own, hold no node kind, as the same
calls that returned. Such a call is told by its facts, which a run's later revisions keep (its span's attributes and
name are not kept): a step of the AG2 scope named ``execute_task <agent>`` with no provider (OpenLIT writes
``gen_ai.provider.name`` on every call that returned). Only facts and parent links are read; nothing here reads an
order.
"""

from __future__ import annotations

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.run_state import copy_facts
from semconv import openlit
from semconv.trajectory import NodeKind

__all__ = ["settle_openlit_ag2_calls"]


def settle_openlit_ag2_calls(entries: list[SpanEntry]) -> None:
    """Make each unread AG2 agent call read as a step that is no model call's parent a plain span."""
    unread = [entry for entry in entries if entry.primary and _unread_call(entry)]
    if not unread:
        return
    parents = {
        entry.view.parent_span_id for entry in entries if entry.primary and entry.facts.kind is _MODEL_CALL
    }
    for entry in unread:
        if entry.view.span_id not in parents:
            facts = entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
            facts.kind = NodeKind.OTHER


def _unread_call(entry: SpanEntry) -> bool:
    facts = entry.facts
    return (
        facts.kind is _WORKFLOW_STEP
        and facts.provider is None
        and entry.view.scope_name == openlit.AG2_SCOPE
        and facts.name.partition(" ")[0] == openlit.AG2_AGENT_CALL_OPERATION
    )
