"""LlamaIndex as its own OpenTelemetry integration exports it (``llama-index-observability-otel``; names in
:mod:`semconv.llama_index`).

Every span is a LlamaIndex dispatcher span under the integration's scope, named ``<Class>.<method>``, with no
convention's kind attribute, so the kind is read from what the span is:

- an agent's run (``FunctionAgent.run``, ``AgentWorkflow.run``, ...) is an agent invocation;
- a span carrying the LLM call events (``LLMChatStartEvent`` / ``LLMChatEndEvent`` span events) is the model call:
  its input messages (LlamaIndex ``ChatMessage`` dicts), offered tools and model are in the start event, its output
  (the provider's raw Chat Completions choices), response id and usage in the end event; an LLM method that sends
  nothing (``_prepare_chat_with_tools``) has no such event and is an ``other`` node;
- a tool's ``call`` / ``acall`` span is the tool's run; it carries the tags of the agent's ``call_tool`` step it runs
  in, whose input is the ``ToolCall`` repr naming the tool, its arguments and the call id;
- any other span carrying a workflow step's tags is a step of the agent's workflow.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import arguments_text, python_literal
from otel_mapper.mapping.readers.common import (
    MAX_CONTENT,
    clean_name,
    fill_chat_completions,
    fill_error,
    fill_handoff_target,
)
from otel_mapper.mapping.readers.genai import read_tool_definitions
from otel_mapper.mapping.spans import MAX_NAME, MAX_TEXT, SpanView, parse_json_text
from otel_mapper.model import TokenUsage
from otel_mapper.otlp.anyvalue import Decoded
from semconv import llama_index as li
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "TOOL_CALL_EVIDENCE", "LlamaIndexOtelReader"]

CONVENTION: Final = "llama-index-otel"
TOOL_CALL_EVIDENCE: Final = "llamaindex.step.input_summary (ToolCall tool_id)"
"""Where a tool run's call id was read: the ``ToolCall`` input of the step it runs in."""
MAX_EVENTS: Final = 1_000
"""Span events searched for the LLM call events (the integration writes a handful per span)."""
MAX_MESSAGES: Final = 10_000
"""Messages read from one event's message list."""


class LlamaIndexOtelReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset()
    """Attribute keys ``claims`` looks for: none, the integration's scope marks its spans."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({li.OTEL_SCOPE_NAME})

    def claims(self, view: SpanView) -> bool:
        return view.scope_name == li.OTEL_SCOPE_NAME

    def read(self, view: SpanView) -> SpanFacts:
        start, end = _model_events(view)
        facts = SpanFacts(kind=_kind(view, model=start is not None or end is not None), convention=self.name,
                          name=view.name)
        if facts.kind is NodeKind.MODEL_CALL:
            _read_model_call(facts, start or {}, end or {})
        elif facts.kind is NodeKind.TOOL_EXECUTION:
            _read_tool_call(view, facts)
        fill_error(view, facts)
        return facts


def _kind(view: SpanView, *, model: bool) -> NodeKind:
    name = view.name
    if name in li.AGENT_RUN_SPANS:
        return NodeKind.AGENT_INVOCATION
    if model:
        return NodeKind.MODEL_CALL
    owner, _, method = name.rpartition(".")
    if method in li.TOOL_SPAN_METHODS and owner.endswith(li.TOOL_SPAN_CLASS_SUFFIX):
        return NodeKind.TOOL_EXECUTION
    if name.endswith(li.PREPARE_CHAT_SUFFIX):
        return NodeKind.OTHER
    return NodeKind.WORKFLOW_STEP if li.STEP_INPUT_EVENT in view.attrs else NodeKind.OTHER


def _model_events(view: SpanView) -> tuple[dict[str, AnyValue] | None, dict[str, AnyValue] | None]:
    """The attributes of the span's last LLM start and end events (``None`` where it has none)."""
    start: dict[str, AnyValue] | None = None
    end: dict[str, AnyValue] | None = None
    for event in view.span.events[:MAX_EVENTS]:
        if event.name not in li.MODEL_EVENTS:
            continue
        if event.name in (li.CHAT_START_EVENT, li.COMPLETION_START_EVENT):
            start = _attributes(event.attributes)
        else:
            end = _attributes(event.attributes)
    return start, end


def _attributes(attributes: Iterable[KeyValue]) -> dict[str, AnyValue]:
    return {kv.key: kv.value for kv in attributes}


def _text(values: dict[str, AnyValue], key: str, limit: int = MAX_NAME) -> str | None:
    value = values.get(key)
    if value is None or value.WhichOneof("value") != "string_value":
        return None
    return value.string_value[:limit]


def _int(values: dict[str, AnyValue], key: str) -> int | None:
    value = values.get(key)
    return value.int_value if value is not None and value.WhichOneof("value") == "int_value" else None


def _json(values: dict[str, AnyValue], key: str) -> Decoded:
    text = _text(values, key, limit=MAX_CONTENT + 1)
    return parse_json_text(text) if text is not None and len(text) <= MAX_CONTENT else None


