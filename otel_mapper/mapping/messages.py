"""GenAI message content (``gen_ai.input.messages`` / ``gen_ai.output.messages`` parts): tool calls, tool
results and per-message digests. Shared by every reader whose convention uses the OTel parts schema.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Final

import orjson

from otel_mapper.bundle.canonical import digest, dumps_canonical
from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.parts_messages import CHAT_TOOL_CALL_ID, CHAT_TOOL_CALLS, with_chat_completions_fields
from otel_mapper.mapping.result_texts import (
    function_response_text,
    id_less_result_text,
    python_literal,
    result_texts,
    results_only,
)
from otel_mapper.mapping.spans import MAX_NAME, MAX_TEXT, parse_json_text
from otel_mapper.mapping.tool_failures import tool_failure
from otel_mapper.mapping.tool_names import MAX_REJECTION_TEXT, rejection
from otel_mapper.mapping.turn_pairs import TurnPairs, part_call_id
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai, smolagents

__all__ = [
    "MESSAGE_DIGEST_CANONICALIZATION",
    "MAX_MESSAGES",
    "InputScan",
    "add_rejection",
    "arguments_text",
    "message_digest",
    "python_literal",
    "read_input_messages",
    "result_text_digest",
    "scan_input_messages",
    "read_output_messages",
    "replayed_call_ids",
    "unwrap_call_arguments",
]

MAX_MESSAGES = 10_000
SYSTEM_ROLE: Final = "system"
ASSISTANT_ROLE: Final = "assistant"
USER_ROLE: Final = "user"
TOOL_ROLE: Final = "tool"
MAX_PARTS = 1_000
_CALL_WRAPPER_KEYS = frozenset({"args", "kwargs"})
_CALL_RECORD_KEYS = _CALL_WRAPPER_KEYS | {smolagents.CALL_RECORD_FLAG}


def unwrap_call_arguments(value: Decoded) -> Decoded:
    """The keyword arguments of a decorator's call record, else ``value`` unchanged.

    Decorator-based instrumentations (OpenLLMetry ``traceloop.entity.input``, OpenInference ``@tool``, CrewAI's
    ``BaseTool.run``, smolagents' ``Tool.__call__`` with its ``sanitize_inputs_outputs`` flag) record a tool's input
    as ``{"args": [], "kwargs": {...}}`` or ``{"kwargs": {...}}`` while the model proposed the bare object; smolagents
    also calls a tool with the whole argument dict as its one positional argument. Applied to both sides of the
    (tool name, argument digest) join so they canonicalise identically; other positional arguments cannot be
    matched to names, so a call record with any is left as it is.
    """
    if not isinstance(value, dict) or not value or not set(value) <= _CALL_RECORD_KEYS or not set(value) & _CALL_WRAPPER_KEYS:
        return value
    kwargs = value.get("kwargs")
    args = value.get("args")
    if isinstance(kwargs, dict) and (args is None or args == []):
        return kwargs
    if isinstance(args, list) and len(args) == 1 and isinstance(args[0], dict) and not kwargs:
        return args[0]
    return value


def add_rejection(rejected: list[tuple[str | None, str | None]], call_id: str | None, result: Decoded) -> bool:
    """Record a tool result that rejects an unknown tool: a bounded text head, or the text items of a list result.
    Whether it was one."""
    for text in result_texts(result):
        found, named = rejection(text[:MAX_REJECTION_TEXT])
        if found and (named or call_id):
            rejected.append((call_id, named))
            return True
    return False


def add_failure(failed: list[tuple[str, str]], call_id: str | None, result: Decoded) -> None:
    """Record a tool result, under its call id, that reports the tool failed (:func:`tool_failure`)."""
    texts = result_texts(result)
    head = tool_failure(texts[0]) if call_id and texts else None
    if call_id and head is not None:
        failed.append((call_id, head))


def replayed_call_ids(text: str) -> list[str]:
    """Call ids of smolagents' replay of a step's calls as text (``Calling tools:`` and the calls' Python text, read
    as a literal, never run); the message after it carries their results."""
    if not text.startswith(smolagents.TOOL_CALL_TEXT_PREFIX):
        return []
    calls = python_literal(text[len(smolagents.TOOL_CALL_TEXT_PREFIX):])
    if not isinstance(calls, list):
        return []
    ids = (call.get("id") for call in calls[:256] if isinstance(call, dict))
    return [name for value in ids if isinstance(value, str) and (name := value.strip()[:MAX_NAME])]


def _replayed_ids(parts: list[dict[str, Decoded]]) -> list[str]:
    """The call ids a message's first text part replays (:func:`replayed_call_ids`)."""
    for part in parts:
        if part.get(genai.PART_TYPE) == genai.PART_TEXT:
            content = part.get("content")
            return replayed_call_ids(content) if isinstance(content, str) else []
    return []


def arguments_text(arguments: Decoded) -> str | None:
    """Tool-call arguments as bounded text: objects as canonical JSON (call records unwrapped), strings as they
    are. Both sides of every argument join go through here."""
    return _arguments_text(arguments, parse_json_text(arguments) if isinstance(arguments, str) else arguments)


def _arguments_text(arguments: Decoded, parsed: Decoded) -> str | None:
    """:func:`arguments_text` of ``arguments`` when ``parsed`` is already ``parse_json_text(arguments)`` (for a
    string; ``arguments`` itself otherwise): a message digest parses the same text first."""
    if arguments is None:
        return None
    if isinstance(arguments, str) and not isinstance(parsed, (dict, list)):
        return arguments[:MAX_TEXT]
    try:
        text = dumps_canonical(unwrap_call_arguments(parsed))
    except TypeError:
        return None
    return text[:MAX_TEXT]


def _normal_part(part: dict[str, Decoded]) -> dict[str, Decoded]:
    part_type = part.get(genai.PART_TYPE)
    if part_type == genai.PART_TOOL_CALL:
        args = part.get("arguments")
        if isinstance(args, str):
            args = parse_json_text(args)
        return {"type": part_type, "id": part.get("id"), "name": part.get("name"), "arguments": args}
    if part_type == genai.PART_TOOL_CALL_RESPONSE:
        response = part.get("response", part.get("result"))
        return {"type": part_type, "id": part.get("id"), "response": response}
    return part  # serialised as it is: no copy needed


MESSAGE_DIGEST_CANONICALIZATION: Final = "orjson-sorted-keys"
"""How message digests serialise before SHA-256: compact JSON with sorted keys (orjson ``OPT_SORT_KEYS``), RFC
8785 JCS only for values orjson refuses. Message digests are join keys inside one mapping (a message in call B's
input equals one in call A's output); the JCS serialiser in pure Python cost most of the mapping time."""


def message_digest(message: dict[str, Decoded]) -> str:
    """Digest of a message's role and parts (finish_reason and names left out): the same message in a later
    call's input digests the same as in the output that produced it."""
    return _parts_digest(message.get("role"), [_normal_part(part) for part in _parts(message)])


def _parts_digest(role: Decoded, normal_parts: list[dict[str, Decoded]]) -> str:
    value = {"role": role, "parts": normal_parts}
    try:
        encoded = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # bytes, lone surrogates, integers beyond 64 bits
        return digest(value)
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def _messages(value: Decoded) -> list[dict[str, Decoded]]:
    if isinstance(value, dict):  # a single message
        value = [value]
    if not isinstance(value, list):
        return []
    return [message for message in value[:MAX_MESSAGES] if isinstance(message, dict)]


def _parts(message: dict[str, Decoded]) -> list[dict[str, Decoded]]:
    parts = message.get("parts")
    if not isinstance(parts, list):
        return []
    found = [part for part in parts[:MAX_PARTS] if isinstance(part, dict)]
    if CHAT_TOOL_CALLS in message or CHAT_TOOL_CALL_ID in message:
        return with_chat_completions_fields(message, found)[:MAX_PARTS]
    return found


def read_output_messages(value: Decoded) -> tuple[list[ToolCallFact], list[str]]:
    """Tool calls proposed in the output, and the digest of each output message.

    One pass over each message's parts gives both: a tool call's arguments are parsed once, for the digest's
    normal form and for the proposal's argument text."""
    proposals: list[ToolCallFact] = []
    digests: list[str] = []
    for message in _messages(value):
        normal_parts: list[dict[str, Decoded]] = []
        for part in _parts(message):
            normal = _normal_part(part)
            normal_parts.append(normal)
            if part.get(genai.PART_TYPE) == genai.PART_TOOL_CALL:
                name = part.get("name")
                proposals.append(
                    ToolCallFact(
                        call_id=part_call_id(part),
                        name=str(name)[:MAX_NAME] if name else "",
                        arguments=_arguments_text(part.get("arguments"), normal["arguments"]),
                    )
                )
        digests.append(_parts_digest(message.get("role"), normal_parts))
    return proposals, digests


def result_text_digest(text: str) -> str:
    """Digest of a tool result's text (outer whitespace left out), the same on the tool run and in a model input."""
    return "sha256:" + hashlib.sha256(text.strip()[:MAX_TEXT].encode("utf-8", "surrogatepass")).hexdigest()


def read_input_messages(
    value: Decoded,
    calls: list[tuple[int, ToolCallFact]] | None = None,
    system: list[int] | None = None,
    rejected: list[tuple[str | None, str | None]] | None = None,
    failed: list[tuple[str, str]] | None = None,
    id_less: list[tuple[int, int, str]] | None = None,
) -> tuple[list[str], list[str]]:
    """Ids of tool results in the input, and the digest of each input message (in input order). With ``calls``,
    also the tool calls of the last assistant message in the input that has any, with its position, and with
    ``system`` the positions of system messages (conversation-prefix evidence, :mod:`otel_mapper.mapping.prefix`:
    the call that produced a replayed message is found from the next call's input, whose last tool-calling message
    it is, so earlier ones are not read again in every later input). With ``rejected``, the tool results after
    that message (the ones new to this call; earlier ones were read where they were new) that are a runtime's
    rejection of an unknown tool, as (call id, tool named); with ``failed`` also, of those that are not, the ones
    reporting that the tool failed, as (call id, text head). With ``id_less``, the tool messages that name no call
    id and answer the input's last assistant message answered by tool messages (only tool messages between), as
    (position, the assistant message's position, :func:`result_text_digest` of the text): the results new to this
    call, as with ``rejected`` (earlier ones were read by the call they were new to)."""
    return scan_input_messages(value).facts(calls, system, rejected, failed, id_less)


def scan_input_messages(value: Decoded) -> InputScan:
    """An input message list (or a single message) read and scanned whole (:class:`InputScan`)."""
    scan = InputScan()
    scan.add_messages(value)
    return scan


_Call = tuple[dict[str, Decoded], dict[str, Decoded]]
"""A tool-call part and its normal form."""


@dataclass(slots=True)
class InputScan:
    """An input message list read message by message, as far as it goes: what :func:`read_input_messages`
    returns needs only this state, so a list that extends an earlier one (a conversation memo's) goes on from a
    :meth:`copy` of the earlier list's scan with the new messages alone."""

    consumed: list[str] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    system: list[int] = field(default_factory=list)
    answered: int = -1
    """The assistant message the tool messages since then answer (-1: none)."""
    unanswered: list[tuple[int, int, str]] = field(default_factory=list)
    """Tool messages naming no call id that answer ``answered``: (position, ``answered``, text)."""
    last_calls: tuple[int, list[_Call]] | None = None
    """The last message with tool calls: its position and its calls."""
    results: list[tuple[int, str | None, Decoded]] = field(default_factory=list)
    """Tool results after that message: (position, call id, response)."""
    replayed: list[str] = field(default_factory=list)
    """Call ids the last message replayed as text (smolagents), consumed when a user message answers them."""
    turns: TurnPairs = field(default_factory=TurnPairs)
    """Each turn's calls and results, for results that name their call otherwise (:mod:`.turn_pairs`)."""

    def copy(self) -> InputScan:
        """A scan that can go on without changing this one (the parsed values themselves are read-only)."""
        return InputScan(
            list(self.consumed), list(self.digests), list(self.system), self.answered, list(self.unanswered),
            self.last_calls, list(self.results), list(self.replayed), self.turns.copy(),
        )

    def add_messages(self, value: Decoded) -> None:
        """The messages of a message list (or a single message), in order: items that are no message are left out,
        and items past :data:`MAX_MESSAGES`."""
        for message in _messages(value):
            self.add(message)

    def add(self, message: dict[str, Decoded]) -> None:
        """One message: its parts read, normalised and digested, and what they say added to the scan."""
        position = len(self.digests)
        parts = _parts(message)
        normal_parts = [_normal_part(part) for part in parts]
        role = message.get("role")
        if role == SYSTEM_ROLE:
            self.system.append(position)
        if role == TOOL_ROLE:
            text = id_less_result_text(parts)
            if self.answered < 0 and text is not None:
                # No assistant turn before it (OpenLIT's Mistral input keeps text only, so a turn that only called
                # tools is left out): the run of results is read at its first message, :mod:`.prefix` finds whose.
                self.answered = position
            self._answer(position, [text])
        elif results_only(role == USER_ROLE, parts):  # one result per part, in the order of the calls it answers
            self._answer(position, [function_response_text(part.get("response", part.get("result"))) for part in parts])
        else:
            self.answered = position if role == ASSISTANT_ROLE else -1
        if self.replayed and role == USER_ROLE:
            self.consumed.extend(self.replayed)  # smolagents sends a step's observations as the next user message
        self.replayed = _replayed_ids(parts) if role == ASSISTANT_ROLE else []
        self.digests.append(_parts_digest(role, normal_parts))
        message_calls: list[_Call] | None = None
        message_results: list[tuple[int, str | None, Decoded]] | None = None
        for part, normal in zip(parts, normal_parts, strict=True):
            part_type = part.get(genai.PART_TYPE)
            if part_type == genai.PART_TOOL_CALL_RESPONSE:
                call_id = part.get("id")
                if call_id:
                    self.consumed.append(str(call_id)[:MAX_NAME])
                if message_results is None:
                    message_results = []
                message_results.append((position, str(call_id)[:MAX_NAME] if call_id else None, normal.get("response")))
            elif part_type == genai.PART_TOOL_CALL:
                if message_calls is None:
                    message_calls = []
                message_calls.append((part, normal))
        self.turns.add(role, [part_call_id(part) for part, _ in message_calls or ()],
                       [result_id for _, result_id, _ in message_results or ()])
        if message_calls is not None:  # results before it, or beside it, are not new to the call that reads this input
            self.last_calls = (position, message_calls)
            self.results = []
        elif message_results is not None:
            self.results.extend(message_results)

    def _answer(self, position: int, texts: list[str | None]) -> None:
        """Results named by no call id at ``position`` that answer the assistant message before them (if any)."""
        if self.answered < 0:
            return
        for text in texts:
            if text is None:
                continue
            if self.unanswered and self.unanswered[-1][1] != self.answered:
                self.unanswered.clear()  # a later turn's results: only the last turn's are kept
            self.unanswered.append((position, self.answered, text))

    def facts(
        self,
        calls: list[tuple[int, ToolCallFact]] | None = None,
        system: list[int] | None = None,
        rejected: list[tuple[str | None, str | None]] | None = None,
        failed: list[tuple[str, str]] | None = None,
        id_less: list[tuple[int, int, str]] | None = None,
        paired: list[tuple[str, str]] | None = None,
    ) -> tuple[list[str], list[str]]:
        """What :func:`read_input_messages` returns and adds to its lists, for the messages scanned so far; with
        ``paired``, :meth:`TurnPairs.pairs`."""
        if paired is not None:
            paired.extend(self.turns.pairs())
        if system is not None:
            system.extend(self.system)
        if id_less is not None:
            id_less.extend((position, answered, result_text_digest(text)) for position, answered, text in self.unanswered)
        if rejected is not None:
            for _, result_id, response in self.results:
                if not add_rejection(rejected, result_id, response) and failed is not None:
                    add_failure(failed, result_id, response)
        if calls is not None and self.last_calls is not None:
            position, found = self.last_calls
            for part, normal in found:
                name = part.get("name")
                calls.append(
                    (
                        position,
                        ToolCallFact(
                            call_id=part_call_id(part),
                            name=str(name)[:MAX_NAME] if name else "",
                            arguments=_arguments_text(part.get("arguments"), normal["arguments"]),
                        ),
                    )
                )
        return list(self.consumed), list(self.digests)
