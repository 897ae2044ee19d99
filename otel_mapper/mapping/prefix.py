"""Conversation-prefix evidence: which model call proposed a tool call that only a later call's input records.

Some instrumentations record no output on the model call that requested tools (OpenLLMetry's OpenAI Agents SDK
instrumentation with Chat Completions: no ``gen_ai.output.messages``), but the next call's input replays the
conversation: ``[..., assistant(tool calls), tool(result)]``. A chat conversation only grows, so the messages
before that assistant message are the input of the call that produced it: model call A whose input is exactly
``B.inputs[:j]`` proposed the tool calls of B's input message ``j``. Those calls become A's proposals, each named
on its edge as conversation-prefix evidence.

Only when it is unambiguous: A recorded no output of its own, A did not fail (a failed request returned no
message), exactly one call has that input, and every later input that replays A's turn replays the same message.
When no call has exactly that input, system messages are left out on both sides and the match is tried again: an
agent framework swaps the instructions on a handoff (the OpenAI Agents SDK gives the receiving agent its own) while
the conversation carries on. Anything else is declared and left unlinked. Content order inside one message list
is the only order read here.

The same prefix says which calls a tool result answers when the input keeps the result but drops its call id
(OpenLIT's LangChain chat spans: the assistant turn becomes empty text and the tool message text alone,
``corpus/NOTES-frameworks-q.md``): the tool messages right after B's input message ``j`` answer the tool calls of the
call A whose input is ``B.inputs[:j]``. When A made one tool call and one tool message follows, that message is its
result (a chat protocol answers each call of a turn with one tool message; the call may have run in no span, or
failed); otherwise the one of A's calls whose run returned exactly that text (the run's recorded result, by digest)
is. Only when A is the one call with that input and recorded its tool calls.

Where the input holds no assistant message before the results either (OpenLIT's Mistral spans keep each message's
text alone: a turn that only called tools is left out, so the results of every earlier turn follow one another), the
turn the last results answer is found from the other calls: the results from B's input message ``j`` on answer the
call A whose input is ``B.inputs[:j]``, for the largest ``j`` in the run of results that one call's input ends at (the
results of earlier turns, before ``j``, were read by the calls they were new to). Then as above.

Where A's tool calls carry no call id either (Ollama's chat API has none: an answer's calls are name and arguments, a
tool message names its tool only), each of A's calls is given a join key (``turn:<A's node>#<index>``, never written as
a call id) and, when the tool messages after B's message ``j`` are as many as A's calls, the k-th answers the k-th
call: a chat protocol answers each call of a turn with one tool message, in the order the calls were made.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.members import EXECUTION_KINDS as _EXECUTION_KINDS
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.model import Declaration
from semconv.trajectory import DeclarationCategory, DeclarationEffect

__all__ = [
    "ONLY_RESULT_EVIDENCE",
    "ORDER_RESULT_EVIDENCE",
    "PREFIX_EVIDENCE",
    "RESULT_EVIDENCE",
    "conversation_prefix_proposals",
    "conversation_prefix_results",
]

PREFIX_EVIDENCE: Final = "conversation prefix"
"""Evidence name of a proposal read from a later call's input: ``conversation prefix: <detail>``."""
RESULT_EVIDENCE: Final = (
    "conversation prefix: a tool message without call id after the turn of the model call whose input is this input's"
    " prefix; the only one of that call's tool runs that returned this text"
)
"""Evidence of a consumed result :func:`conversation_prefix_results` joined by the text its run returned."""
UNKEYED_RESULT_EVIDENCE: Final = (
    "conversation prefix: a tool message without call id after the turn of the model call whose input is this input's"
    " prefix; the only tool run of one of that call's calls (its tool and arguments, the run naming no call id) that"
    " returned this text"
)
"""Evidence of a consumed result joined by the text a run without call id returned, the run known by its tool name and
arguments (AgentOps' decorated tools record no call id: ``corpus/NOTES-frameworks-da.md``)."""
ONLY_RESULT_EVIDENCE: Final = (
    "conversation prefix: the one tool message without call id after the turn of the model call whose input is this"
    " input's prefix, which made one tool call"
)
"""Evidence of a consumed result :func:`conversation_prefix_results` joined as the one answer to one call."""
ORDER_RESULT_EVIDENCE: Final = (
    "conversation prefix: the k-th of the tool messages without call id after the turn of the model call whose input"
    " is this input's prefix, which made as many tool calls without call id: its k-th call"
)
"""Evidence of a consumed result :func:`conversation_prefix_results` joined by its place among the turn's answers."""
TURN_KEY_PREFIX: Final = "turn:"
"""Join key of a proposal without call id: ``turn:<model call node>#<index of the call>``."""
MAX_PREFIX_CALLS: Final = 256
"""Tool calls taken from one replayed assistant message."""
MAX_RUN_BOUNDARIES: Final = 256
"""Messages of a run of results with no assistant message before it tried, from its last back, as where the last
turn's results start (each try looks up the input before it)."""


