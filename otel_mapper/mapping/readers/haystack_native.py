"""Reader for Haystack's own tracing: the spans Haystack opens through its global tracer, as the OpenTelemetry tracer of
deepset's ``opentelemetry-haystack`` exports them (names in :mod:`semconv.haystack`, pinned to ``haystack-ai`` 3.4.1).

A span is claimed by its operation name. Kinds: the pipeline's run, a component's run and an Agent's step are steps;
``haystack.agent.run`` an agent invocation (Haystack names no agent); ``haystack.agent.step.llm`` and
``haystack.chat_generator.run`` model calls; ``haystack.agent.step.tool`` a tool execution (one per call, no call id:
joined to its proposal by name and arguments); hooks are ``other``. Content (with content tracing on): a model call's
input ``{"messages": [...], "tools": [...]}`` and output ``{"replies": [...]}`` hold Haystack ``ChatMessage``s
(:func:`chat_completions`), a tool call's input its arguments and output its result, ``{"error": ...}`` when the call
raised (``haystack.tool.error``, the span left UNSET). A value that does not serialize to JSON is written as its Python
repr; a repr'd input is read for its tool results (:func:`otel_mapper.mapping.readers.haystack.tool_results`) and the
offered tools' names only, never evaluated.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import add_failure, add_rejection, arguments_text, result_text_digest
from otel_mapper.mapping.readers.common import MAX_CONTENT, clean_name, fill_chat_completions, fill_error
from otel_mapper.mapping.readers.haystack import tool_results
from otel_mapper.mapping.spans import MAX_NAME, SpanView, parse_json_text
from otel_mapper.model import TokenUsage
from otel_mapper.otlp.anyvalue import Decoded
from semconv import haystack as hs
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "HaystackNativeReader", "chat_completions"]

CONVENTION: Final = "haystack"
_KINDS: Final[dict[str, NodeKind]] = {
    hs.PIPELINE_RUN: NodeKind.WORKFLOW_STEP,
    hs.COMPONENT_RUN: NodeKind.WORKFLOW_STEP,
    hs.AGENT_STEP: NodeKind.WORKFLOW_STEP,
    hs.AGENT_RUN: NodeKind.AGENT_INVOCATION,
    hs.AGENT_STEP_LLM: NodeKind.MODEL_CALL,
    hs.CHAT_GENERATOR_RUN: NodeKind.MODEL_CALL,
    hs.AGENT_STEP_TOOL: NodeKind.TOOL_EXECUTION,
    hs.AGENT_HOOK: NodeKind.OTHER,
    hs.HUMAN_IN_THE_LOOP_STRATEGY: NodeKind.OTHER,
}
_MODEL_CONTENT: Final[dict[str, tuple[str, str]]] = {
    hs.AGENT_STEP_LLM: (hs.LLM_INPUT, hs.LLM_OUTPUT),
    hs.CHAT_GENERATOR_RUN: (hs.COMPONENT_INPUT, hs.COMPONENT_OUTPUT),
}
_TOOL_DEFINITION: Final = re.compile(hs.TOOL_DEFINITION_REPR)
MAX_TOOL_DEFINITIONS: Final = 256
MAX_MESSAGES: Final = 10_000
MAX_PARTS: Final = 1_000


class HaystackNativeReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset(_KINDS)
    """Span names, not attribute keys: a span with content tracing off may have no attribute at all. The recogniser
    searches a span's bytes, its name included, for their namespace (``haystack.``)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({hs.NATIVE_SCOPE})

    def claims(self, view: SpanView) -> bool:
        return view.span.name in _KINDS

    def read(self, view: SpanView) -> SpanFacts:
        kind = _KINDS[view.span.name]
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        if kind is NodeKind.AGENT_INVOCATION:
            facts.tool_definitions = _tool_names(view, hs.AGENT_TOOLS)
        elif kind is NodeKind.MODEL_CALL:
            _read_model_call(view, facts, *_MODEL_CONTENT[view.span.name])
        elif kind is NodeKind.TOOL_EXECUTION:
            _read_tool_call(view, facts)
        fill_error(view, facts)
        return facts


