"""Which tool call each tool result of an input message list answers when the two name the call differently.

A chat protocol answers the tool calls of one assistant turn with as many tool results, in the order of the calls,
each naming the call it answers by its call id. Some instrumentations write a call under another id than the one
its result names: OpenLLMetry's OpenAI instrumentation on the Responses API writes a ``function_call`` item's own
item id (``fc_...``) as the tool-call part's id, and the ``function_call_output`` item's ``call_id`` (``call_...``),
the id the API joins them by, as the result's (``corpus/NOTES-frameworks-ca.md``). The id the result names is the
call id; the call's recorded id is only the item's.

:class:`TurnPairs` reads an input message list message by message (beside
:class:`~otel_mapper.mapping.messages.InputScan`) and gives, for each turn whose calls no result of the list answers
by id and whose results answer no call of the list by id, the k-th call's recorded id and the k-th result's id, when
the turn has as many results as calls and every one names an id. A turn is a run of messages with tool calls (and
assistant text) followed by a run of messages with tool results only; any other message ends it. Ids that agree (the
usual case) give nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from otel_mapper.mapping.spans import MAX_NAME
from otel_mapper.otlp.anyvalue import Decoded

__all__ = ["MAX_TURN_PAIRS", "TurnPairs", "part_call_id"]

MAX_TURN_PAIRS: Final = 1_000
"""Pairs read from one input message list."""
ASSISTANT_ROLE: Final = "assistant"

_Turn = tuple[tuple[str | None, ...], tuple[str | None, ...]]
"""A turn's call ids (as recorded) and result ids, in input order."""


@dataclass(slots=True)
class TurnPairs:
    """The turns of one input message list, read as far as it goes (copied to go on with a longer list)."""

    call_ids: set[str] = field(default_factory=set)
    """Every call id of the list's tool calls."""
    result_ids: set[str] = field(default_factory=set)
    """Every call id the list's tool results name."""
    turns: list[_Turn] = field(default_factory=list)
    """Ended turns."""
    calls: list[str | None] = field(default_factory=list)
    results: list[str | None] = field(default_factory=list)
    """The open turn's calls and results."""

    def copy(self) -> TurnPairs:
        return TurnPairs(set(self.call_ids), set(self.result_ids), list(self.turns), list(self.calls), list(self.results))

    def add(self, role: object, calls: list[str | None], results: list[str | None]) -> None:
        """One message: the ids of its tool calls and of its tool results (``None`` for a part without id)."""
        self.call_ids.update(call for call in calls if call)
        self.result_ids.update(result for result in results if result)
        if calls:
            if self.results or results:
                self._end()  # a new turn's calls (results beside calls answer an earlier turn: no turn of its own)
            if not results:
                self.calls.extend(calls)
        elif results:
            if self.calls:
                self.results.extend(results)
        elif role != ASSISTANT_ROLE or self.results:
            self._end()  # assistant text before its calls stays in the turn; anything else ends it

    def _end(self) -> None:
        if self.calls and self.results:
            self.turns.append((tuple(self.calls), tuple(self.results)))
        self.calls.clear()
        self.results.clear()

    def pairs(self) -> list[tuple[str, str]]:
        """(the call's recorded id, the id its result names) for each call of a turn read so far whose ids disagree
        (see the module)."""
        found: list[tuple[str, str]] = []
        turns = [*self.turns, (tuple(self.calls), tuple(self.results))] if self.calls and self.results else self.turns
        for calls, results in turns:
            if len(calls) != len(results) or not all(calls) or not all(results):
                continue
            if any(call in self.result_ids for call in calls) or any(result in self.call_ids for result in results):
                continue
            for call, result in zip(calls, results, strict=True):
                if call is not None and result is not None and len(found) < MAX_TURN_PAIRS:
                    found.append((call, result))
        return found


def part_call_id(part: dict[str, Decoded]) -> str | None:
    """The call id a tool-call or tool-result part names (bounded), ``None`` when it names none."""
    call_id = part.get("id")
    return str(call_id)[:MAX_NAME] if call_id else None