def conversation_prefix_proposals(entries: list[SpanEntry], notes: list[Declaration]) -> None:
    """Give model calls without recorded output the proposals a later call's input attributes to them."""
    if not any(
        entry.primary and entry.facts.kind is _MODEL_CALL and entry.facts.proposals is None
        and entry.facts.input_content_captured and not entry.facts.failed
        for entry in entries
    ):
        return  # every model call recorded its output (or none recorded its input): nothing to attribute
    by_input: dict[tuple[str, ...], list[SpanEntry]] = defaultdict(list)
    by_conversation: dict[tuple[str, ...], list[SpanEntry]] = defaultdict(list)
    replays: list[SpanEntry] = []
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None or facts.kind is not _MODEL_CALL:
            continue
        if facts.input_content_captured and facts.messages.inputs:
            by_input[tuple(facts.messages.inputs)].append(entry)
            by_conversation[_conversation(facts.messages.inputs, facts.messages.system_inputs)].append(entry)
        if facts.input_tool_calls:
            replays.append(entry)
    if not replays:
        return
    claimed: dict[str, dict[str, tuple[int, list[ToolCallFact]]]] = defaultdict(dict)
    """Proposer node -> replayed message digest -> (position, calls)."""
    proposers: dict[str, SpanEntry] = {}
    ambiguous: set[str] = set()
    for replay in replays:
        calls_at: dict[int, list[ToolCallFact]] = defaultdict(list)
        for position, call in replay.facts.input_tool_calls:
            calls_at[position].append(call)
        inputs = replay.facts.messages.inputs
        for position, calls in calls_at.items():
            if not 0 < position < len(inputs):
                continue
            candidates = _open(by_input.get(tuple(inputs[:position]), ()), replay)
            if not candidates:
                prefix = _conversation(inputs[:position], [i for i in replay.facts.messages.system_inputs if i < position])
                candidates = _open(by_conversation.get(prefix, ()), replay)
            if len(candidates) != 1:
                if len(candidates) > 1 and replay.node_id is not None:
                    ambiguous.add(replay.node_id)
                continue
            proposer = candidates[0]
            assert proposer.node_id is not None
            proposers[proposer.node_id] = proposer
            claimed[proposer.node_id].setdefault(inputs[position], (position, calls))
    for node_id, messages in claimed.items():
        if len(messages) != 1:
            ambiguous.add(node_id)  # later inputs disagree on what this call answered
            continue
        (position, calls), = messages.values()
        detail = f"{PREFIX_EVIDENCE}: a later model input repeats this call's input, then this call at message {position}"
        proposer = proposers[node_id]
        proposer.facts = copy_facts(proposer.facts)  # the read facts may be kept for the run: never changed
        proposer.facts.proposals = [
            ToolCallFact(call_id=call.call_id, name=call.name, arguments=call.arguments, evidence=detail)
            for call in calls[:MAX_PREFIX_CALLS]
        ]
    if ambiguous:
        notes.append(
            Declaration(
                category=DeclarationCategory.TOOL_PROPOSAL,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="ambiguous_prefix",
                reason="a later model input replays tool calls, but several model calls (or none that recorded no "
                "output) had that conversation as input; they were not attributed",
                count=len(ambiguous),
                nodes=tuple(sorted(ambiguous)[:32]),
            )
        )