def _read_tool_call(view: SpanView, facts: SpanFacts) -> None:
    facts.tool_name = clean_name(view.str_attr(hs.TOOL_NAME))
    if view.has(hs.TOOL_INPUT):
        facts.arguments = arguments_text(view.json_attr(hs.TOOL_INPUT))
        facts.arguments_visible = facts.arguments is not None
    if view.has(hs.TOOL_OUTPUT):
        facts.result_visible = True
        text = view.str_attr(hs.TOOL_OUTPUT, limit=MAX_CONTENT)
        if text is not None and len(text) < MAX_CONTENT:
            facts.result_digest = result_text_digest(text)
    if view.bool_attr(hs.TOOL_ERROR):
        # Haystack caught the tool's error and kept the span UNSET; the flag and the recorded error are the evidence.
        facts.failed = True
        output = view.json_attr(hs.TOOL_OUTPUT)
        message = output.get(hs.TOOL_OUTPUT_ERROR) if isinstance(output, dict) else None
        facts.error_message = message[:512] if isinstance(message, str) else None


def _read_model_call(view: SpanView, facts: SpanFacts, input_key: str, output_key: str) -> None:
    inputs = _content(view, input_key)
    if isinstance(inputs, dict):
        facts.tool_definitions = _tool_definitions(inputs.get(hs.TOOLS))
        messages = inputs.get(hs.MESSAGES)
        if isinstance(messages, list):
            # Results new to this call that report a failure or reject an unknown tool are read from their text, as
            # for any Chat Completions input (Haystack's ``error`` flag is set on both).
            fill_chat_completions(facts, chat_completions(messages), None)
    elif isinstance(inputs, str):
        _read_repr_input(inputs, facts)
    outputs = _content(view, output_key)
    replies = outputs.get(hs.REPLIES) if isinstance(outputs, dict) else None
    if isinstance(replies, list):
        fill_chat_completions(facts, None, chat_completions(replies))
        _read_reply_meta(replies, facts)


def _content(view: SpanView, key: str) -> Decoded:
    """A content tag: JSON text parsed, else the text itself (a repr); ``None`` when absent or too long."""
    text = view.str_attr(key, limit=MAX_CONTENT + 1)
    if text is None or len(text) > MAX_CONTENT:
        return None
    parsed = parse_json_text(text)
    return parsed if parsed is not None else text


def chat_completions(messages: list[Decoded]) -> list[Decoded]:
    """Haystack ``ChatMessage`` trace dicts as Chat Completions messages: text parts joined, tool calls as
    ``tool_calls``, each tool result a ``tool`` message with its call's id."""
    converted: list[Decoded] = []
    for message in messages[:MAX_MESSAGES]:
        if not isinstance(message, dict):
            continue
        role = message.get(hs.ROLE)
        content = message.get(hs.CONTENT)
        parts = [part for part in content[:MAX_PARTS] if isinstance(part, dict)] if isinstance(content, list) else []
        texts: list[str] = []
        calls: list[Decoded] = []
        for part in parts:
            text, call, result = part.get(hs.PART_TEXT), part.get(hs.PART_TOOL_CALL), part.get(hs.PART_TOOL_CALL_RESULT)
            if isinstance(text, str):
                texts.append(text)
            elif isinstance(call, dict):
                calls.append(_call(call))
            elif isinstance(result, dict):
                converted.append(_tool_message(result))
        if not texts and not calls and any(hs.PART_TOOL_CALL_RESULT in part for part in parts):
            continue
        item: dict[str, Decoded] = {"role": role if isinstance(role, str) else None,
                                    "content": "".join(texts) if texts else None}
        if calls:
            item["tool_calls"] = calls
        converted.append(item)
    return converted


def _tool_message(result: dict[str, Decoded]) -> Decoded:
    origin = result.get(hs.RESULT_ORIGIN)
    call_id = origin.get(hs.CALL_ID) if isinstance(origin, dict) else None
    text = result.get(hs.RESULT)
    return {"role": "tool", "tool_call_id": call_id if isinstance(call_id, str) else None,
            "content": text if isinstance(text, str) else None}


