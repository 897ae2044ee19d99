"""A model call's request or response in a provider's or framework's own shape (:mod:`semconv.wire`), recognised by
its fields alone and turned into messages of the GenAI parts schema.

:func:`response_messages` reads a response object (or a list of assistant messages) as the output messages, with the
response id where it has one; :func:`request_messages` reads a request object (or a message list holding a message of
another role than the assistant's) as the input messages. Each says which shape it read, for the evidence named on the
edges it gives. A value of no known shape reads as ``None``: nothing is guessed from field names that several shapes
share (a bare message list whose messages are all the assistant's is an output, one with a user, system or tool
message an input).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from otel_mapper.mapping.anthropic_messages import anthropic_message
from otel_mapper.mapping.converse_messages import converse_message
from otel_mapper.mapping.gemini_contents import gemini_content_message
from otel_mapper.mapping.messages import MAX_MESSAGES
from otel_mapper.mapping.parts_messages import (
    chat_completions_calls,
    chat_completions_message,
    parts_message,
    text_part,
    tool_call_part,
)
from otel_mapper.mapping.pydantic_ai_messages import pydantic_ai_message
from otel_mapper.mapping.spans import MAX_NAME
from otel_mapper.otlp.anyvalue import Decoded
from semconv import anthropic as an
from semconv import bedrock as br
from semconv import genai, wire
from semconv import google_genai as gg
from semconv import pydantic_ai as pa
from semconv import strands as blocks

__all__ = ["WireMessages", "chat_message_list", "request_messages", "response_messages", "wire_message"]

MAX_BLOCKS: Final = 1_000
"""Content blocks (or items) looked at per message."""

_Message = dict[str, Decoded]


@dataclass(frozen=True, slots=True)
class WireMessages:
    """Messages read from one value: the shape's name, the messages in the GenAI parts schema, the response id."""

    shape: str
    messages: list[_Message]
    response_id: str | None = None


def response_messages(value: Decoded, *, bare: bool = True) -> WireMessages | None:
    """The output messages of a response object of a known shape; with ``bare``, also of an assistant message or a
    list of assistant messages (no response object: read only where a value is the whole output, not inside
    another object, where an assistant message is as likely an input's)."""
    if isinstance(value, list):
        if not bare:
            return None
        messages = _message_list(value)
        if messages and all(message.get(wire.ROLE) == "assistant" for message in messages):
            return WireMessages("assistant messages", messages)
        return None
    if not isinstance(value, dict):
        return None
    response_id = _text(value.get("id")) or _text(value.get(gg.RESPONSE_ID))
    choices = value.get(wire.RESPONSE_CHOICES)
    if isinstance(choices, list):
        found = [wire_message(inner) for choice in choices[:MAX_BLOCKS]
                 if isinstance(choice, dict) and isinstance(inner := choice.get(wire.CHOICE_MESSAGE), dict)]
        messages = [message for message in found if message is not None and message.get(wire.ROLE) == "assistant"]
        return WireMessages("Chat Completions response", messages, response_id) if messages else None
    if value.get(an.MESSAGE_TYPE) == an.MESSAGE_TYPE_VALUE and isinstance(value.get(an.CONTENT), list):
        return WireMessages("Anthropic Messages response", [anthropic_message(value)], response_id)
    output = value.get(br.RESPONSE_OUTPUT)
    if isinstance(output, dict) and isinstance(converse := output.get(br.OUTPUT_MESSAGE), dict):
        return WireMessages("Bedrock Converse response", [converse_message(converse)])
    candidates = value.get(gg.CANDIDATES)
    if isinstance(candidates, list):
        first = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
        content = first.get(gg.CANDIDATE_CONTENT)
        messages = [gemini_content_message(content)] if isinstance(content, dict) else []
        return WireMessages("Gemini response", messages, response_id)
    if value.get(pa.MESSAGE_KIND) == pa.MESSAGE_KIND_RESPONSE and isinstance(value.get(pa.MESSAGE_PARTS), list):
        return WireMessages("Pydantic AI model response", pydantic_ai_message(value), response_id)
    if value.get(wire.RESPONSES_OBJECT) == wire.RESPONSES_OBJECT_VALUE and isinstance(output, list):
        return WireMessages("OpenAI Responses response", [_response_items_message(output)], response_id)
    generations = value.get(wire.GENERATIONS)
    if isinstance(generations, list):
        messages = _generation_messages(generations)
        return WireMessages("LangChain chat result", messages) if messages else None
    inner = value.get(wire.CHOICE_MESSAGE)
    if isinstance(inner, dict) and _role(inner) == "assistant" and (message := wire_message(inner)) is not None:
        return WireMessages("chat response message", [message], response_id)
    if bare and _role(value) == "assistant" and (message := wire_message(value)) is not None:
        return WireMessages("assistant message", [message], response_id)
    return None


