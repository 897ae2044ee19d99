"""Tool calls an agent span reports that its model calls already proposed.

An agent invocation's ``gen_ai.output.messages`` may hold every message the run produced: the assistant messages
with tool calls, the tool results, the final answer (Microsoft Agent Framework writes the whole new conversation
there). Those tool calls were proposed by the model calls inside the run; read again from the agent span they would
become a second proposal of each call, one that no execution answers (a forbidden call "proposed but not
executed", a sub-agent's tool "not declared" to the delegating agent). A call whose id (or, without an id, whose
name and arguments) a model call of the trace proposes is the same call: it is left to that model call. Calls no
model call proposes stay on the agent span that reports them (a remote agent whose model calls are not traced). A
span that is no agent invocation, with model calls under it that record their output, has no model of its own: the
calls it reports that none of them proposed were put there by the framework (langgraph-supervisor appends a
``transfer_back_to_<supervisor>`` call to the messages an agent's node returns, recorded on the node's span by the
OpenTelemetry LangChain instrumentation), and are not proposals either. Parent links only, at most
:data:`~otel_mapper.mapping.entries.MAX_ANCESTORS` hops up from each model call.
"""

from __future__ import annotations

from otel_mapper.mapping.entries import SpanEntry, ancestors
from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts

__all__ = ["drop_replayed_proposals"]


def _key(call: ToolCallFact) -> tuple[str, str | None]:
    return ("id", call.call_id) if call.call_id else ("call", f"{call.name}\x00{call.arguments}")


def drop_replayed_proposals(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    """Remove, from spans that are not model calls, the proposals a model call of the trace also holds, and all of
    them from steps under which model calls record their output (see the module)."""
    reporters = [
        entry for entry in entries if entry.primary and entry.facts.kind is not _MODEL_CALL and entry.facts.proposals
    ]
    if not reporters:
        return
    proposed: set[tuple[str, str | None]] = set()
    above_recorded_models: set[str] = set()
    for entry in entries:
        if entry.primary and entry.facts.kind is _MODEL_CALL and entry.facts.proposals is not None:
            proposed.update(_key(call) for call in entry.facts.proposals)
            above_recorded_models.update(parent.view.span_id for parent in ancestors(entry, by_span_id))
    if not above_recorded_models:
        return
    for entry in reporters:
        calls = entry.facts.proposals or []
        above = entry.facts.kind is not _AGENT_INVOCATION and entry.view.span_id in above_recorded_models
        kept = [] if above else [call for call in calls if _key(call) not in proposed]
        if len(kept) == len(calls):
            continue
        entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
        entry.facts.proposals = kept

