"""The tool calls a model-call span names in summary attributes, read when its output messages were not recorded.

OpenLIT's client instrumentations write the response's tool calls on the model-call span as
:data:`~semconv.openlit.MODEL_CALL_TOOL_NAMES` and :data:`~semconv.openlit.MODEL_CALL_TOOL_CALL_IDS`, each joined with
``", "`` position by position, whether or not message content is captured. With content capture off they are the
only record of what the model called: each becomes a proposal with its name and call id, its arguments not recorded.
Tool names and call ids hold no ``", "`` (function names are identifiers), so the split is exact; a span whose two
lists differ in length, or whose names are empty, gives nothing.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv.openlit import MODEL_CALL_TOOL_CALL_IDS, MODEL_CALL_TOOL_NAMES, MODEL_CALL_TOOL_SEPARATOR

__all__ = ["summary_tool_calls"]

MAX_SUMMARY_CALLS: Final = 128
"""Most tool calls read from one span's summary."""
_EVIDENCE: Final = f"span attributes {MODEL_CALL_TOOL_NAMES}, {MODEL_CALL_TOOL_CALL_IDS}"
_MAX_TEXT: Final = MAX_SUMMARY_CALLS * (MAX_NAME + len(MODEL_CALL_TOOL_SEPARATOR))


def summary_tool_calls(view: SpanView) -> list[ToolCallFact] | None:
    """The proposals the span's summary attributes name, ``None`` when it has none to read."""
    names_text = view.str_attr(MODEL_CALL_TOOL_NAMES, limit=_MAX_TEXT)
    ids_text = view.str_attr(MODEL_CALL_TOOL_CALL_IDS, limit=_MAX_TEXT)
    if not names_text or not ids_text:
        return None
    names = names_text.split(MODEL_CALL_TOOL_SEPARATOR)
    ids = ids_text.split(MODEL_CALL_TOOL_SEPARATOR)
    if len(names) != len(ids) or len(names) > MAX_SUMMARY_CALLS or not all(name.strip() for name in names):
        return None
    return [
        ToolCallFact(call_id=call_id.strip()[:MAX_NAME] or None, name=name.strip()[:MAX_NAME], arguments=None, evidence=_EVIDENCE)
        for name, call_id in zip(names, ids, strict=True)
    ]
