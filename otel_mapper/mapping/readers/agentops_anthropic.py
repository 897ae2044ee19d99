"""AgentOps' Anthropic client spans (``anthropic.messages.create``, ``agentops`` 0.4.21,
``agentops/instrumentation/providers/anthropic/``), read where they differ from the indexed legacy messages
(:mod:`otel_mapper.mapping.readers.legacy_messages`):

- the tools a request offered are :data:`semconv.agentops.ANTHROPIC_REQUEST_FUNCTIONS`, a JSON list of names; its
  indexed ``gen_ai.request.tools.<i>.*`` are written over by the answer's calls and are not read;
- a prompt message that holds only tool results is written ``[Tool Result: <content>] [Tool Result: <content>]``, with
  no call id (:func:`tool_result_texts`), right after the assistant turn that made the calls, written as an empty
  message: those are tool results without call id that answer that turn, one per segment, in the order of the blocks.

Observed in ``corpus/traces/agentops-anthropic`` (``corpus/NOTES-frameworks-da.md``).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv import agentops

__all__ = ["is_agentops_span", "offered_function_names", "tool_result_texts"]

MAX_RESULTS: Final = 256
"""Tool-result segments read from one prompt message; a message with more is not read."""
MAX_OFFERED: Final = 1_000
"""Offered tool names read from one request."""
_SEGMENT_BREAK: Final = (
    agentops.ANTHROPIC_TOOL_RESULT_CLOSE + agentops.ANTHROPIC_TOOL_RESULT_SEPARATOR + agentops.ANTHROPIC_TOOL_RESULT_OPEN
)


def is_agentops_span(view: SpanView) -> bool:
    """Whether AgentOps' instrumentation wrote the span (:data:`semconv.agentops.INSTRUMENTATION_NAME`)."""
    return view.str_attr(agentops.INSTRUMENTATION_NAME) == agentops.INSTRUMENTATION_AGENTOPS


def tool_result_texts(content: str) -> list[str] | None:
    """The results of a prompt message made only of ``[Tool Result: ...]`` segments, in order; ``None`` for any
    other message (text beside the results, or more segments than are read)."""
    text = content.strip()
    opening, closing = agentops.ANTHROPIC_TOOL_RESULT_OPEN, agentops.ANTHROPIC_TOOL_RESULT_CLOSE
    if not text.startswith(opening) or not text.endswith(closing) or len(text) < len(opening) + len(closing):
        return None
    segments = text[len(opening):-len(closing)].split(_SEGMENT_BREAK, MAX_RESULTS)
    if len(segments) > MAX_RESULTS:
        return None
    return segments


def offered_function_names(view: SpanView) -> tuple[str, ...] | None:
    """The names in :data:`semconv.agentops.ANTHROPIC_REQUEST_FUNCTIONS` when it is a JSON list of strings; ``None``
    when it is absent or anything else (what was offered is then unknown, not nothing)."""
    if view.str_attr(agentops.ANTHROPIC_REQUEST_FUNCTIONS) is None:
        return None
    names = view.json_attr(agentops.ANTHROPIC_REQUEST_FUNCTIONS)
    if not isinstance(names, list) or not names:
        return None
    texts = [name for name in names[:MAX_OFFERED] if isinstance(name, str)]
    if len(texts) != min(len(names), MAX_OFFERED):
        return None
    kept = {text.strip()[:MAX_NAME] for text in texts if text.strip()}
    return tuple(sorted(kept)) if kept else None