def _call(call: dict[str, Decoded]) -> dict[str, Decoded]:
    arguments = call.get(hs.CALL_ARGUMENTS)
    return {"id": call.get(hs.CALL_ID), "type": "function",
            "function": {"name": call.get(hs.CALL_NAME), "arguments": arguments_text(arguments) or "{}"}}


def _read_repr_input(text: str, facts: SpanFacts) -> None:
    """An input written as its repr: the tool results of each ``ChatMessage`` (consumed ids; for the results new to
    this call, rejections and failures) and the offered tools' names."""
    tools_at = text.rfind(hs.TOOLS_REPR)
    facts.tool_definitions = _repr_tool_names(text[tools_at:]) if tools_at >= 0 else None
    chunks = text.split(hs.MESSAGE_REPR)[1:MAX_MESSAGES]
    last_call = max((position for position, chunk in enumerate(chunks)
                     if hs.TOOL_CALL_REPR in chunk and hs.TOOL_RESULT_REPR not in chunk), default=-1)
    for position, chunk in enumerate(chunks):
        for call_id, result, error in tool_results(chunk):
            facts.consumed_call_ids.append(call_id)
            if position > last_call and error and not add_rejection(facts.rejected_results, call_id, result):
                add_failure(facts.failed_results, call_id, result or "error")
    facts.input_content_captured = True


def _read_reply_meta(replies: list[Decoded], facts: SpanFacts) -> None:
    """Model, finish reasons and usage from the replies' ``meta`` (usage summed over the replies)."""
    finish: list[str] = []
    usage: TokenUsage | None = None
    for reply in replies[:MAX_MESSAGES]:
        meta = reply.get(hs.META) if isinstance(reply, dict) else None
        if not isinstance(meta, dict):
            continue
        model = meta.get(hs.META_MODEL)
        if isinstance(model, str) and facts.model is None:
            facts.model = clean_name(model)
        reason = meta.get(hs.META_FINISH_REASON)
        if isinstance(reason, str):
            finish.append(reason[:MAX_NAME])
        counts = meta.get(hs.META_USAGE)
        if isinstance(counts, dict):
            inputs, outputs = _count(counts.get(hs.USAGE_PROMPT_TOKENS)), _count(counts.get(hs.USAGE_COMPLETION_TOKENS))
            details = counts.get(hs.USAGE_PROMPT_DETAILS)
            cached = min(_count(details.get(hs.USAGE_CACHED_TOKENS)), inputs) if isinstance(details, dict) else 0
            usage = TokenUsage(
                input_tokens=inputs + (usage.input_tokens if usage else 0),
                output_tokens=outputs + (usage.output_tokens if usage else 0),
                cached_input_tokens=cached + (usage.cached_input_tokens if usage else 0),
            )
    facts.finish_reasons = tuple(finish)
    facts.usage = usage


def _tool_names(view: SpanView, key: str) -> tuple[str, ...] | None:
    value = _content(view, key)
    return _repr_tool_names(value) if isinstance(value, str) else _tool_definitions(value)


def _tool_definitions(value: Decoded) -> tuple[str, ...] | None:
    """Names of serialized Tools (``{"type", "data": {"name"}}``, or a bare ``{"name"}``); ``None`` when no list."""
    if isinstance(value, str):
        return _repr_tool_names(value)
    if not isinstance(value, list):
        return None
    names: set[str] = set()
    for item in value[:MAX_TOOL_DEFINITIONS]:
        data = item.get(hs.TOOL_DATA) if isinstance(item, dict) else None
        record = data if isinstance(data, dict) else item
        name = record.get(hs.TOOL_NAME_FIELD) if isinstance(record, dict) else None
        if isinstance(name, str) and (cleaned := clean_name(name)):
            names.add(cleaned)
    return tuple(sorted(names))


def _repr_tool_names(text: str) -> tuple[str, ...] | None:
    names = {found.group(1)[:MAX_NAME] for _, found in zip(range(MAX_TOOL_DEFINITIONS), _TOOL_DEFINITION.finditer(text),
                                                          strict=False)}
    return tuple(sorted(names)) if names else None


def _count(value: object) -> int:
    return max(value, 0) if isinstance(value, int) and not isinstance(value, bool) else 0
