"""GenAI message content (``gen_ai.input.messages`` / ``gen_ai.output.messages`` parts): tool calls, tool
results and per-message digests. Shared by every reader whose convention uses the OTel parts schema.
"""

from __future__ import annotations

from collections.abc import Iterable

from otel_mapper.anyvalue import Decoded
from otel_mapper.canonical import digest, dumps_canonical
from otel_mapper.facts import ToolCallFact
from otel_mapper.spans import MAX_NAME, MAX_TEXT, parse_json_text
from semconv import genai

__all__ = ["arguments_text", "message_digest", "read_input_messages", "read_output_messages"]

MAX_MESSAGES = 10_000
MAX_PARTS = 1_000


def arguments_text(arguments: Decoded) -> str | None:
    """Tool-call arguments as bounded text: objects as canonical JSON, strings as they are."""
    if arguments is None:
        return None
    if isinstance(arguments, str):
        parsed = parse_json_text(arguments)
        text = dumps_canonical(parsed) if isinstance(parsed, (dict, list)) else arguments
    else:
        try:
            text = dumps_canonical(arguments)
        except TypeError:
            return None
    return text[:MAX_TEXT]


def _normal_part(part: dict[str, Decoded]) -> dict[str, Decoded]:
    part_type = part.get(genai.PART_TYPE)
    if part_type == genai.PART_TOOL_CALL:
        args = part.get("arguments")
        if isinstance(args, str):
            args = parse_json_text(args)
        return {"type": part_type, "id": part.get("id"), "name": part.get("name"), "arguments": args}
    if part_type == genai.PART_TOOL_CALL_RESPONSE:
        response = part.get("response", part.get("result"))
        return {"type": part_type, "id": part.get("id"), "response": response}
    return {key: value for key, value in part.items()}


def message_digest(message: dict[str, Decoded]) -> str:
    """Digest of a message's role and parts (finish_reason and names left out): the same message in a later
    call's input digests the same as in the output that produced it."""
    parts = message.get("parts")
    normal_parts = [_normal_part(part) for part in parts[:MAX_PARTS] if isinstance(part, dict)] if isinstance(parts, list) else []
    return digest({"role": message.get("role"), "parts": normal_parts})


def _messages(value: Decoded) -> list[dict[str, Decoded]]:
    if isinstance(value, dict):  # a single message
        value = [value]
    if not isinstance(value, list):
        return []
    return [message for message in value[:MAX_MESSAGES] if isinstance(message, dict)]


def _parts(message: dict[str, Decoded]) -> Iterable[dict[str, Decoded]]:
    parts = message.get("parts")
    if isinstance(parts, list):
        return [part for part in parts[:MAX_PARTS] if isinstance(part, dict)]
    return []


def read_output_messages(value: Decoded) -> tuple[list[ToolCallFact], list[str]]:
    """Tool calls proposed in the output, and the digest of each output message."""
    proposals: list[ToolCallFact] = []
    digests: list[str] = []
    for message in _messages(value):
        digests.append(message_digest(message))
        for part in _parts(message):
            if part.get(genai.PART_TYPE) == genai.PART_TOOL_CALL:
                call_id = part.get("id")
                name = part.get("name")
                proposals.append(
                    ToolCallFact(
                        call_id=str(call_id)[:MAX_NAME] if call_id else None,
                        name=str(name)[:MAX_NAME] if name else "",
                        arguments=arguments_text(part.get("arguments")),
                    )
                )
    return proposals, digests


def read_input_messages(value: Decoded) -> tuple[list[str], list[str]]:
    """Ids of tool results in the input, and the digest of each input message (in input order)."""
    consumed: list[str] = []
    digests: list[str] = []
    for message in _messages(value):
        digests.append(message_digest(message))
        for part in _parts(message):
            if part.get(genai.PART_TYPE) == genai.PART_TOOL_CALL_RESPONSE:
                call_id = part.get("id")
                if call_id:
                    consumed.append(str(call_id)[:MAX_NAME])
    return consumed, digests