def request_messages(value: Decoded, *, bare: bool = True) -> WireMessages | None:
    """The input messages of a request object of a known shape; with ``bare``, also of a message list that holds a
    message of another role than the assistant's."""
    if isinstance(value, list):
        if not bare:
            return None
        messages = _message_list(value)
        if messages and any(message.get(wire.ROLE) != "assistant" for message in messages):
            return WireMessages("message list", messages)
        return None
    if not isinstance(value, dict):
        return None
    listed = value.get(wire.REQUEST_MESSAGES)
    if isinstance(listed, list):
        messages = _message_list(listed)
        system = _system_text(value.get(an.REQUEST_SYSTEM))
        if system is not None and messages and messages[0].get(wire.ROLE) != "system":
            messages.insert(0, parts_message("system", [text_part(system)]))
        return WireMessages("request messages", messages[:MAX_MESSAGES]) if messages else None
    contents = value.get(gg.REQUEST_CONTENTS)
    if isinstance(contents, list):
        messages = [gemini_content_message(item) for item in contents[:MAX_MESSAGES] if isinstance(item, dict)]
        return WireMessages("Gemini request contents", messages) if messages else None
    items = value.get(wire.RESPONSES_REQUEST_INPUT)
    if isinstance(items, list) and any(isinstance(item, dict) and wire.ITEM_TYPE in item for item in items[:MAX_BLOCKS]):
        messages = _responses_input_messages(items)
        return WireMessages("OpenAI Responses request input", messages) if messages else None
    return None


def chat_message_list(value: Decoded) -> list[_Message]:
    """A list of Chat Completions messages in the GenAI parts schema (items that are no message left out), as
    :func:`~otel_mapper.mapping.parts_messages.chat_completions_messages` reads them; an item in another shape
    (:func:`_foreign`: Anthropic or Converse blocks, Gemini parts, a LangChain or LlamaIndex message, Pydantic AI's
    messages) read by its shape."""
    if not isinstance(value, list):
        return []
    messages: list[_Message] = []
    for item in value[:MAX_MESSAGES]:
        if not isinstance(item, dict):
            continue
        role = item.get(wire.ROLE)
        if isinstance(role, str) and not _foreign(item):
            messages.append(chat_completions_message(role, item))
        elif item.get(pa.MESSAGE_KIND) in (pa.MESSAGE_KIND_REQUEST, pa.MESSAGE_KIND_RESPONSE):
            messages.extend(pydantic_ai_message(item))
        elif (message := wire_message(item)) is not None:
            messages.append(message)
    return messages[:MAX_MESSAGES]