def _conversation(inputs: list[str], system: list[int]) -> tuple[str, ...]:
    """The input without its system messages."""
    skip = set(system)
    return tuple(digest for position, digest in enumerate(inputs) if position not in skip)


def _open(candidates: Iterable[SpanEntry], replay: SpanEntry) -> list[SpanEntry]:
    """Calls that may have produced a replayed message: not the replaying call, no output of their own, not failed."""
    return [entry for entry in candidates if entry is not replay and entry.facts.proposals is None and not entry.facts.failed]


def conversation_prefix_results(entries: list[SpanEntry]) -> None:
    """Give model calls whose input holds tool results without call ids the ids of the runs those results came
    from (see the module)."""
    readers = [
        entry for entry in entries
        if entry.primary and entry.node_id is not None and entry.facts.kind is _MODEL_CALL and entry.facts.id_less_results
    ]
    if not readers:
        return
    by_input: dict[tuple[str, ...], list[SpanEntry]] = defaultdict(list)
    by_conversation: dict[tuple[str, ...], list[SpanEntry]] = defaultdict(list)
    returned: dict[tuple[str, str], int] = defaultdict(int)
    """(call id, result digest) -> how many runs of that call returned that text."""
    unkeyed: dict[tuple[str, str, str], int] = defaultdict(int)
    """(tool, arguments, result digest) -> how many runs naming no call id returned that text."""
    for entry in entries:
        facts = entry.facts
        if not entry.primary or entry.node_id is None:
            continue
        if facts.kind is _MODEL_CALL and facts.input_content_captured and facts.proposals:
            by_input[tuple(facts.messages.inputs)].append(entry)
            by_conversation[_conversation(facts.messages.inputs, facts.messages.system_inputs)].append(entry)
        elif facts.kind in _EXECUTION_KINDS and facts.tool_call_id and facts.result_digest:
            returned[(facts.tool_call_id, facts.result_digest)] += 1
        elif facts.kind in _EXECUTION_KINDS and facts.result_digest and facts.tool_name and facts.arguments is not None:
            unkeyed[(facts.tool_name, facts.arguments, facts.result_digest)] += 1
    for reader in readers:
        facts = reader.facts
        inputs = facts.messages.inputs
        id_less = _last_turn_results(reader, by_input, by_conversation)
        answering: dict[int, int] = defaultdict(int)
        for _, answered, _ in id_less:
            answering[answered] += 1
        found: dict[str, str] = {}
        calls_of: dict[int, list[str] | None] = {}  # answered turn -> the call ids of the call that made it
        ordinal: dict[int, int] = defaultdict(int)  # answered turn -> tool messages of it read so far
        for position, answered, result in id_less:
            if not 0 <= answered <= position < len(inputs):
                continue
            if answered not in calls_of:
                calls_of[answered] = _calls_answered(reader, answered, by_input, by_conversation)
            calls = calls_of[answered]
            ordinal[answered] += 1
            if calls is None:
                continue
            if len(calls) == 1 and answering[answered] == 1:
                found.setdefault(calls[0], ONLY_RESULT_EVIDENCE)
                continue
            if calls and all(call.startswith(TURN_KEY_PREFIX) for call in calls) and answering[answered] == len(calls):
                found.setdefault(calls[ordinal[answered] - 1], ORDER_RESULT_EVIDENCE)
                continue
            matches = {call_id for call_id in calls if returned.get((call_id, result)) == 1}
            if len(matches) == 1:
                found.setdefault(matches.pop(), RESULT_EVIDENCE)
            elif not matches and unkeyed:
                matched = _unkeyed_match(reader, answered, calls, result, unkeyed, by_input, by_conversation)
                if matched is not None:
                    found.setdefault(matched, UNKEYED_RESULT_EVIDENCE)
        new = {call_id: how for call_id, how in found.items() if call_id not in facts.consumed_call_ids}
        if new:
            facts = reader.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
            facts.consumed_call_ids.extend(new)
            facts.consumed_evidence.update(new)


