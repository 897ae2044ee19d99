"""Tool results a model call consumed whose call no span proposed: joined to the one tool run that carries the id.

Some instrumentations record no proposal of a call at all. OpenLIT's Groq instrumentation fails writing every answer
that calls tools (no output, no input on that span) and leaves a replayed assistant message with no text out of later
inputs (``corpus/NOTES-frameworks-cs.md``). The call id is still on both ends: the tool run's span records it
(``gen_ai.tool.call.id``) and a later model call's input carries the result under it. That says the model call
depends on that run; it does not say which model call asked for it, so no proposal is made.

Only when no proposal of the trace has the id, exactly one tool run carries it, and that run does not hang under the
consuming call (a span cannot depend on a run inside it). The walk up the containment parents is bounded
(:data:`~otel_mapper.mapping.entries.MAX_ANCESTORS` hops).
"""

from __future__ import annotations

from collections.abc import Container
from typing import Final

from otel_mapper.mapping.edge_set import EdgeSet
from otel_mapper.mapping.entries import MAX_ANCESTORS, SpanEntry
from otel_mapper.mapping.members import DEPENDS_ON as _DEPENDS_ON
from otel_mapper.mapping.members import EXECUTION_KINDS as _EXECUTION_KINDS
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL

__all__ = ["UNPROPOSED_RESULT_EVIDENCE", "unproposed_result_edges"]

UNPROPOSED_RESULT_EVIDENCE: Final = "no proposal of it recorded; the one tool run with that call id"
"""Evidence named on the edge, after ``tool result <id> in model input``."""


def unproposed_result_edges(entries: list[SpanEntry], proposed_ids: Container[str], edges: EdgeSet) -> None:
    """Draw ``consumer depends_on run`` for each consumed call id no proposal has and one tool run carries."""
    consumers = [
        entry for entry in entries
        if entry.primary and entry.node_id is not None and entry.facts.kind is _MODEL_CALL
        and any(call_id not in proposed_ids for call_id in entry.facts.consumed_call_ids)
    ]
    if not consumers:
        return
    runs: dict[str, list[str]] = {}
    for entry in entries:
        facts = entry.facts
        if entry.primary and entry.node_id is not None and facts.kind in _EXECUTION_KINDS and facts.tool_call_id:
            runs.setdefault(facts.tool_call_id, []).append(entry.node_id)
    parents = edges.containment_parents()
    for consumer in consumers:
        assert consumer.node_id is not None
        for call_id in dict.fromkeys(consumer.facts.consumed_call_ids):
            ran = runs.get(call_id, ())
            if call_id in proposed_ids or len(ran) != 1 or _inside(ran[0], consumer.node_id, parents):
                continue
            edges.add(consumer.node_id, _DEPENDS_ON, ran[0],
                      f"tool result {call_id} in model input ({UNPROPOSED_RESULT_EVIDENCE})")


def _inside(node: str, container: str, parents: dict[str, str]) -> bool:
    """Whether ``container`` holds ``node`` by containment, within :data:`MAX_ANCESTORS` hops."""
    current = parents.get(node)
    for _ in range(MAX_ANCESTORS):
        if current is None:
            return False
        if current == container:
            return True
        current = parents.get(current)
    return False
