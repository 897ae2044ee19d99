"""Reader for the Vercel AI SDK's legacy ``ai.*`` telemetry spans.

Pinned to npm ``ai@6.0.326`` (same shape as ``ai@7`` ``LegacyOpenTelemetry``); names in :mod:`semconv.vercel`.

Recovers: kind from ``ai.operationId`` (``ai.generateText`` = agent run, ``.doGenerate`` / ``.doStream`` = model
call, ``ai.toolCall`` = tool execution, embed / rerank = retrieval); model, provider, usage (agent-level usage
is an aggregate), response id; proposals from ``ai.response.toolCalls`` joined on ``toolCallId`` to
``ai.toolCall.id``; consumed call ids from ``tool-result`` parts of ``ai.prompt.messages``; message digests in
the GenAI parts shape; tool arguments; the tools a model call was offered from ``ai.prompt.tools`` (one JSON text
per tool, ``{type, name, description, inputSchema}``). The ``gen_ai.*`` attributes these spans also carry are read
too. Observed on ``ai@7.0.185`` with ``@ai-sdk/otel`` 1.0.185 ``LegacyOpenTelemetry`` (corpus ``vercel-ai-sdk``).
"""

from __future__ import annotations

import logging
from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.messages import MAX_MESSAGES, MAX_PARTS, arguments_text, message_digest
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.readers.common import clean_name, read_usage
from otel_mapper.mapping.readers.genai import fill_genai_facts, read_tool_definitions
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import vercel as ai
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "VercelAIReader"]

logger = logging.getLogger(__name__)

CONVENTION: Final = "vercel_ai"
MAX_TOOLS: Final = 1024
"""Tool definitions read from one model call's ``ai.prompt.tools`` (as the GenAI reader's bound)."""


def _kind(operation: str) -> NodeKind:
    if operation in ai.MODEL_OPERATIONS:
        return NodeKind.MODEL_CALL
    if operation in ai.AGENT_OPERATIONS:
        return NodeKind.AGENT_INVOCATION
    if operation in ai.TOOL_OPERATIONS:
        return NodeKind.TOOL_EXECUTION
    if operation in ai.RETRIEVAL_OPERATIONS:
        return NodeKind.RETRIEVAL
    return NodeKind.OTHER


def _first(view: SpanView, keys: tuple[str, ...]) -> str | None:
    return next((key for key in keys if key in view.attrs), None)


class VercelAIReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({ai.OPERATION_ID})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset()

    def claims(self, view: SpanView) -> bool:
        return ai.OPERATION_ID in view.attrs

    def read(self, view: SpanView) -> SpanFacts:
        operation = view.str_attr(ai.OPERATION_ID) or ""
        kind = _kind(operation)
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        facts.model = clean_name(view.str_attr(ai.RESPONSE_MODEL)) or clean_name(view.str_attr(ai.MODEL_ID))
        facts.provider = clean_name(view.str_attr(ai.MODEL_PROVIDER))
        usage = read_usage(view, ai.USAGE_INPUT_TOKENS, ai.USAGE_OUTPUT_TOKENS)
        if kind is NodeKind.MODEL_CALL:
            facts.usage = usage
            facts.response_id = clean_name(view.str_attr(ai.RESPONSE_ID))
            if facts.response_id:
                facts.dedup_key = f"response:{facts.response_id}"
            _read_model_content(view, facts)
        elif usage is not None:
            facts.usage_is_aggregate = True  # generateText totals repeat the doGenerate usage
        if kind is NodeKind.AGENT_INVOCATION:
            facts.agent_name = clean_name(view.str_attr(ai.FUNCTION_ID))
        if kind is NodeKind.TOOL_EXECUTION:
            facts.tool_name = clean_name(view.str_attr(ai.TOOL_CALL_NAME))
            facts.tool_call_id = clean_name(view.str_attr(ai.TOOL_CALL_ID))
            args_key = _first(view, ai.TOOL_CALL_ARGS)
            if args_key is not None:
                facts.arguments = arguments_text(view.json_attr(args_key))
                facts.arguments_visible = facts.arguments is not None
            facts.result_visible = _first(view, ai.TOOL_CALL_RESULT) is not None
            if facts.tool_call_id:
                facts.dedup_key = f"tool_call:{facts.tool_call_id}"
        fill_genai_facts(view, facts)
        return facts


