"""Tool-call ids from a LangChain chat-model run's recorded input and output, for flattened messages that lack them.

OpenInference's JavaScript LangChain instrumentation (``@arizeai/openinference-instrumentation-langchain`` 4.1.1,
``utils.js``) flattens a chat-model run's messages without any call id: an assistant message's tool calls carry only
name and arguments, a tool message no ``tool_call_id``. The ids are in the run's ``input.value`` / ``output.value``:
LangChain's own records of the run (``{"messages": [[<message>, ...]]}`` and ``{"generations": [[{"message":
<message>}, ...]]}``), each message in LangChain's serialised constructor form (``{"lc": 1, "type": "constructor",
"id": [..., "AIMessage"], "kwargs": {"tool_calls": [{"name", "args", "id"}], ...}}``) or as its bare fields. The
flattened messages are those same lists in the same order (message ``N`` is the list's item ``N``), so an id is taken
from the item at the message's position, for a call of the same name at the same index; an id already flattened is
kept.

The same holds for an input recorded as a chat request's body, ``{"messages": [<message>, ...]}`` (one flat list of
OpenAI chat messages: a tool message's ``tool_call_id``, an assistant message's ``tool_calls`` as ``{"id", "function":
{"name", ...}}``): ``openinference-instrumentation-litellm`` 0.1.51 flattens a tool message without its
``tool_call_id`` and records the request's keyword arguments, messages included, in ``input.value``.

And for an output recorded as a chat completion's body, ``{"choices": [{"message": <message>}, ...]}`` (the flattened
output message ``N`` is choice ``N``'s message): ``openinference-instrumentation-mistralai`` 2.2.2 flattens the
answer's tool calls by function name and arguments only, and the request's messages likewise, and records the
response and the request as JSON in ``output.value`` / ``input.value``.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openinference as oi

__all__ = ["MAX_RUN_IO", "fill_langchain_call_ids"]

MAX_RUN_IO: Final = 1024 * 1024
"""Longest ``input.value`` / ``output.value`` parsed for ids (characters); a longer one is not read."""
MAX_MESSAGES: Final = 10_000
"""Most messages of one list read."""

_INPUT_LIST: Final = "messages"
_OUTPUT_LIST: Final = "generations"
_OUTPUT_MESSAGE: Final = "message"
_CHOICES: Final = "choices"
_TOOL_CALLS: Final = "tool_calls"
_CALL_NAME: Final = "name"
_CALL_ID: Final = "id"
_FUNCTION: Final = "function"


def fill_langchain_call_ids(view: SpanView, inputs: dict[int, FlatMessage] | None,
                            outputs: dict[int, FlatMessage] | None) -> None:
    """Fill the missing call ids of ``inputs`` and ``outputs`` from the run's recorded input and output."""
    if inputs is not None and _missing_ids(inputs):
        _fill(inputs, _run_messages(view, oi.INPUT_VALUE, _INPUT_LIST, None))
    if outputs is not None and _missing_ids(outputs):
        _fill(outputs, _run_messages(view, oi.OUTPUT_VALUE, _OUTPUT_LIST, _OUTPUT_MESSAGE)
              or _run_messages(view, oi.OUTPUT_VALUE, _CHOICES, _OUTPUT_MESSAGE, flat=True))


def _missing_ids(messages: dict[int, FlatMessage]) -> bool:
    for message in messages.values():
        if any(not call.get(oi.TOOL_CALL_ID_SUFFIX) for call in message.calls.values()):
            return True
        if message.fields.get(oi.MESSAGE_ROLE) == "tool" and not message.fields.get(oi.MESSAGE_TOOL_CALL_ID):
            return True
    return False


def _run_messages(view: SpanView, key: str, list_key: str, item_key: str | None,
                  flat: bool = False) -> list[dict[str, Decoded]]:
    """The message fields of the run's first message list (``{list_key: [[...]]}``; with ``flat``, or without
    ``item_key``, the one list ``{list_key: [...]}``), in order; ``[]`` when the value is not that shape."""
    text = view.str_attr(key, limit=MAX_RUN_IO + 1)
    if text is None or len(text) > MAX_RUN_IO or list_key not in text:
        return []
    value = parse_json_text(text)
    lists = value.get(list_key) if isinstance(value, dict) else None
    first = lists[0] if isinstance(lists, list) and lists else None
    if (item_key is None or flat) and isinstance(first, dict):  # a chat request's messages, a response's choices
        first = lists
    if not isinstance(first, list):
        return []
    found: list[dict[str, Decoded]] = []
    for item in first[:MAX_MESSAGES]:
        message = item.get(item_key) if item_key is not None and isinstance(item, dict) else item
        kwargs = message.get(oi.LANGCHAIN_SERIALIZED_KWARGS) if isinstance(message, dict) else None
        fields = kwargs if isinstance(kwargs, dict) else message
        found.append(fields if isinstance(fields, dict) else {})
    return found


def _fill(messages: dict[int, FlatMessage], recorded: list[dict[str, Decoded]]) -> None:
    if not recorded:
        return
    for position, message in messages.items():
        if not 0 <= position < len(recorded):
            continue
        fields = recorded[position]
        if not message.fields.get(oi.MESSAGE_TOOL_CALL_ID):
            call_id = fields.get(oi.LANGCHAIN_TOOL_CALL_ID)
            if isinstance(call_id, str) and clean_name(call_id):
                message.fields[oi.MESSAGE_TOOL_CALL_ID] = clean_name(call_id)
        calls = fields.get(_TOOL_CALLS)
        if not isinstance(calls, list):
            continue
        for index, call in message.calls.items():
            if call.get(oi.TOOL_CALL_ID_SUFFIX) or not 0 <= index < len(calls):
                continue
            source = calls[index]
            if not isinstance(source, dict) or _call_name(source) != call.get(oi.TOOL_CALL_NAME_SUFFIX):
                continue
            call_id = source.get(_CALL_ID)
            if isinstance(call_id, str) and clean_name(call_id):
                call[oi.TOOL_CALL_ID_SUFFIX] = clean_name(call_id)


def _call_name(call: dict[str, Decoded]) -> Decoded:
    """A recorded call's tool name: LangChain's ``name``, or an OpenAI chat call's ``function.name``."""
    name = call.get(_CALL_NAME)
    function = call.get(_FUNCTION)
    if name is None and isinstance(function, dict):
        return function.get(_CALL_NAME)
    return name
