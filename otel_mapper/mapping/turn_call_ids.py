"""Tool calls recorded under another id than the one their results name: the results' id is the call id.

Model-call inputs give, per turn, the recorded id of each call and the id its result names when the two disagree
(:mod:`otel_mapper.mapping.turn_pairs`; OpenLLMetry's OpenAI instrumentation on the Responses API writes a
``function_call`` item's item id as the call's, ``corpus/NOTES-frameworks-ca.md``). The result's id is the one the
protocol joins call and result by, so a call the trace records under id ``X`` whose result names ``Y`` is the call
``Y``: every proposal (a model call's output) and every replayed call (a later input) recorded as ``X`` takes ``Y``,
with the evidence named on the proposal's edge; the results, the tool runs and the consuming calls then join it as
any call with its id.

Only when unambiguous: every input that pairs ``X`` pairs it with the same ``Y``, no other recorded id is paired with
``Y``, and no call of the trace is already recorded as ``Y`` (the ids agree there). Anything else is left as read.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.tool_edges import PROPOSAL_EVIDENCE

__all__ = ["TURN_RESULT_ID_EVIDENCE", "settle_turn_call_ids"]

TURN_RESULT_ID_EVIDENCE: Final = (
    f"{PROPOSAL_EVIDENCE}, recorded under another id; call id from the tool result that answers it in a later model"
    " input (the k-th result after the turn's calls, none of whose ids answer them)"
)
"""Evidence named on the edge of a proposal whose call id was read from its result."""


def settle_turn_call_ids(entries: list[SpanEntry]) -> None:
    """Give calls recorded under another id than their results name the results' id (see the module)."""
    readers = [
        entry for entry in entries
        if entry.primary and entry.facts.kind is _MODEL_CALL and entry.facts.turn_result_ids
    ]
    if not readers:
        return
    named: dict[str, set[str]] = defaultdict(set)
    """Recorded call id -> the ids its results name."""
    naming: dict[str, set[str]] = defaultdict(set)
    """Result id -> the recorded call ids it answers."""
    for entry in readers:
        for recorded, result in entry.facts.turn_result_ids:
            named[recorded].add(result)
            naming[result].add(recorded)
    recorded_ids: set[str] = set()
    for entry in entries:
        facts = entry.facts
        if entry.primary and facts.kind is _MODEL_CALL:
            recorded_ids.update(call.call_id for call in facts.proposals or () if call.call_id)
            recorded_ids.update(call.call_id for _, call in facts.input_tool_calls if call.call_id)
    alias: dict[str, str] = {}
    for recorded, results in named.items():
        if len(results) != 1:
            continue  # inputs disagree on what answered it
        (result,) = results
        if len(naming[result]) == 1 and result not in recorded_ids:
            alias[recorded] = result
    if not alias:
        return
    for entry in entries:
        facts = entry.facts
        if not entry.primary or facts.kind is not _MODEL_CALL:
            continue
        renamed_proposals = any(call.call_id in alias for call in facts.proposals or ())
        renamed_replays = any(call.call_id in alias for _, call in facts.input_tool_calls)
        if not renamed_proposals and not renamed_replays:
            continue
        facts = entry.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
        if renamed_proposals and facts.proposals is not None:
            facts.proposals = [_renamed(call, alias) for call in facts.proposals]
        if renamed_replays:
            facts.input_tool_calls = [(position, _renamed(call, alias)) for position, call in facts.input_tool_calls]


def _renamed(call: ToolCallFact, alias: dict[str, str]) -> ToolCallFact:
    if call.call_id is None or call.call_id not in alias:
        return call
    return replace(call, call_id=alias[call.call_id], evidence=call.evidence or TURN_RESULT_ID_EVIDENCE)
