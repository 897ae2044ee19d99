"""Google Gen AI ``generate_content`` calls, as an instrumentation records one whole (its arguments in, the
``GenerateContentResponse`` out, both as the SDK's objects dumped to JSON), read as a model call's messages in the
GenAI parts schema.

A request's ``contents`` are Gemini ``Content`` objects (``{"role": "user" | "model", "parts": [...]}``); its system
prompt is the config's ``system_instruction``, read as a system message ahead of them. Parts: ``text`` a text part,
``function_call`` a tool-call part (``id``, ``name``, ``args``: the call's id, which the Gemini Developer API gives each
call, and its arguments), ``function_response`` a tool-result part of its ``id`` (the response object, ``{"output":
...}`` or ``{"error": ...}``, read as its text where matched against a tool run's result). The ``model`` role is the
assistant's. The response's first candidate's ``content`` is the output message. Parts of other kinds (inline data,
executable code, thoughts' signatures) are left out on both sides, so an answer and the same content replayed in a
later request digest alike. Both spellings of a part's fields are read (``function_call`` as the SDK's objects dump,
``functionCall`` as the REST API writes).
"""

from __future__ import annotations

from typing import Final, cast

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.input_messages import fill_converted_inputs
from otel_mapper.mapping.messages import MAX_MESSAGES, read_output_messages
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.spans import MAX_NAME
from otel_mapper.otlp.anyvalue import Decoded
from semconv import adk
from semconv import google_genai as gg

__all__ = ["fill_gemini_contents", "gemini_content_message"]

MAX_PARTS: Final = 1_000
"""Parts read per content (and per system instruction)."""
ASSISTANT_ROLE: Final = "assistant"


def fill_gemini_contents(facts: SpanFacts, request: Decoded, response: Decoded) -> None:
    """A model call's proposals, consumed results and message digests from a ``generate_content`` call's arguments
    and its response; a side of another shape (a failed call's missing response) is left as it is."""
    candidates = response.get(gg.CANDIDATES) if isinstance(response, dict) else None
    first = candidates[0] if isinstance(candidates, list) and candidates else None
    content = first.get(gg.CANDIDATE_CONTENT) if isinstance(first, dict) else None
    if isinstance(response, dict) and isinstance(candidates, list) and facts.proposals is None:
        outputs = [gemini_content_message(content)] if isinstance(content, dict) else []
        facts.proposals, facts.messages.outputs = read_output_messages(cast(Decoded, outputs))
        response_id = response.get(gg.RESPONSE_ID)
        if isinstance(response_id, str) and facts.response_id is None:
            facts.response_id = response_id[:MAX_NAME]
    contents = request.get(gg.REQUEST_CONTENTS) if isinstance(request, dict) else None
    if not isinstance(contents, list) or facts.input_content_captured:
        return
    config = request.get(gg.REQUEST_CONFIG) if isinstance(request, dict) else None
    system = _system_text(_field(config, gg.SYSTEM_INSTRUCTION) if isinstance(config, dict) else None)
    fill_converted_inputs(facts, system, contents, gemini_content_message, MAX_MESSAGES)


def gemini_content_message(content: dict[str, Decoded]) -> dict[str, Decoded]:
    """A Gemini ``Content`` in the GenAI parts schema (role ``model`` read as ``assistant``)."""
    role = content.get(adk.ROLE)
    parts: list[dict[str, Decoded]] = []
    items = content.get(adk.PARTS)
    for part in items[:MAX_PARTS] if isinstance(items, list) else []:
        if not isinstance(part, dict):
            continue
        call = _field(part, adk.FUNCTION_CALL)
        answer = _field(part, adk.FUNCTION_RESPONSE)
        if isinstance(call, dict):
            parts.append(tool_call_part(_call_id(call), call.get(adk.PART_NAME), call.get(adk.PART_ARGS)))
        elif isinstance(answer, dict):
            parts.append(tool_result_part(_call_id(answer), answer.get(adk.PART_RESPONSE)))
        elif isinstance(text := part.get(adk.TEXT), str):
            parts.append(text_part(text))
    return parts_message(ASSISTANT_ROLE if role == gg.MODEL_ROLE else role, parts)


def _system_text(value: Decoded) -> str | None:
    """A system instruction's text: a string, a ``Content``'s text parts, or a list of strings and text parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = value.get(adk.PARTS)
    if not isinstance(value, list):
        return None
    texts = [item if isinstance(item, str) else item.get(adk.TEXT) if isinstance(item, dict) else None
             for item in value[:MAX_PARTS]]
    found = [text for text in texts if isinstance(text, str)]
    return "".join(found) if found else None


def _call_id(part: dict[str, Decoded]) -> str | None:
    call_id = part.get(adk.PART_ID)
    return call_id if isinstance(call_id, str) and call_id else None


def _field(value: dict[str, Decoded], names: tuple[str, ...]) -> Decoded:
    for name in names:
        if value.get(name) is not None:
            return value[name]
    return None
