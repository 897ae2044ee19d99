"""Reader for Google ADK's own spans (legacy ``gcp.vertex.agent.*`` schema v1 and semconv-aligned v2).

Pinned to ``google-adk`` 2.13.0; names in :mod:`semconv.adk`.

Recovers: v2 spans through the GenAI reading (``invoke_workflow`` / ``invoke_agent`` / ``invoke_node`` /
``generate_content`` / ``execute_tool``); legacy ``invocation`` / ``call_llm`` spans by name; proposals
(``function_call`` parts, with ids) from ``gcp.vertex.agent.llm_response``; consumed call ids
(``function_response`` parts) and message digests from ``gcp.vertex.agent.llm_request``; tool arguments from
``gcp.vertex.agent.tool_call_args``. The ``execute_tool (merged)`` batch span wraps the parallel calls of one turn
and executes nothing itself: an ``other`` node, not another tool call. A span of ADK's own agent transfer
(``gen_ai.tool.type = TransferToAgentTool``) is a handoff to the agent its ``agent_name`` argument names.
"""

from __future__ import annotations

import logging
from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.messages import MAX_MESSAGES, MAX_PARTS, arguments_text, message_digest
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part, tool_result_part
from otel_mapper.mapping.readers.common import clean_name, fill_handoff_target
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import adk, genai
from semconv.trajectory import NodeKind

__all__ = ["ADKReader", "CONVENTION"]

logger = logging.getLogger(__name__)

CONVENTION: Final = "google_adk"
_MARKERS: Final = frozenset(adk.MARKERS)


class ADKReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = _MARKERS
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({adk.SCOPE_NAME})

    def claims(self, view: SpanView) -> bool:
        if view.scope_name == adk.SCOPE_NAME:
            return True
        attrs = view.attrs
        return not attrs.keys().isdisjoint(_MARKERS)

    def classify(self, view: SpanView) -> NodeKind:
        operation = view.str_attr(genai.OPERATION_NAME)
        name = view.span.name
        if operation:
            kind = kind_of_operation(operation)
        elif name == adk.LEGACY_INVOCATION_SPAN:
            kind = NodeKind.WORKFLOW_STEP
        elif name == adk.LEGACY_LLM_SPAN or view.has(adk.LLM_REQUEST):
            kind = NodeKind.MODEL_CALL
        elif name.startswith(adk.INVOKE_AGENT_PREFIX):
            kind = NodeKind.AGENT_INVOCATION
        elif name.startswith(adk.EXECUTE_TOOL_PREFIX):
            kind = NodeKind.TOOL_EXECUTION
        else:
            kind = NodeKind.OTHER
        if kind is NodeKind.TOOL_EXECUTION and view.str_attr(genai.TOOL_NAME) == adk.MERGED_TOOLS_NAME:
            kind = NodeKind.OTHER  # a batch wrapper: each tool of the batch has its own span
        elif kind is NodeKind.TOOL_EXECUTION and view.str_attr(genai.TOOL_TYPE) == adk.TRANSFER_TOOL_TYPE:
            kind = NodeKind.HANDOFF  # ADK types the span as its agent transfer
        return kind

    def read(self, view: SpanView) -> SpanFacts:
        kind = self.classify(view)
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        if kind is NodeKind.MODEL_CALL:
            if adk.LLM_RESPONSE in view.attrs:
                _read_response(view.json_attr(adk.LLM_RESPONSE), facts)
            if adk.LLM_REQUEST in view.attrs:
                _read_request(view.json_attr(adk.LLM_REQUEST), facts)
        elif kind is NodeKind.TOOL_EXECUTION and adk.TOOL_CALL_ARGS in view.attrs:
            facts.arguments = arguments_text(view.json_attr(adk.TOOL_CALL_ARGS))
            facts.arguments_visible = facts.arguments is not None
            facts.result_visible = adk.TOOL_RESPONSE in view.attrs
        fill_genai_facts(view, facts)
        if kind is NodeKind.HANDOFF:
            fill_handoff_target(facts)  # the agent its agent_name argument names
        return facts


def _parts(content: Decoded) -> list[dict[str, Decoded]]:
    if not isinstance(content, dict):
        return []
    parts = content.get(adk.PARTS)
    return [part for part in parts[:MAX_PARTS] if isinstance(part, dict)] if isinstance(parts, list) else []


def _field(part: dict[str, Decoded], names: tuple[str, ...]) -> dict[str, Decoded] | None:
    for name in names:
        value = part.get(name)
        if isinstance(value, dict):
            return value
    return None


def _content_digest(content: dict[str, Decoded], consumed: list[str] | None) -> str:
    """Digest of one Gemini ``Content`` in GenAI parts shape (``model`` role read as ``assistant``)."""
    role = content.get(adk.ROLE)
    parts: list[dict[str, Decoded]] = []
    for part in _parts(content):
        call = _field(part, adk.FUNCTION_CALL)
        response = _field(part, adk.FUNCTION_RESPONSE)
        if call is not None:
            parts.append(tool_call_part(_id(call), call.get(adk.PART_NAME), call.get(adk.PART_ARGS)))
        elif response is not None:
            call_id = _id(response)
            if call_id and consumed is not None:
                consumed.append(call_id)
            parts.append(tool_result_part(call_id, response.get(adk.PART_RESPONSE)))
        elif isinstance(text := part.get(adk.TEXT), str):
            parts.append(text_part(text))
    return message_digest(parts_message("assistant" if role == "model" else role if isinstance(role, str) else None, parts))


def _id(part: dict[str, Decoded]) -> str | None:
    value = part.get(adk.PART_ID)
    return clean_name(value) if isinstance(value, str) else None


def _read_response(response: Decoded, facts: SpanFacts) -> None:
    if not isinstance(response, dict):
        return
    content = response.get(adk.CONTENT)
    facts.proposals = []
    if not isinstance(content, dict):
        return
    for part in _parts(content):
        call = _field(part, adk.FUNCTION_CALL)
        if call is not None:
            name = call.get(adk.PART_NAME)
            facts.proposals.append(
                ToolCallFact(
                    call_id=_id(call),
                    name=clean_name(name) or "" if isinstance(name, str) else "",
                    arguments=arguments_text(call.get(adk.PART_ARGS)),
                )
            )
    facts.messages.outputs.append(_content_digest(content, None))


def _read_request(request: Decoded, facts: SpanFacts) -> None:
    if not isinstance(request, dict):
        return
    contents = request.get(adk.CONTENTS)
    if not isinstance(contents, list):
        return
    facts.input_content_captured = True
    for content in contents[:MAX_MESSAGES]:
        if isinstance(content, dict):
            facts.messages.inputs.append(_content_digest(content, facts.consumed_call_ids))
