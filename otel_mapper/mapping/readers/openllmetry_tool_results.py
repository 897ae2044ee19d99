"""The text an OpenLLMetry decorated tool returned: ``traceloop.entity.output`` of a ``@tool`` span.

traceloop-sdk's ``@tool`` decorator writes the function's return value as JSON (``json.dumps``): a tool that returned
text has the JSON string of that text as its output (``"Paris: Sunny, 18\\u00b0C"``; a tool that returned JSON text,
the JSON string holding it). Decoded once, that string is the text the app put in the tool message the next model call
reads, so its digest joins a tool message that names no call id to the run that returned it
(:func:`otel_mapper.mapping.prefix.conversation_prefix_results`, by the tool and arguments of the call it answers:
these spans record no call id). An output that is not one JSON string (a returned dict or list, which the app may have
serialised otherwise) gives no digest. Observed on OpenLLMetry's Writer instrumentation, whose legacy prompts keep a
turn's calls with their ids but drop each tool message's ``tool_call_id`` (``corpus/NOTES-frameworks-dg.md``).
"""

from __future__ import annotations

import orjson

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import result_text_digest
from otel_mapper.mapping.spans import MAX_TEXT, SpanView
from semconv import openllmetry as tl
from semconv.trajectory import NodeKind

__all__ = ["fill_decorated_tool_result"]


def fill_decorated_tool_result(view: SpanView, facts: SpanFacts) -> None:
    """A decorated tool run's result digest from its JSON string output, when no reader gave it one."""
    if facts.kind is not NodeKind.TOOL_EXECUTION or facts.result_digest is not None:
        return
    output = view.str_attr(tl.ENTITY_OUTPUT, limit=MAX_TEXT + 1)
    if output is None or len(output) > MAX_TEXT or not output.startswith('"'):
        return  # absent, too long to be whole, or not a JSON string
    try:
        text = orjson.loads(output)
    except orjson.JSONDecodeError:
        return
    if isinstance(text, str) and text.strip():
        facts.result_digest = result_text_digest(text)
