"""Agent runs that returned a failure as their answer: the run ended in that failure although its span is OK.

A framework that catches an error ending an agent's run may return it as the run's result instead of raising: Agno
(``Agent.run``) ends the run with status ``error`` and the exception's text as the result's ``content``. An
instrumentation that sets OK on any return and records that content as the run's output (OpenLIT's Agno instrumentor,
``gen_ai.output.messages``) leaves an agent invocation that committed, with the failure's message for an answer. When
the answer an invocation recorded is found in the error message of a model call or tool execution under it (span
parent links), the run ended in that failure: the invocation is failed, with the failure's error type and the answer
as its message. An answer with words of its own around an error's text is not in the error message and changes
nothing; one shorter than :data:`MIN_ANSWER` characters proves nothing; one that a model call under the invocation
gave as its own output is the model's answer (a run that recovered from a tool's error and repeats its text). Parent
links only, at most :data:`~otel_mapper.mapping.entries.MAX_ANCESTORS` hops up from each failure; no timestamp is
read.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry, ancestors
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.readers.common import MAX_ERROR_MESSAGE
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.spans import SpanView, parse_json_text
from semconv import genai

__all__ = ["MAX_ANSWER_JSON", "MIN_ANSWER", "answer_text", "settle_failed_answers"]

MIN_ANSWER: Final = 8
"""Shortest answer taken for a failure's message: a word or two ("Error") is found in too many error texts."""
MAX_ANSWER_MESSAGES: Final = 4
"""Output messages read for the answer; a run that reports more said more than a failure."""
MAX_ANSWER_JSON: Final = 8 * MAX_ERROR_MESSAGE
"""Longest output-messages text parsed: room for an answer as long as a kept error message, every character escaped
(``\\uXXXX``), in a few messages; a longer one is a longer answer than any error message kept."""
_CALL_KINDS: Final = (_MODEL_CALL, _TOOL_EXECUTION)


def settle_failed_answers(entries: list[SpanEntry], by_span_id: dict[str, SpanEntry]) -> None:
    failures = [
        entry
        for entry in entries
        if entry.primary and entry.facts.failed and entry.facts.kind in _CALL_KINDS and entry.facts.error_message
    ]
    if not failures:
        return
    answers: dict[str, str | None] = {}
    ended: dict[str, tuple[SpanEntry, SpanEntry, str]] = {}  # agent span -> (agent, failure, answer)
    for failure in failures:
        message = failure.facts.error_message or ""
        for above in ancestors(failure, by_span_id):
            facts = above.facts
            span_id = above.view.span_id
            if facts.kind is not _AGENT_INVOCATION or facts.failed or not above.primary:
                continue
            if span_id not in answers:
                answers[span_id] = answer_text(above.view)
            answer = answers[span_id]
            if answer is None or answer not in message:
                continue
            earlier = ended.get(span_id)
            if earlier is None or failure.view.span_id < earlier[1].view.span_id:  # one choice, whatever the order
                ended[span_id] = (above, failure, answer)
    if not ended:
        return
    for entry in entries:  # an answer a model call under the run gave is the model's, though it repeats an error
        if not entry.primary or entry.facts.kind is not _MODEL_CALL or entry.facts.failed:
            continue
        said: list[str | None] = []
        for above in ancestors(entry, by_span_id):
            found = ended.get(above.view.span_id)
            if found is None:
                continue
            if not said:
                said.append(answer_text(entry.view))
            if said[0] == found[2]:
                del ended[above.view.span_id]
    for span_id in sorted(ended):
        agent, failure, answer = ended[span_id]
        facts = agent.facts = copy_facts(agent.facts)  # the read facts may be kept for the run: never changed
        facts.failed = True
        facts.error_type = facts.error_type or failure.facts.error_type
        facts.error_message = facts.error_message or answer


def answer_text(view: SpanView) -> str | None:
    """The text of the span's ``gen_ai.output.messages`` (the text parts of its messages, joined), stripped; ``None``
    when absent, not text, shorter than :data:`MIN_ANSWER` or longer than any error message kept."""
    value = view.attrs.get(genai.OUTPUT_MESSAGES)
    if value is None or value.WhichOneof("value") != "string_value":
        return None
    raw = value.string_value
    if len(raw) > MAX_ANSWER_JSON:
        return None
    messages = parse_json_text(raw)
    if not isinstance(messages, list) or not 0 < len(messages) <= MAX_ANSWER_MESSAGES:
        return None
    texts: list[str] = []
    for message in messages:
        parts = message.get(genai.MESSAGE_PARTS) if isinstance(message, dict) else None
        if not isinstance(parts, list):
            return None
        for part in parts:
            if not isinstance(part, dict) or part.get(genai.PART_TYPE) != genai.PART_TEXT:
                return None  # a tool call, a reasoning part ...: the run said more than a failure
            content = part.get(genai.PART_CONTENT)
            if not isinstance(content, str):
                return None
            texts.append(content)
    text = "\n".join(texts).strip()
    return text if MIN_ANSWER <= len(text) <= MAX_ERROR_MESSAGE else None