def _foreign(item: _Message) -> bool:
    """Whether a message with a role holds what a Chat Completions message never does: content blocks that call a
    tool or return its result in another API's shape, Gemini or GenAI parts, text only in LlamaIndex's blocks, calls
    or a call id only in ``additional_kwargs``, LangChain's own calls."""
    content = item.get(wire.CONTENT)
    if isinstance(content, list):
        for block in content[:MAX_BLOCKS]:
            if isinstance(block, dict) and (
                block.get(an.MESSAGE_TYPE) in (an.BLOCK_TOOL_USE, an.BLOCK_TOOL_RESULT)
                or blocks.BLOCK_TOOL_USE in block or blocks.BLOCK_TOOL_RESULT in block
            ):
                return True
    if content is None and (isinstance(item.get(wire.PARTS), list) or isinstance(item.get(wire.LLAMA_INDEX_BLOCKS), list)):
        return True
    extra = item.get(wire.ADDITIONAL_KWARGS)
    if isinstance(extra, dict) and ((wire.TOOL_CALLS in extra and not item.get(wire.TOOL_CALLS))
                                    or (wire.TOOL_CALL_ID in extra and not item.get(wire.TOOL_CALL_ID))):
        return True
    calls = item.get(wire.TOOL_CALLS)
    first = calls[0] if isinstance(calls, list) and calls else None
    return isinstance(first, dict) and "function" not in first and "args" in first


def wire_message(item: _Message) -> _Message | None:
    """One message of a known shape in the GenAI parts schema; ``None`` when ``item`` names no role."""
    if wire.LANGCHAIN_MARKER in item and isinstance(kwargs := item.get(wire.LANGCHAIN_KWARGS), dict):
        class_path = item.get(wire.LANGCHAIN_ID)
        class_name = class_path[-1] if isinstance(class_path, list) and class_path else None
        role = wire.LANGCHAIN_CLASS_ROLES.get(class_name) if isinstance(class_name, str) else None
        item = {**kwargs, wire.ROLE: role}
    role = _role(item)
    if role is None:
        return None
    content = item.get(wire.CONTENT)
    block_list = content[:MAX_BLOCKS] if isinstance(content, list) else []
    block_dicts = [block for block in block_list if isinstance(block, dict)]
    if any(block.get(an.MESSAGE_TYPE) in (an.BLOCK_TOOL_USE, an.BLOCK_TOOL_RESULT) for block in block_dicts):
        return anthropic_message({**item, an.ROLE: role})
    if any(blocks.BLOCK_TOOL_USE in block or blocks.BLOCK_TOOL_RESULT in block for block in block_dicts):
        return converse_message({**item, br.ROLE: role})
    parts = item.get(wire.PARTS)
    if isinstance(parts, list) and wire.CONTENT not in item:
        if any(isinstance(part, dict) and genai.PART_TYPE in part for part in parts[:MAX_BLOCKS]):
            return {**item, wire.ROLE: role}  # already in the GenAI parts schema
        return gemini_content_message({**item, wire.ROLE: role})
    extra = item.get(wire.ADDITIONAL_KWARGS)
    extra = extra if isinstance(extra, dict) else {}
    calls = chat_completions_calls(item.get(wire.TOOL_CALLS) or extra.get(wire.TOOL_CALLS),
                                   item.get(wire.INVALID_TOOL_CALLS))
    call_id = item.get(wire.TOOL_CALL_ID) or extra.get(wire.TOOL_CALL_ID)
    body: _Message = {wire.CONTENT: _content_text(content, item.get(wire.LLAMA_INDEX_BLOCKS)),
                      wire.TOOL_CALLS: list(calls), wire.TOOL_CALL_ID: call_id}
    return chat_completions_message(role, body)


def _role(item: _Message) -> str | None:
    role = item.get(wire.ROLE)
    if not isinstance(role, str):
        kind = item.get(wire.LANGCHAIN_TYPE)
        role = wire.LANGCHAIN_ROLES.get(kind) if isinstance(kind, str) else None
    if not isinstance(role, str) or not role:
        return None
    role = role.lower()[:MAX_NAME]
    return "assistant" if role in wire.ASSISTANT_ROLES else role