def _call_args(call: dict[str, Decoded]) -> Decoded:
    return next((call[key] for key in ai.CALL_ARGS_KEYS if key in call), None)


def _offered_tools(view: SpanView, facts: SpanFacts) -> None:
    """``ai.prompt.tools``: an array of JSON texts, one per tool offered to this call (an input: absent without input
    recording, and on a call offered no tools)."""
    tools = view.json_attr(ai.PROMPT_TOOLS)
    if isinstance(tools, list):
        definitions = [parse_json_text(item) if isinstance(item, str) else item for item in tools[:MAX_TOOLS]]
        facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(definitions)


def _read_model_content(view: SpanView, facts: SpanFacts) -> None:
    if ai.PROMPT_TOOLS in view.attrs:
        _offered_tools(view, facts)
    output_keys = (ai.RESPONSE_TOOL_CALLS, ai.RESPONSE_TEXT, ai.RESPONSE_OBJECT)
    if any(key in view.attrs for key in output_keys):
        facts.proposals = []
        parts: list[dict[str, Decoded]] = []
        text = view.text_attr(ai.RESPONSE_TEXT)
        if text:
            parts.append(text_part(text))
        calls = view.json_attr(ai.RESPONSE_TOOL_CALLS) if ai.RESPONSE_TOOL_CALLS in view.attrs else None
        if isinstance(calls, list):
            for call in calls[:MAX_PARTS]:
                if not isinstance(call, dict):
                    continue
                call_id = clean_name(str(call.get(ai.CALL_ID_KEY) or "")) if call.get(ai.CALL_ID_KEY) else None
                name = clean_name(str(call.get(ai.CALL_NAME_KEY) or "")) or ""
                args = _call_args(call)
                facts.proposals.append(ToolCallFact(call_id=call_id, name=name, arguments=arguments_text(args)))
                parts.append(tool_call_part(call_id, name, args))
        facts.messages.outputs.append(message_digest(parts_message("assistant", parts)))
    if ai.PROMPT_MESSAGES in view.attrs:
        facts.input_content_captured = True
        messages = view.json_attr(ai.PROMPT_MESSAGES)
        if isinstance(messages, list):
            for message in messages[:MAX_MESSAGES]:
                if isinstance(message, dict):
                    facts.messages.inputs.append(_input_digest(message, facts.consumed_call_ids))
    elif ai.PROMPT in view.attrs:
        facts.input_content_captured = True


def _input_digest(message: dict[str, Decoded], consumed: list[str]) -> str:
    """Digest of an AI SDK message in GenAI parts shape; records the tool results it carries."""
    role = message.get("role")
    content = message.get("content")
    parts: list[dict[str, Decoded]] = []
    if isinstance(content, str):
        if content:
            parts.append(text_part(content))
    elif isinstance(content, list):
        for part in content[:MAX_PARTS]:
            if not isinstance(part, dict):
                continue
            part_type = part.get("type")
            text = part.get("text")
            if part_type == ai.PART_TEXT and isinstance(text, str):
                parts.append(text_part(text))
            elif part_type == ai.PART_TOOL_CALL:
                call_id = part.get(ai.CALL_ID_KEY)
                parts.append(tool_call_part(call_id if isinstance(call_id, str) else None, part.get(ai.CALL_NAME_KEY), _call_args(part)))
            elif part_type == ai.PART_TOOL_RESULT:
                call_id = part.get(ai.CALL_ID_KEY)
                if isinstance(call_id, str) and call_id:
                    consumed.append(call_id[:256])
                parts.append(tool_result_part(call_id if isinstance(call_id, str) else None, part.get("output", part.get("result"))))
    return message_digest(parts_message(role if isinstance(role, str) else None, parts))
