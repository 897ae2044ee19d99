"""The text of tool results in model input, as it is matched against a tool run's recorded result: a result's own
text, the text items of a list of content parts, a Gemini function response's ``output`` / ``error``, and the results
no call id names (a tool message's, or each of a results-only user message's parts).
"""

from __future__ import annotations

import ast
from typing import cast

from otel_mapper.mapping.gemini_event_parts import function_response_texts
from otel_mapper.mapping.spans import MAX_TEXT
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai

__all__ = ["function_response_text", "id_less_result_text", "python_literal", "result_texts", "results_only"]


def result_texts(result: Decoded) -> list[str]:
    """A tool result's text: the string itself, or the text items of a list of content parts."""
    if isinstance(result, str):
        return [result]
    if isinstance(result, list):
        texts = (item.get("text") for item in result[:8] if isinstance(item, dict))
        return [text for text in texts if isinstance(text, str)]
    return []


def python_literal(text: str) -> Decoded:
    """A Python literal's value (``{'city': 'Paris'}``, as LangChain's ``str(tool_input)`` writes it), else
    ``None``. ``ast.literal_eval`` builds literals only and never runs code; the text is size-bounded."""
    if len(text) > MAX_TEXT:
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return cast(Decoded, value) if isinstance(value, (dict, list, str, int, float, bool)) else None


def id_less_result_text(parts: list[dict[str, Decoded]]) -> str | None:
    """The text of a tool message none of whose parts names a call id, else ``None``."""
    texts: list[str] = []
    for part in parts:
        part_type = part.get(genai.PART_TYPE)
        if part_type == genai.PART_TOOL_CALL_RESPONSE:
            if part.get("id"):
                return None
            response = part.get("response", part.get("result"))
            texts.extend(result_texts(response) or function_response_texts(response))  # a Gemini {"output": ...}
        elif part_type == genai.PART_TEXT:
            content = part.get("content")
            if isinstance(content, str):
                texts.append(content)
    text = "".join(texts)
    return text if text.strip() else None


def function_response_text(response: Decoded) -> str | None:
    """The text of one tool result named by no call id: a Gemini function response's ``output`` (or ``error``), also
    when the response is written as the ``str`` of its object (a Python literal, read as one and never run), else the
    result's own text."""
    if isinstance(response, str):
        parsed = python_literal(response) if response.lstrip().startswith("{") else None
        texts = function_response_texts(parsed) or [response]
    else:
        texts = result_texts(response) or function_response_texts(response)
    text = "".join(texts)
    return text if text.strip() else None


def results_only(from_user: bool, parts: list[dict[str, Decoded]]) -> bool:
    """A user message that holds tool results and nothing else, none named by a call id: the Gemini API sends a
    turn's function responses as one ``user`` content, and an instrumentation that drops their ids (OpenLIT's Google
    AI Studio one) writes it so. Such a message answers the assistant message before it, as tool messages do."""
    return (from_user and bool(parts)
            and all(part.get(genai.PART_TYPE) == genai.PART_TOOL_CALL_RESPONSE and not part.get("id") for part in parts))
