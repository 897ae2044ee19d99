"""The conversation in indexed legacy prompts (``gen_ai.prompt.N.role`` / ``.content`` / ``.tool_call_id`` /
``.tool_calls.M.{id,name,arguments}``, OpenLLMetry's Ollama instrumentation 0.62.4 among others), read message by
message for conversation-prefix evidence (:mod:`otel_mapper.mapping.prefix`): each message's digest in the GenAI parts
shape (the same message digests the same in every convention), the system messages' positions, the tool calls of the
last assistant message that has any, and the tool messages without call id that answer it.

The tool messages with a call id after that last message are the results new to the call that reads this input: one
that is a runtime's rejection of an unknown tool, or its report that the tool failed (CrewAI's ``Error executing
tool: ...`` in AgentOps' OpenAI client spans), is recorded as such, as the parts and Chat Completions readers record
it (:func:`~otel_mapper.mapping.messages.add_rejection`, :func:`~otel_mapper.mapping.messages.add_failure`).

Also whether indexed completions record anything of the answer: an instrumentation that writes an answer's role and
finish reason but not its tool calls (OpenLLMetry's Ollama and Mistral instrumentations leave an answer that only
called tools with ``gen_ai.completion.0.role`` alone) records nothing of it: its proposals are unknown, not none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.messages import (
    ASSISTANT_ROLE,
    SYSTEM_ROLE,
    TOOL_ROLE,
    USER_ROLE,
    add_failure,
    add_rejection,
    arguments_text,
    message_digest,
    replayed_call_ids,
    result_text_digest,
)
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.readers.agentops_anthropic import is_agentops_span, tool_result_texts
from otel_mapper.mapping.spans import MAX_NAME, SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai
from semconv import smolagents as smol

__all__ = ["LegacyConversation", "completion_records_answer", "fill_legacy_conversation", "read_legacy_conversation"]

MAX_MESSAGES: Final = 1_000
"""Indexed prompt messages read from one span (index order); more are left out."""
MAX_CALLS: Final = 256
"""Tool calls read from one indexed message."""
_MESSAGE_KEY = re.compile(r"^(\d+)\.(role|content|tool_call_id)$")
_CALL_KEY = re.compile(r"^(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)$")
_ROLE_ONLY_SUFFIXES: Final = (".role", ".finish_reason")
"""Indexed completion keys that say nothing of the answer's content."""


@dataclass(slots=True)
class LegacyConversation:
    inputs: list[str] = field(default_factory=list)
    """Digest of each prompt message, in index order."""
    system_inputs: list[int] = field(default_factory=list)
    input_tool_calls: list[tuple[int, ToolCallFact]] = field(default_factory=list)
    """The tool calls of the last message that has any, with its position."""
    id_less_results: list[tuple[int, int, str]] = field(default_factory=list)
    """Tool messages naming no call id that answer the last answered assistant turn: (position, its position,
    digest of the text)."""
    results: list[tuple[str, str]] = field(default_factory=list)
    """Tool messages naming a call id after the last message with tool calls: (call id, text)."""
    replay_consumed: list[str] = field(default_factory=list)
    """Call ids an assistant message replays as text (smolagents' ``Calling tools:``) whose results the user message
    after it carries (its ``Observation:``), as the GenAI parts reader reads them."""
    replayed_results: list[tuple[str, str]] = field(default_factory=list)
    """(call id, digest of its result text) from such a replay and the observation after it."""


def completion_records_answer(view: SpanView) -> bool:
    """Whether some indexed completion key records content of the answer (anything but a role or finish reason)."""
    prefix = genai.LEGACY_COMPLETION_PREFIX
    return any(
        key[len(prefix):len(prefix) + 1].isdigit() and not key.endswith(_ROLE_ONLY_SUFFIXES)
        for key in view.keys_with_prefix(prefix)
    )


