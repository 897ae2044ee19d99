"""What OpenInference's BeeAI instrumentation writes beyond the common OpenInference shapes (names in
:mod:`semconv.beeai`): spans that record one emitter event rather than a run, a tool run's ``(input, options)`` pair,
the error explanation of a failed run, and the calls of one answer merged into one output call."""

from __future__ import annotations

import json
from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.readers.common import MAX_ERROR_MESSAGE
from otel_mapper.mapping.spans import MAX_TEXT, SpanView, parse_json_text
from semconv import beeai
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = ["beeai_kind", "read_beeai_calls", "read_beeai_error", "read_beeai_tool_input"]

MAX_DOCUMENTS: Final = 2
"""Argument texts are scanned only until a second JSON document is found."""
_DECODER: Final = json.JSONDecoder()


def beeai_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """A span that records one emitter event of a run (its event path, no traced class) is no node of its kind."""
    if beeai.EVENT_PATH in view.attrs and beeai.CLASS_NAME not in view.attrs:
        return NodeKind.OTHER
    return kind


def read_beeai_tool_input(view: SpanView, facts: SpanFacts) -> None:
    """A tool run's ``input.value`` is the run's ``(input, options)`` pair: its ``input`` member is the arguments."""
    parsed = parse_json_text(view.str_attr(oi.INPUT_VALUE, limit=MAX_TEXT + 1) or "")
    if not isinstance(parsed, dict) or not parsed.keys() <= {beeai.RUN_INPUT, beeai.RUN_OPTIONS}:
        return
    arguments = parsed.get(beeai.RUN_INPUT)
    if isinstance(arguments, dict):
        facts.arguments = arguments_text(arguments)
        facts.arguments_json = True
        facts.arguments_visible = facts.arguments is not None


def read_beeai_error(view: SpanView, facts: SpanFacts) -> None:
    """A failed run's text output is its error's explanation (the framework error and its causes): the message."""
    if not facts.failed or view.str_attr(oi.OUTPUT_MIME_TYPE) != oi.MIME_TEXT:
        return
    text = view.str_attr(oi.OUTPUT_VALUE, limit=MAX_ERROR_MESSAGE)
    if text:
        facts.error_message = text


def read_beeai_calls(facts: SpanFacts) -> None:
    """An output call whose argument text holds several JSON documents is the instrumentation's merge of one answer's
    calls (the others' ids and names are lost): the output records no call of its own, so a later input that replays
    the answer attributes its calls (:mod:`otel_mapper.mapping.prefix`)."""
    if facts.proposals and any(_documents(call.arguments) >= MAX_DOCUMENTS for call in facts.proposals):
        facts.proposals = None


def _documents(text: str | None) -> int:
    """How many JSON documents follow one another in ``text`` (up to :data:`MAX_DOCUMENTS`; 0 when it does not
    start with one)."""
    if not text:
        return 0
    count, position, end = 0, 0, len(text)
    while count < MAX_DOCUMENTS:
        while position < end and text[position].isspace():
            position += 1
        if position >= end:
            break
        try:
            _, position = _DECODER.raw_decode(text, position)
        except ValueError:
            break
        count += 1
    return count
