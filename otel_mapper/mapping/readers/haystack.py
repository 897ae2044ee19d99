"""Haystack agents under OpenInference (names and shapes in :mod:`semconv.haystack`): the agent run, the call ids of
the model's tool calls, and the results its next model calls received, read from the reprs in ``output.value`` and
``input.value``. Tools run with no span of their own, so these results are how their runs show
(:mod:`otel_mapper.mapping.spanless_calls`). Reprs are searched in a bounded head, never evaluated as code (string
literals through ``ast.literal_eval``); what does not parse is left unread.
"""

from __future__ import annotations

import re
from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import add_failure, add_rejection, python_literal
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv import haystack
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = ["fill_haystack_call_ids", "haystack_kind", "read_haystack_results", "tool_results"]

MAX_REPR_TEXT: Final = 256 * 1024
"""Head of ``input.value`` / ``output.value`` searched."""
_CALL_ID: Final = re.compile(haystack.TOOL_CALL_ID_REPR)
_RESULT_ERROR: Final = re.compile(haystack.TOOL_RESULT_ERROR_REPR)


def haystack_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """The agent's run is a CHAIN span: an agent invocation."""
    return NodeKind.AGENT_INVOCATION if view.name in haystack.AGENT_RUN_SPANS else kind


def fill_haystack_call_ids(view: SpanView, outputs: dict[int, FlatMessage]) -> None:
    """Give the output messages' tool calls, recorded without ids, the ids of the ``ToolCall`` reprs of the replies
    (in order, when there are as many and their names agree); the proposals and digests then carry them."""
    calls = [outputs[position].calls[index] for position in sorted(outputs) for index in sorted(outputs[position].calls)]
    if not calls or any(call.get(oi.TOOL_CALL_ID_SUFFIX) for call in calls):
        return
    replies = _strings(view, oi.OUTPUT_VALUE, haystack.REPLIES)
    found = [item for text in replies for item in _calls(text)]
    if len(found) != len(calls) or any(name != call.get(oi.TOOL_CALL_NAME_SUFFIX) for (name, _), call in zip(found, calls, strict=True)):
        return
    for (_, call_id), call in zip(found, calls, strict=True):
        call[oi.TOOL_CALL_ID_SUFFIX] = call_id


def read_haystack_results(view: SpanView, facts: SpanFacts) -> None:
    """The tool results in the input: consumed ids, and for the results new to this call, the runtime's rejections
    and the failed ones."""
    messages = _strings(view, oi.INPUT_VALUE, haystack.MESSAGES)
    last_call = max((position for position, text in enumerate(messages) if haystack.TOOL_CALL_REPR in text
                     and haystack.TOOL_RESULT_REPR not in text), default=-1)
    for position, text in enumerate(messages):
        for call_id, result, error in tool_results(text):
            facts.consumed_call_ids.append(call_id)
            if position > last_call and error and not add_rejection(facts.rejected_results, call_id, result):
                add_failure(facts.failed_results, call_id, result or "error")


def _strings(view: SpanView, key: str, field: str) -> list[str]:
    text = view.str_attr(key, limit=MAX_REPR_TEXT)
    if not text or len(text) >= MAX_REPR_TEXT:
        return []
    value = view.json_attr(key)
    items = value.get(field) if isinstance(value, dict) else None
    return [item for item in items if isinstance(item, str)] if isinstance(items, list) else []


def _calls(text: str) -> list[tuple[str, str]]:
    """(tool name, call id) of each ``ToolCall`` repr in a reply, in order."""
    calls: list[tuple[str, str]] = []
    start = text.find(haystack.TOOL_CALL_REPR)
    while start >= 0:
        name_start = start + len(haystack.TOOL_CALL_REPR)
        name_end = text.find("'", name_start)
        found = _CALL_ID.search(text, name_end) if name_end > 0 else None
        if found is None:
            break
        calls.append((text[name_start:name_end][:MAX_NAME], found.group(1)[:MAX_NAME]))
        start = text.find(haystack.TOOL_CALL_REPR, found.end())
    return calls


def tool_results(text: str) -> list[tuple[str, str | None, bool]]:
    """(call id, result text, error) of each ``ToolCallResult`` repr in a message."""
    results: list[tuple[str, str | None, bool]] = []
    start = text.find(haystack.TOOL_RESULT_REPR)
    while start >= 0:
        literal_start = start + len(haystack.TOOL_RESULT_REPR)
        literal_end = _string_end(text, literal_start)
        found = _CALL_ID.search(text, literal_end) if literal_end > 0 else None
        error = _RESULT_ERROR.search(text, found.end()) if found is not None else None
        if found is None or error is None:
            break
        value = python_literal(text[literal_start : literal_end + 1])
        results.append((found.group(1)[:MAX_NAME], value if isinstance(value, str) else None, error.group(1) == "True"))
        start = text.find(haystack.TOOL_RESULT_REPR, error.end())
    return results


def _string_end(text: str, start: int) -> int:
    """Index of the quote closing the Python string literal that opens at ``start``; -1 when there is none."""
    if start >= len(text) or text[start] not in "'\"":
        return -1
    quote = text[start]
    position = start + 1
    while position < len(text):
        character = text[position]
        if character == "\\":
            position += 2
            continue
        if character == quote:
            return position
        position += 1
    return -1
