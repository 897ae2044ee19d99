"""Tool calls a model-call span proposed in an earlier request it also records.

Some instrumentations write one model-call span for several requests (OpenInference's Google ADK instrumentation on
ADK 2.x: every request of an agent run under ADK's ``invoke_agent`` span, each answer's attributes written over the
last, ``corpus/NOTES-frameworks-j.md``). The span's output keeps the last answer's calls only; the earlier answers'
calls are in its own input, replayed before their results, and their tool runs hang under the span.

That is evidence of who proposed them, and no timestamp is needed for it: a tool run nested under the span, whose
result the span's own recorded input holds, ran between two requests of that span, so a request of that span
proposed it. A call becomes a proposal of the span when

- the span's input holds the call's result (its call id), and no model call of the trace proposes that id (by output
  or by conversation prefix);
- exactly one tool run carries that id, and it hangs under this span with no other model call between them
  (parent links only, at most :data:`~otel_mapper.mapping.entries.MAX_ANCESTORS` hops).

The proposal takes the tool's name and arguments as the run recorded them (readers keep the replayed calls of an
input's last assistant message only, :mod:`otel_mapper.mapping.prefix`).
The result's consumption stays inside the span: the graph cannot hold it as an edge (the span would depend on a run
under it), so none is drawn.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from otel_mapper.mapping.entries import SpanEntry, ancestors
from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.members import EXECUTION_KINDS as _EXECUTION_KINDS
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts

__all__ = ["OWN_REPLAY_EVIDENCE", "settle_own_replays"]

OWN_REPLAY_EVIDENCE: Final = (
    "own input: this span's recorded input holds the call's result, and its run hangs under this span"
)
"""Evidence named on the edge of a proposal read from the proposing span's own input."""


def settle_own_replays(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    """Give model-call spans the calls whose results their own input holds and whose runs hang under them (see the
    module)."""
    replays = [
        entry for entry in entries
        if entry.primary and entry.node_id is not None and entry.facts.kind is _MODEL_CALL and entry.facts.consumed_call_ids
    ]
    if not replays:
        return
    proposed: set[str] = set()
    for entry in entries:
        if entry.primary and entry.facts.kind is _MODEL_CALL and entry.facts.proposals:
            proposed.update(call.call_id for call in entry.facts.proposals if call.call_id)
    runs: dict[str, list[SpanEntry]] = defaultdict(list)
    for entry in entries:
        facts = entry.facts
        if entry.primary and facts.kind in _EXECUTION_KINDS and facts.tool_call_id:
            runs[facts.tool_call_id].append(entry)
    for replay in replays:
        found: list[ToolCallFact] = []
        taken: set[str] = set()
        for call_id in replay.facts.consumed_call_ids:
            if call_id in proposed or call_id in taken or len(runs.get(call_id, ())) != 1:
                continue
            run = runs[call_id][0]
            if not run.facts.tool_name or _nearest_model_call(run, by_span_id) is not replay:
                continue
            taken.add(call_id)
            found.append(
                ToolCallFact(
                    call_id=call_id, name=run.facts.tool_name, arguments=run.facts.arguments, evidence=OWN_REPLAY_EVIDENCE
                )
            )
        if found:
            facts = replay.facts = copy_facts(replay.facts)  # the read facts may be kept for the run: never changed
            facts.proposals = [*found, *(facts.proposals or ())]


def _nearest_model_call(entry: SpanEntry, by_span_id: dict[str, SpanEntry]) -> SpanEntry | None:
    """The first model-call span above ``entry`` by parent links."""
    for parent in ancestors(entry, by_span_id):
        if parent.primary and parent.facts.kind is _MODEL_CALL:
            return parent
    return None
