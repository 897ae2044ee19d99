"""OpenInference's flattened messages (``llm.{input,output}_messages.N.message.*``) regrouped per message: tool calls,
multimodal text items, tool results recorded as JSON objects (``llm.input_messages.N.function.K``, AutoGen AgentChat's
instrumentor), and digests in the GenAI parts shape (the same message digests the same in every convention)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.messages import (
    ASSISTANT_ROLE,
    TOOL_ROLE,
    USER_ROLE,
    arguments_text,
    message_digest,
    result_text_digest,
)
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.readers.common import clean_name, json_content
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openinference as oi

__all__ = [
    "MERGED_RESULTS_EVIDENCE", "FlatMessage", "calls_of", "group_messages", "id_less_results", "merge_call_runs",
    "message_digest_of", "results_of", "unanswered_in_answered_turns",
]

MAX_INDEX: Final = 10_000
MAX_TOOLS: Final = 1024
"""Advertised tools a span may list and be read as complete (one more is read, to tell a longer list)."""
MERGED_RESULTS_EVIDENCE: Final = (
    "answered with the turn's other calls: a tool message answers one call of the same assistant message and the "
    "request must answer every call of it"
)
"""Evidence of a call read as consumed by :func:`unanswered_in_answered_turns`."""
_TOOL_CALL_KEY = re.compile(r"^message\.tool_calls\.(\d+)\.(tool_call\.(?:id|function\.name|function\.arguments))$")


@dataclass(slots=True)
class FlatMessage:
    """One ``llm.{input,output}_messages.N`` message regrouped from its flattened keys."""

    fields: dict[str, str | None] = field(default_factory=dict)
    """Role, content, tool call id and name, by their key suffix."""
    calls: dict[int, dict[str, str | None]] = field(default_factory=dict)
    """Tool calls by index: id, name and arguments by their key suffix."""
    texts: dict[int, str] = field(default_factory=dict)
    """Text items of a multimodal content list (``message.contents.K.message_content.text``) by index."""
    results: dict[int, tuple[str, Decoded]] = field(default_factory=dict)
    """Tool results the message carries as JSON objects (``function.K``): call id and content by index."""
    content_call_ids: dict[int, str] = field(default_factory=dict)
    """Items of a content list that name the tool call they answer (``message.contents.K.message.tool_call_id``,
    OpenInference's BeeAI instrumentation): call id by index; the item's text is that call's result."""

    def missing_call_ids(self) -> bool:
        return any(not call.get(oi.TOOL_CALL_ID_SUFFIX) for call in self.calls.values())

    def fill_call_ids(self, recorded: Sequence[tuple[str | None, str | None]]) -> None:
        """Give each call recorded without an id the id of the call at its position in ``recorded`` (the provider's
        own record of the answer: id and tool name), when that call names the same tool."""
        for index, call in self.calls.items():
            if call.get(oi.TOOL_CALL_ID_SUFFIX) or not 0 <= index < len(recorded):
                continue
            call_id, name = recorded[index]
            if call_id and name == call.get(oi.TOOL_CALL_NAME_SUFFIX):
                call[oi.TOOL_CALL_ID_SUFFIX] = call_id


def group_messages(
    view: SpanView,
) -> tuple[dict[int, FlatMessage] | None, dict[int, FlatMessage] | None, dict[int, str]]:
    """Flattened ``llm.{input,output}_messages.N.message.*`` regrouped per message, and the advertised tools' JSON
    schemas by their index ``N`` of ``llm.tools.N.tool.json_schema`` (one pass over the keys)."""
    inputs: dict[int, FlatMessage] | None = None
    outputs: dict[int, FlatMessage] | None = None
    tools: dict[int, str] = {}
    for key in view.attrs:
        if not key.startswith(oi.LLM_PREFIX):
            continue
        if key.startswith(oi.LLM_INPUT_MESSAGES):
            inputs = {} if inputs is None else inputs
            _add_message_field(view, key, key[len(oi.LLM_INPUT_MESSAGES):], inputs)
        elif key.startswith(oi.LLM_OUTPUT_MESSAGES):
            outputs = {} if outputs is None else outputs
            _add_message_field(view, key, key[len(oi.LLM_OUTPUT_MESSAGES):], outputs)
        elif key.startswith(oi.LLM_TOOLS) and len(tools) <= MAX_TOOLS:
            index_text, _, name = key[len(oi.LLM_TOOLS):].partition(".")
            text = view.text_attr(key) if name == oi.TOOL_JSON_SCHEMA_SUFFIX and index_text.isdigit() else None
            if text:
                tools[int(index_text)] = text
    return inputs, outputs, tools


def _add_message_field(view: SpanView, key: str, rest: str, messages: dict[int, FlatMessage]) -> None:
    index_text, _, name = rest.partition(".")
    if not index_text.isdigit() or int(index_text) >= MAX_INDEX:
        return
    message = messages.get(int(index_text))
    if message is None:
        message = messages[int(index_text)] = FlatMessage()
    if name in (oi.MESSAGE_ROLE, oi.MESSAGE_TOOL_CALL_ID, oi.MESSAGE_NAME):
        message.fields[name] = view.str_attr(key)
    elif name == oi.MESSAGE_CONTENT:
        message.fields[name] = view.text_attr(key)
    elif name.startswith(oi.MESSAGE_CONTENTS_PREFIX) and name.endswith(oi.MESSAGE_CONTENT_TEXT_SUFFIX):
        index_text = name[len(oi.MESSAGE_CONTENTS_PREFIX):].partition(".")[0]
        text = view.text_attr(key)
        if index_text.isdigit() and int(index_text) < MAX_INDEX and text is not None:
            message.texts[int(index_text)] = text
    elif name.startswith(oi.MESSAGE_CONTENTS_PREFIX):
        index_text, _, item = name[len(oi.MESSAGE_CONTENTS_PREFIX):].partition(".")
        call_id = clean_name(view.str_attr(key)) if item == oi.MESSAGE_TOOL_CALL_ID else None
        if call_id and index_text.isdigit() and int(index_text) < MAX_INDEX:
            message.content_call_ids[int(index_text)] = call_id
    elif name.startswith(oi.MESSAGE_FUNCTION_RESULT_PREFIX):
        _add_function_result(view, key, name[len(oi.MESSAGE_FUNCTION_RESULT_PREFIX):], message)
    else:
        match = _TOOL_CALL_KEY.match(name)
        if match and int(match.group(1)) < MAX_INDEX:
            call = message.calls.setdefault(int(match.group(1)), {})
            call[match.group(2)] = view.text_attr(key)


def _add_function_result(view: SpanView, key: str, index_text: str, message: FlatMessage) -> None:
    """One ``function.K`` tool result: kept when its JSON object names a call id."""
    if not index_text.isdigit() or int(index_text) >= MAX_INDEX:
        return
    result = json_content(view, key)
    if not isinstance(result, dict):
        return
    call_id = result.get(oi.FUNCTION_RESULT_CALL_ID)
    cleaned = clean_name(call_id) if isinstance(call_id, str) else None
    if cleaned:
        message.results[int(index_text)] = (cleaned, result.get(oi.FUNCTION_RESULT_CONTENT))


def results_of(message: FlatMessage) -> list[tuple[str, Decoded]]:
    """The message's tool results (call id, content) in index order (content order): its ``function.K`` objects,
    then the content items that name a call id (their text the result)."""
    found = [message.results[index] for index in sorted(message.results)]
    found.extend((message.content_call_ids[index], message.texts.get(index)) for index in sorted(message.content_call_ids))
    return found


def _calls_only(message: FlatMessage) -> bool:
    """An assistant message that holds tool calls and nothing else (no text, result or call id of its own)."""
    fields = message.fields
    return (
        bool(message.calls)
        and fields.get(oi.MESSAGE_ROLE) == ASSISTANT_ROLE
        and not fields.get(oi.MESSAGE_CONTENT)
        and not fields.get(oi.MESSAGE_TOOL_CALL_ID)
        and not message.texts
        and not message.results
        and not message.content_call_ids
    )


def merge_call_runs(messages: list[FlatMessage]) -> list[FlatMessage]:
    """The messages with each run of consecutive call-only assistant messages read as one message holding their calls
    in order.

    The OpenAI Responses API replays a model turn's function calls as one ``function_call`` input item each, and
    OpenInference writes each item as its own assistant message, while the output that proposed them holds them in one
    message. A chat protocol answers every assistant message's calls before the next assistant turn, so consecutive
    call-only assistant messages are one turn recorded an item at a time: merged, the message digests as the output
    that proposed it, and the turn's calls are all the last replayed turn's (conversation-prefix evidence)."""
    merged: list[FlatMessage] = []
    run: FlatMessage | None = None
    for message in messages:
        if not _calls_only(message):
            merged.append(message)
            run = None
            continue
        if run is None:
            run = FlatMessage(fields=dict(message.fields), calls={})
            merged.append(run)
        for position in sorted(message.calls):
            if len(run.calls) >= MAX_INDEX:
                break
            run.calls[len(run.calls)] = message.calls[position]
    return merged


def calls_of(message: FlatMessage) -> list[ToolCallFact]:
    return [
        ToolCallFact(
            call_id=clean_name(call.get(oi.TOOL_CALL_ID_SUFFIX)),
            name=clean_name(call.get(oi.TOOL_CALL_NAME_SUFFIX)) or "",
            arguments=arguments_text(call.get(oi.TOOL_CALL_ARGUMENTS_SUFFIX)),
        )
        for call in message.calls.values()
    ]


def message_digest_of(message: FlatMessage) -> str:
    """Digest of the message in GenAI parts shape: the same message digests the same in every convention."""
    parts: list[dict[str, Decoded]] = []
    role = message.fields.get(oi.MESSAGE_ROLE)
    content = message.fields.get(oi.MESSAGE_CONTENT)
    call_id = message.fields.get(oi.MESSAGE_TOOL_CALL_ID)
    if call_id:
        parts.append(tool_result_part(call_id, content))
    elif isinstance(content, str) and content:
        parts.append(text_part(content))
    parts.extend(tool_result_part(result_id, result) for result_id, result in results_of(message))
    parts.extend(
        text_part(message.texts[position]) for position in sorted(message.texts) if position not in message.content_call_ids
    )
    calls = message.calls
    for position in sorted(calls):
        call = calls[position]
        parts.append(
            tool_call_part(
                call.get(oi.TOOL_CALL_ID_SUFFIX), call.get(oi.TOOL_CALL_NAME_SUFFIX), call.get(oi.TOOL_CALL_ARGUMENTS_SUFFIX)
            )
        )
    return message_digest(parts_message(role, parts))


def id_less_results(ordered: list[FlatMessage], empty_turns: bool = False) -> list[tuple[int, int, str]]:
    """The tool messages that name no call id and answer the input's last assistant message answered by tool
    messages (only tool messages between), as (position, the assistant message's position, digest of the text): the
    results new to the call that reads this input (conversation-prefix evidence, :mod:`otel_mapper.mapping.prefix`).
    A chat API without call ids (Ollama's: a tool message names its tool only) answers a turn's calls this way. With
    ``empty_turns``, an assistant message with neither text nor calls (a recording that keeps role and text only:
    Agent Spec's, :mod:`otel_mapper.mapping.readers.agentspec`) is such a turn too."""
    found: list[tuple[int, int, str]] = []
    answered = -1
    for position, message in enumerate(ordered):
        fields = message.fields
        role = fields.get(oi.MESSAGE_ROLE)
        if role != TOOL_ROLE:
            turn = bool(message.calls) or (empty_turns and _empty(message))
            answered = position if role == ASSISTANT_ROLE and turn else -1
            continue
        content = fields.get(oi.MESSAGE_CONTENT)
        if answered < 0 or fields.get(oi.MESSAGE_TOOL_CALL_ID) or message.results or message.content_call_ids:
            continue
        if not isinstance(content, str) or not content.strip():
            continue
        if found and found[-1][1] != answered:
            found.clear()  # a later turn's results: only the last turn's are new to this call
        found.append((position, answered, result_text_digest(content)))
    return found


def _empty(message: FlatMessage) -> bool:
    """A message with no text, no call and no result."""
    content = message.fields.get(oi.MESSAGE_CONTENT)
    return not message.calls and not message.texts and not message.results and not (content or "").strip()


def unanswered_in_answered_turns(ordered: list[FlatMessage]) -> list[str]:
    """Call ids of an assistant message's calls that no tool message names, where the tool messages right after it name
    another of its calls: the turn's results were sent (Chat Completions, Anthropic's Messages and Bedrock's Converse
    reject a request that leaves a call of an assistant message unanswered), recorded in fewer messages than calls.
    OpenInference's Strands processor (0.1.12) writes one message's several ``toolResult`` blocks as one tool message
    with the last block's ``toolUseId`` and all their texts; OpenInference's Anthropic instrumentation (0.1.20) writes
    a user message's several ``tool_result`` blocks as that user message with the last block's ``tool_use_id`` (Anthropic
    returns results in user messages: a user message naming a call is read as a tool message). A turn no tool message
    answers is left as it is."""
    found: dict[str, None] = {}
    turn: list[str] = []
    answered: set[str] = set()
    for message in (*ordered, None):
        fields = message.fields if message is not None else {}
        if message is not None and _answers_calls(fields):
            call_id = clean_name(fields.get(oi.MESSAGE_TOOL_CALL_ID))
            answered.update(result_id for result_id, _ in results_of(message))
            if call_id:
                answered.add(call_id)
            continue
        if turn and not answered.isdisjoint(turn):
            found.update(dict.fromkeys(call_id for call_id in turn if call_id not in answered))
        turn, answered = [], set()
        if message is not None and fields.get(oi.MESSAGE_ROLE) == ASSISTANT_ROLE:
            turn = [call_id for call in message.calls.values() if (call_id := clean_name(call.get(oi.TOOL_CALL_ID_SUFFIX)))]
    return list(found)


def _answers_calls(fields: dict[str, str | None]) -> bool:
    """A tool message, or a user message that names the call it answers (Anthropic's tool results)."""
    role = fields.get(oi.MESSAGE_ROLE)
    return role == TOOL_ROLE or (role == USER_ROLE and bool(clean_name(fields.get(oi.MESSAGE_TOOL_CALL_ID))))
