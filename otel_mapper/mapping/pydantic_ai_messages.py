"""Pydantic AI's own message objects, as an instrumentation records a model request whole (the ``ModelRequest`` /
``ModelResponse`` list sent, the ``ModelResponse`` returned), read as a model call's messages in the GenAI parts schema.

MLflow's Pydantic AI autolog writes them so (``mlflow.message.format`` ``pydantic_ai``): each message a dict with its
``kind`` (``request`` or ``response``) and ``parts``, each part naming itself in ``part_kind``. A request's parts:
``system-prompt`` a system message, ``user-prompt`` a user message (text content only), ``tool-return`` the result
of its ``tool_call_id`` (a string, else its JSON text), ``retry-prompt`` the result Pydantic AI hands the model for a
call that failed (a tool's ``ModelRetry``, invalid arguments, an unknown tool): its content, then
:data:`~semconv.pydantic_ai.RETRY_PROMPT_SUFFIX`, as ``RetryPromptPart.model_response`` renders it. A response is one
assistant message: ``text`` parts text, ``tool-call`` parts tool calls with id and arguments (JSON text or object).
Parts of another kind (thinking, files) are left out on both sides, so a response and the same message replayed in a
later request digest alike. Names in :mod:`semconv.pydantic_ai`.
"""

from __future__ import annotations

import json
from typing import Final, cast

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.input_messages import fill_input_messages
from otel_mapper.mapping.messages import MAX_MESSAGES, read_output_messages
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.spans import MAX_NAME
from otel_mapper.otlp.anyvalue import Decoded
from semconv import pydantic_ai as pa

__all__ = ["fill_pydantic_ai_messages", "pydantic_ai_message"]

MAX_PARTS: Final = 1_000
"""Parts read per message."""
MAX_RESULT_TEXT: Final = 16_384
"""Characters of a non-text result rendered as JSON."""
_ROLES: Final = {pa.PART_SYSTEM_PROMPT: "system", pa.PART_USER_PROMPT: "user"}


def fill_pydantic_ai_messages(facts: SpanFacts, request: Decoded, response: Decoded) -> None:
    """A model call's proposals, consumed results and message digests from a model request's ``messages`` (in
    ``request``) and the ``ModelResponse`` returned; a side of another shape (a failed request's missing response) is
    left as it is."""
    if isinstance(response, dict) and response.get(pa.MESSAGE_KIND) == pa.MESSAGE_KIND_RESPONSE \
            and facts.proposals is None:
        facts.proposals, facts.messages.outputs = read_output_messages(
            cast(Decoded, pydantic_ai_message(response)))
        response_id = response.get(pa.RESPONSE_ID)
        if isinstance(response_id, str) and facts.response_id is None:
            facts.response_id = response_id[:MAX_NAME]
    messages = request.get(pa.REQUEST_MESSAGES) if isinstance(request, dict) else None
    if not isinstance(messages, list) or facts.input_content_captured:
        return
    converted: list[dict[str, Decoded]] = []
    for message in messages[:MAX_MESSAGES]:
        if isinstance(message, dict):
            converted.extend(pydantic_ai_message(message))
        if len(converted) >= MAX_MESSAGES:
            break
    fill_input_messages(facts, cast(Decoded, converted[:MAX_MESSAGES]))


def pydantic_ai_message(message: dict[str, Decoded]) -> list[dict[str, Decoded]]:
    """A ``ModelRequest`` or ``ModelResponse`` as GenAI parts messages: a response one assistant message; a request
    one message per run of parts of one role (system prompt, user prompt, tool results), in order."""
    parts = message.get(pa.MESSAGE_PARTS)
    if not isinstance(parts, list):
        return []
    if message.get(pa.MESSAGE_KIND) == pa.MESSAGE_KIND_RESPONSE:
        out: list[dict[str, Decoded]] = []
        for part in parts[:MAX_PARTS]:
            if not isinstance(part, dict):
                continue
            kind = part.get(pa.PART_KIND)
            if kind == pa.PART_TEXT and isinstance(text := part.get(pa.PART_CONTENT), str):
                out.append(text_part(text))
            elif kind == pa.PART_TOOL_CALL:
                call_id = part.get(pa.PART_TOOL_CALL_ID)
                out.append(tool_call_part(call_id if isinstance(call_id, str) else None, part.get(pa.PART_TOOL_NAME),
                                          part.get(pa.PART_ARGS)))
        return [parts_message("assistant", out)]
    messages: list[dict[str, Decoded]] = []
    role: str | None = None
    current: list[dict[str, Decoded]] = []
    for part in parts[:MAX_PARTS]:
        if not isinstance(part, dict):
            continue
        read = _request_part(part)
        if read is None:
            continue
        part_role, converted = read
        if part_role != role and current:
            messages.append(parts_message(role, current))
            current = []
        role = part_role
        current.append(converted)
    if current:
        messages.append(parts_message(role, current))
    return messages


def _request_part(part: dict[str, Decoded]) -> tuple[str, dict[str, Decoded]] | None:
    """(role, part) of one part of a ``ModelRequest``; ``None`` for a part of another kind."""
    kind = part.get(pa.PART_KIND)
    content = part.get(pa.PART_CONTENT)
    if kind in _ROLES:
        return (_ROLES[str(kind)], text_part(content)) if isinstance(content, str) else None
    call_id = part.get(pa.PART_TOOL_CALL_ID)
    call = call_id if isinstance(call_id, str) else None
    if kind == pa.PART_TOOL_RETURN:
        return "tool", tool_result_part(call, content if isinstance(content, str) else _json(content))
    if kind == pa.PART_RETRY_PROMPT:
        message = content if isinstance(content, str) else _json(content)
        return "tool", tool_result_part(call, f"{message}\n\n{pa.RETRY_PROMPT_SUFFIX}")
    return None


def _json(value: Decoded) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)[:MAX_RESULT_TEXT]
