"""Missing call ids of an OpenInference LLM span's flattened output tool calls, from the Google Gen AI response that
the span records in ``output.value``.

``openinference-instrumentation-google-genai`` (1.4.14) flattens each candidate of a ``GenerateContentResponse`` as
output message ``<candidate index>`` and the candidate's ``function_call`` parts, in part order, as that message's tool
calls ``0..n-1``, with their name and arguments but not their ``id`` (which the Gemini Developer API gives each call,
and which the app returns with its ``function_response``); it records the whole response (``model_dump``) as
``output.value``, ids included. So a flattened call without an id takes the id of the ``function_call`` at the same
position among the function-call parts of the candidate with the message's index, when the two name the same tool; an
id already flattened is kept, and a value of another shape gives nothing.
"""

from __future__ import annotations

from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.langchain_io import MAX_RUN_IO
from otel_mapper.mapping.readers.openinference_messages import MAX_INDEX, FlatMessage
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import adk
from semconv import google_genai as gg
from semconv import openinference as oi

__all__ = ["fill_gemini_call_ids"]


def fill_gemini_call_ids(view: SpanView, outputs: dict[int, FlatMessage] | None) -> None:
    """Fill the missing call ids of ``outputs`` from the ``GenerateContentResponse`` in the span's ``output.value``."""
    if outputs is None or not any(message.missing_call_ids() for message in outputs.values()):
        return
    if view.str_attr(oi.OUTPUT_MIME_TYPE) != oi.MIME_JSON:
        return
    text = view.str_attr(oi.OUTPUT_VALUE, limit=MAX_RUN_IO + 1)
    if text is None or len(text) > MAX_RUN_IO or gg.CANDIDATES not in text:
        return
    response = parse_json_text(text)
    candidates = response.get(gg.CANDIDATES) if isinstance(response, dict) else None
    if not isinstance(candidates, list):
        return
    by_index = _calls_by_candidate(candidates)
    for position, message in outputs.items():
        message.fill_call_ids(by_index.get(position, []))


def _calls_by_candidate(candidates: list[Decoded]) -> dict[int, list[tuple[str | None, str | None]]]:
    """Each candidate's function calls as (id, name), in part order, by the candidate's index (else its position)."""
    found: dict[int, list[tuple[str | None, str | None]]] = {}
    for position, candidate in enumerate(candidates[:MAX_INDEX]):
        if not isinstance(candidate, dict):
            continue
        index = candidate.get(gg.CANDIDATE_INDEX)
        index = index if isinstance(index, int) and not isinstance(index, bool) else position
        content = candidate.get(adk.CONTENT)
        parts = content.get(adk.PARTS) if isinstance(content, dict) else None
        calls: list[tuple[str | None, str | None]] = []
        for part in parts[:MAX_INDEX] if isinstance(parts, list) else []:
            call = _function_call(part)
            if call is not None:
                calls.append((_text(call.get(adk.PART_ID)), _text(call.get(adk.PART_NAME))))
        found.setdefault(index, calls)
    return found


def _function_call(part: Decoded) -> dict[str, Decoded] | None:
    if not isinstance(part, dict):
        return None
    for key in adk.FUNCTION_CALL:
        call = part.get(key)
        if isinstance(call, dict):
            return call
    return None


def _text(value: Decoded) -> str | None:
    return clean_name(value) if isinstance(value, str) else None