def _read_model_call(facts: SpanFacts, start: dict[str, AnyValue], end: dict[str, AnyValue]) -> None:
    facts.model = clean_name(_text(end, li.EVENT_RESPONSE_MODEL)) or clean_name(_text(start, li.EVENT_MODEL_NAME))
    facts.response_id = clean_name(_text(end, li.EVENT_RESPONSE_ID))
    if facts.response_id:
        facts.dedup_key = f"response:{facts.response_id}"
    input_tokens, output_tokens = _int(end, li.EVENT_USAGE_INPUT), _int(end, li.EVENT_USAGE_OUTPUT)
    if input_tokens is not None or output_tokens is not None:
        inputs = max(input_tokens or 0, 0)
        cached = min(max(_int(end, li.EVENT_USAGE_CACHED) or 0, 0), inputs)
        facts.usage = TokenUsage(input_tokens=inputs, output_tokens=max(output_tokens or 0, 0), cached_input_tokens=cached)
    tools = _json(start, li.EVENT_TOOLS)
    if isinstance(tools, list):
        facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(tools)
    messages = _json(start, li.EVENT_MESSAGES) if li.EVENT_MESSAGES in start else _json(end, li.EVENT_MESSAGES)
    outputs: list[Decoded] | None = None
    choices = _json(end, li.EVENT_RESPONSE_CHOICES)
    if isinstance(choices, list):
        outputs = []
        reasons: list[str] = []
        for choice in choices[:MAX_MESSAGES]:
            if not isinstance(choice, dict):
                continue
            message, reason = choice.get(li.CHOICE_MESSAGE), choice.get(li.CHOICE_FINISH_REASON)
            if isinstance(message, dict):
                outputs.append(message)
            if isinstance(reason, str) and (reason := clean_name(reason) or ""):
                reasons.append(reason)
        facts.finish_reasons = tuple(reasons)
    fill_chat_completions(facts, chat_completions_of(messages), outputs)
    if facts.input_content_captured or facts.proposals is not None:
        facts.message_evidence = f"span events {li.CHAT_START_EVENT}, {li.CHAT_END_EVENT}"


def chat_completions_of(messages: Decoded) -> Decoded:
    """LlamaIndex ``ChatMessage`` dicts as Chat Completions messages: the text of their text blocks as content, the
    tool calls and the tool-call id from their ``additional_kwargs``; ``None`` when ``messages`` is no list."""
    if not isinstance(messages, list):
        return None
    converted: list[Decoded] = []
    for message in messages[:MAX_MESSAGES]:
        if not isinstance(message, dict) or not isinstance(role := message.get(li.MESSAGE_ROLE), str):
            continue
        kwargs = message.get(li.MESSAGE_KWARGS)
        kwargs = kwargs if isinstance(kwargs, dict) else {}
        blocks = message.get(li.MESSAGE_BLOCKS)
        texts = [
            text
            for block in (blocks if isinstance(blocks, list) else [])
            if isinstance(block, dict) and block.get(li.BLOCK_TYPE) == li.BLOCK_TEXT
            and isinstance(text := block.get(li.BLOCK_TEXT), str)
        ]
        body: dict[str, Decoded] = {li.MESSAGE_ROLE: role, "content": "".join(texts) if texts else None}
        if li.MESSAGE_TOOL_CALLS in kwargs:
            body[li.MESSAGE_TOOL_CALLS] = kwargs[li.MESSAGE_TOOL_CALLS]
        if isinstance(kwargs.get(li.MESSAGE_TOOL_CALL_ID), str):
            body[li.MESSAGE_TOOL_CALL_ID] = kwargs[li.MESSAGE_TOOL_CALL_ID]
        converted.append(body)
    return converted


def _read_tool_call(view: SpanView, facts: SpanFacts) -> None:
    """Tool name, arguments and call id from the ``ToolCall`` input of the step the tool runs in."""
    if view.str_attr(li.STEP_INPUT_EVENT) != li.TOOL_CALL_INPUT:
        return
    summary = view.str_attr(li.STEP_INPUT_SUMMARY, limit=MAX_TEXT)
    if not summary:
        return
    facts.tool_name = clean_name(_quoted_after(summary, li.TOOL_NAME_REPR))
    call_id = clean_name(_quoted_after(summary, li.TOOL_ID_REPR, last=True))
    if call_id:
        facts.tool_call_id = call_id
        facts.tool_call_id_evidence = TOOL_CALL_EVIDENCE
        facts.dedup_key = f"tool_call:{call_id}"
    start = summary.find(li.TOOL_KWARGS_REPR)
    stop = summary.rfind(", " + li.TOOL_ID_REPR)
    if start >= 0 and stop > start:
        arguments = python_literal(summary[start + len(li.TOOL_KWARGS_REPR) : stop])
        if isinstance(arguments, dict):  # a repr cut short ("...") is no literal: arguments not recorded
            facts.arguments = arguments_text(arguments)
            facts.arguments_visible = facts.arguments is not None
    fill_handoff_target(facts)


def _quoted_after(text: str, prefix: str, *, last: bool = False) -> str | None:
    """The single-quoted value after ``prefix`` (its last occurrence with ``last``); ``None`` when the summary cut it
    (a string value longer than the summary keeps ends ``...``; a value cut with the whole summary has no closing
    quote)."""
    start = text.rfind(prefix) if last else text.find(prefix)
    if start < 0:
        return None
    start += len(prefix)
    end = text.find("'", start)
    value = text[start:end] if end > start else None
    return None if value is None or value.endswith(li.SUMMARY_CUT) else value