def read_legacy_conversation(view: SpanView) -> LegacyConversation:
    prefix = genai.LEGACY_PROMPT_PREFIX
    fields: dict[int, dict[str, str]] = {}
    calls: dict[int, dict[int, dict[str, str]]] = {}
    for key in view.keys_with_prefix(prefix):
        rest = key[len(prefix):]
        match = _MESSAGE_KEY.match(rest)
        if match and int(match.group(1)) < MAX_MESSAGES:
            fields.setdefault(int(match.group(1)), {})[match.group(2)] = view.text_attr(key) or ""
            continue
        match = _CALL_KEY.match(rest)
        if match and int(match.group(1)) < MAX_MESSAGES and int(match.group(2)) < MAX_CALLS:
            slots = calls.setdefault(int(match.group(1)), {})
            slots.setdefault(int(match.group(2)), {})[match.group(3)] = view.text_attr(key) or ""
    result = LegacyConversation()
    answered = -1
    replayed: list[str] = []
    texts_results = is_agentops_span(view)  # AgentOps writes a turn's tool results as text, without call ids
    previous_role: str | None = None
    for position, index in enumerate(sorted(set(fields) | set(calls))):  # index order is content order, not time
        message = fields.get(index, {})
        role, content, call_id = message.get("role"), message.get("content") or "", message.get("tool_call_id")
        if replayed and role == USER_ROLE:
            _add_replayed(result, replayed, _one_text(content))
        replayed = replayed_call_ids(_one_text(content)) if role == ASSISTANT_ROLE else []
        parts: list[dict[str, Decoded]] = []
        if call_id:
            parts.append(tool_result_part(call_id[:MAX_NAME], content))
        elif content:
            parts.append(text_part(content))
        message_calls = [calls[index][slot] for slot in sorted(calls.get(index, {}))]
        parts.extend(tool_call_part(call.get("id") or None, call.get("name"), call.get("arguments")) for call in message_calls)
        result.inputs.append(message_digest(parts_message(role, parts)))
        if role == SYSTEM_ROLE:
            result.system_inputs.append(position)
        if message_calls:
            result.results.clear()  # results before it, or beside it, are not new to the call that reads this input
            result.input_tool_calls = [
                (position, ToolCallFact(call_id=(call.get("id") or "")[:MAX_NAME] or None, name=(call.get("name") or "")[:MAX_NAME],
                                        arguments=arguments_text(call["arguments"]) if "arguments" in call else None))
                for call in message_calls
            ]
        if texts_results and role == USER_ROLE and previous_role == ASSISTANT_ROLE:
            _add_text_results(result, position, content)
        previous_role = role
        if role != TOOL_ROLE:
            answered = position if role == ASSISTANT_ROLE and message_calls else -1
            continue
        if call_id and len(result.results) < MAX_MESSAGES:
            result.results.append((call_id[:MAX_NAME], content))
        if answered < 0 or call_id or not content.strip():
            continue
        if result.id_less_results and result.id_less_results[-1][1] != answered:
            result.id_less_results.clear()  # a later turn's results: only the last turn's are new to this call
        result.id_less_results.append((position, answered, result_text_digest(content)))
    return result


def _add_text_results(result: LegacyConversation, position: int, content: str) -> None:
    """A user message right after an assistant turn that holds only AgentOps' ``[Tool Result: ...]`` segments: tool
    results without call id answering that turn (message ``position - 1``), one per segment."""
    texts = tool_result_texts(content)
    if not texts:
        return
    result.id_less_results.clear()  # a later turn's results: only the last turn's are new to this call
    result.id_less_results.extend((position, position - 1, result_text_digest(text)) for text in texts)


def _one_text(content: str) -> str:
    """A message content written as the JSON text of one text part (``[{"type": "text", "text": ...}]``, as AgentOps'
    OpenAI wrapper writes a list content) as that text; any other content as it is."""
    if not content.startswith("["):
        return content
    parts = parse_json_text(content)
    if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict) and parts[0].get("type") == "text":
        text = parts[0].get("text")
        return text if isinstance(text, str) else content
    return content


def _add_replayed(result: LegacyConversation, replayed: list[str], text: str) -> None:
    """The replayed calls consumed, and their results when the text is an observation that holds one per call: the
    whole text for one call; for several, one line each when it has exactly one line per call (smolagents joins the
    observations of a step's calls with new lines, in the order of the replay: both sorted by call id)."""
    result.replay_consumed.extend(replayed)
    if not text.startswith(smol.OBSERVATION_TEXT_PREFIX):
        return
    observed = text[len(smol.OBSERVATION_TEXT_PREFIX):]
    lines = [observed] if len(replayed) == 1 else observed.split("\n", len(replayed))
    if len(lines) == len(replayed):
        result.replayed_results.extend((call_id, result_text_digest(line)) for call_id, line in zip(replayed, lines, strict=True))


def fill_legacy_conversation(view: SpanView, facts: SpanFacts) -> None:
    """A model call's conversation-prefix evidence from its indexed legacy prompts."""
    conversation = read_legacy_conversation(view)
    facts.messages.inputs = conversation.inputs
    facts.messages.system_inputs = conversation.system_inputs
    facts.input_tool_calls.extend(conversation.input_tool_calls)
    facts.id_less_results.extend(conversation.id_less_results)
    facts.consumed_call_ids.extend(conversation.replay_consumed)
    facts.replayed_results.extend(conversation.replayed_results)
    for call_id, text in conversation.results:
        if not add_rejection(facts.rejected_results, call_id, text):
            add_failure(facts.failed_results, call_id, text)