def _unkeyed_match(
    reader: SpanEntry,
    answered: int,
    calls: list[str],
    result: str,
    unkeyed: dict[tuple[str, str, str], int],
    by_input: dict[tuple[str, ...], list[SpanEntry]],
    by_conversation: dict[tuple[str, ...], list[SpanEntry]],
) -> str | None:
    """The one of the answered turn's calls (``calls``, ids) whose tool and arguments name exactly one run without
    call id, that run having returned ``result``; ``None`` when none or several do."""
    proposer = _proposer(reader, answered, by_input, by_conversation)
    if proposer is None:
        return None
    wanted = set(calls)
    matched = {
        call.call_id for call in proposer.facts.proposals or ()
        if call.call_id in wanted and call.arguments is not None
        and unkeyed.get((call.name, call.arguments, result)) == 1
    }
    return matched.pop() if len(matched) == 1 else None


def _last_turn_results(
    reader: SpanEntry,
    by_input: dict[tuple[str, ...], list[SpanEntry]],
    by_conversation: dict[tuple[str, ...], list[SpanEntry]],
) -> list[tuple[int, int, str]]:
    """``reader``'s id-less results, those of a run with no assistant message before it (read at the run's first
    message: ``answered == position``) narrowed to the last turn's: the ones from the largest message ``j`` of the run
    that one call's input ends at, each then answering ``j``; none when no call's input ends in the run."""
    results = reader.facts.id_less_results
    runs = {answered for position, answered, _ in results if position == answered}
    if not runs:
        return results
    kept: list[tuple[int, int, str]] = []
    for run in sorted(runs):
        members = [(position, result) for position, answered, result in results if answered == run]
        last = max(position for position, _ in members)
        tried = range(last, max(run, last - MAX_RUN_BOUNDARIES + 1) - 1, -1)
        boundary = next(
            (j for j in tried if _calls_answered(reader, j, by_input, by_conversation) is not None), None
        )
        if boundary is not None:
            kept.extend((position, boundary, result) for position, result in members if position >= boundary)
    kept.extend(entry for entry in results if entry[1] not in runs)
    return sorted(kept)


def _calls_answered(
    reader: SpanEntry,
    answered: int,
    by_input: dict[tuple[str, ...], list[SpanEntry]],
    by_conversation: dict[tuple[str, ...], list[SpanEntry]],
) -> list[str] | None:
    """Call ids of the one model call whose input is ``reader``'s input before message ``answered`` (else the same
    conversation without system messages); ``None`` when no single call has it."""
    proposer = _proposer(reader, answered, by_input, by_conversation)
    if proposer is None:
        return None
    proposals = proposer.facts.proposals or []
    if proposals and proposer.node_id is not None and not any(call.call_id or call.join_key for call in proposals):
        # Calls without id: keyed by their place in the proposer's output, so that their results can name them.
        proposer.facts = copy_facts(proposer.facts)  # the read facts may be kept for the run: never changed
        proposer.facts.proposals = [
            replace(call, join_key=f"{TURN_KEY_PREFIX}{proposer.node_id}#{index}")
            for index, call in enumerate(proposals[:MAX_PREFIX_CALLS])
        ]
        proposals = proposer.facts.proposals
    if any(call.call_id for call in proposals):
        return [call.call_id for call in proposals if call.call_id]
    return [call.join_key for call in proposals if call.join_key and call.join_key.startswith(TURN_KEY_PREFIX)]


def _proposer(
    reader: SpanEntry,
    answered: int,
    by_input: dict[tuple[str, ...], list[SpanEntry]],
    by_conversation: dict[tuple[str, ...], list[SpanEntry]],
) -> SpanEntry | None:
    """The one model call whose input is ``reader``'s input before message ``answered`` (else the same conversation
    without system messages); ``None`` when no single call has it."""
    facts = reader.facts
    inputs = facts.messages.inputs
    proposers = [entry for entry in by_input.get(tuple(inputs[:answered]), ()) if entry is not reader]
    if not proposers:
        prefix = _conversation(inputs[:answered], [i for i in facts.messages.system_inputs if i < answered])
        proposers = [entry for entry in by_conversation.get(prefix, ()) if entry is not reader]
    return proposers[0] if len(proposers) == 1 else None