def _message_list(items: list[Decoded]) -> list[_Message]:
    messages: list[_Message] = []
    for item in items[:MAX_MESSAGES]:
        if not isinstance(item, dict):
            continue
        if item.get(pa.MESSAGE_KIND) in (pa.MESSAGE_KIND_REQUEST, pa.MESSAGE_KIND_RESPONSE):
            messages.extend(pydantic_ai_message(item))
        elif (message := wire_message(item)) is not None:
            messages.append(message)
    return messages[:MAX_MESSAGES]


def _content_text(content: Decoded, llama_blocks: Decoded) -> str | None:
    """A message's text: a string, or the joined text blocks of its content (or of LlamaIndex's ``blocks``)."""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for block in (content if isinstance(content, list) else llama_blocks if isinstance(llama_blocks, list) else [])[
            :MAX_BLOCKS]:
        if not isinstance(block, dict):
            continue
        kind = block.get(wire.ITEM_TYPE) or block.get(wire.LLAMA_INDEX_BLOCK_TYPE)
        text = block.get(wire.BLOCK_TEXT)
        if kind in wire.TEXT_BLOCK_TYPES and isinstance(text, str):
            texts.append(text)
    return "".join(texts) if texts else None


def _system_text(value: Decoded) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [block.get(wire.BLOCK_TEXT) for block in value[:MAX_BLOCKS] if isinstance(block, dict)]
        found = [text for text in texts if isinstance(text, str)]
        return "".join(found) if found else None
    return None


def _generation_messages(generations: list[Decoded]) -> list[_Message]:
    """The messages of a LangChain chat result: the first generation of each prompt (``[[{"message": ...}]]``)."""
    messages: list[_Message] = []
    for group in generations[:MAX_BLOCKS]:
        first = group[0] if isinstance(group, list) and group else group
        inner = first.get(wire.GENERATION_MESSAGE) if isinstance(first, dict) else None
        if isinstance(inner, dict) and (message := wire_message(inner)) is not None:
            messages.append(message)
    return messages


def _response_items_message(items: list[Decoded]) -> _Message:
    """A Responses API response's output items as the one assistant message they split: its text and its calls."""
    texts: list[str] = []
    calls: list[_Message] = []
    for item in items[:MAX_BLOCKS]:
        if not isinstance(item, dict):
            continue
        if item.get(wire.ITEM_TYPE) == wire.ITEM_MESSAGE:
            text = _content_text(item.get(wire.CONTENT), None)
            texts.extend([text] if text else [])
        elif item.get(wire.ITEM_TYPE) == wire.ITEM_FUNCTION_CALL:
            calls.append(tool_call_part(_text(item.get(wire.ITEM_CALL_ID)), item.get(wire.ITEM_NAME),
                                        item.get(wire.ITEM_ARGUMENTS)))
    parts = ([text_part("".join(texts))] if texts else []) + calls
    return parts_message("assistant", parts)


def _responses_input_messages(items: list[Decoded]) -> list[_Message]:
    """A Responses API request's input items as messages: consecutive function calls as one assistant message, each
    call's output as a tool message of its call id, each message item as itself."""
    messages: list[_Message] = []
    pending: list[Decoded] = []
    for item in items[:MAX_MESSAGES]:
        if not isinstance(item, dict):
            continue
        if item.get(wire.ITEM_TYPE) == wire.ITEM_FUNCTION_CALL:
            pending.append(item)
            continue
        if pending:
            messages.append(_response_items_message(pending))
            pending = []
        if item.get(wire.ITEM_TYPE) == wire.ITEM_FUNCTION_CALL_OUTPUT:
            body: _Message = {wire.CONTENT: item.get(wire.ITEM_OUTPUT), wire.TOOL_CALL_ID: item.get(wire.ITEM_CALL_ID)}
            messages.append(chat_completions_message("tool", body))
        elif (message := wire_message(item)) is not None:
            messages.append(message)
    if pending:
        messages.append(_response_items_message(pending))
    return messages[:MAX_MESSAGES]


def _text(value: Decoded) -> str | None:
    return value[:MAX_NAME] if isinstance(value, str) and value else None
