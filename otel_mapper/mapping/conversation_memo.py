"""Input message lists already read in one trace, so a model call's input that repeats an earlier call's input
as its prefix reads only the messages that are new (:class:`~otel_mapper.mapping.messages.InputScan`).

An agent resends the whole conversation with every model call: a run of n calls carries 1 + 2 + ... + n
messages in its ``gen_ai.input.messages``, each read and digested again, so the reading grew with the square of
the run's length. Instrumentations serialise the list the same way each time, so the earlier input's text without
its closing bracket is a prefix of the later one's, followed by a comma. The later list is then the earlier list's
items followed by the items of the rest of the text (``[`` + what follows the comma): each item of a JSON array is a
complete value, ended the same way whether a ``]`` or a ``,`` follows. The same text again (two spans of one call)
is the earlier list itself. Where the texts differ in any other way the whole text is read as before. Nothing here
depends on span order or time: which earlier input is found changes only how much is read again, not the result.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Final

import orjson

from otel_mapper.mapping.messages import MAX_MESSAGES, InputScan
from otel_mapper.otlp.anyvalue import Decoded

__all__ = ["MAX_REMEMBERED", "ConversationMemo"]

MAX_REMEMBERED: Final = 8
"""Input lists remembered per trace, the latest kept (several agents' conversations may interleave)."""


@dataclass(frozen=True, slots=True)
class _Remembered:
    body: str
    """The list's text (outer whitespace stripped) without its closing bracket and the whitespace before it."""
    items: int
    """Items in the list, messages or not (the :data:`MAX_MESSAGES` bound counts them all)."""
    scan: InputScan
    """The list read; never changed (an extension goes on from a copy)."""


class ConversationMemo:
    """Read input message lists of one trace (JSON array texts), reusing the reading of an earlier list that
    the text extends. Holds at most :data:`MAX_REMEMBERED` lists; made per trace and dropped with it."""

    __slots__ = ("_remembered",)

    def __init__(self) -> None:
        self._remembered: deque[_Remembered] = deque(maxlen=MAX_REMEMBERED)

    def read(self, text: str) -> InputScan | None:
        """The messages of a JSON array text, scanned; ``None`` when the text is no JSON array of at most
        :data:`MAX_MESSAGES` items (the caller reads it as before). The scan is shared: read it, do not add to it."""
        stripped = text.strip()
        if not stripped.startswith("["):
            return None
        for earlier in reversed(self._remembered):
            scan = self._extend(earlier, stripped)
            if scan is not None:
                return scan
        value = _array(stripped)
        if value is None:
            return None
        return self._remember(stripped, len(value), InputScan(), value)

    def _extend(self, earlier: _Remembered, stripped: str) -> InputScan | None:
        body = earlier.body
        if len(stripped) <= len(body) or not stripped.startswith(body):
            return None
        rest = stripped[len(body) :].lstrip()
        if rest == "]":
            return earlier.scan
        if not rest.startswith(","):
            return None
        tail = _array("[" + rest[1:])
        if not tail or earlier.items + len(tail) > MAX_MESSAGES:
            return None  # "[a, ]" is no JSON; past the bound, the whole list is cut as before
        return self._remember(stripped, earlier.items + len(tail), earlier.scan.copy(), tail)

    def _remember(self, stripped: str, items: int, scan: InputScan, new_items: list[Decoded]) -> InputScan:
        scan.add_messages(new_items)
        if items:  # "[]" extended is no "[" + ", ..." (and "[ , a]" no JSON)
            self._remembered.append(_Remembered(stripped[:-1].rstrip(), items, scan))
        return scan


def _array(text: str) -> list[Decoded] | None:
    """The JSON array ``text`` holds (at most :data:`MAX_MESSAGES` items), else ``None``."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, list) or len(value) > MAX_MESSAGES:
        return None
    return value
