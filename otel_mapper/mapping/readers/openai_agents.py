"""Reader for OpenAI Agents SDK spans as the OTel contrib instrumentation exports them.

Pinned to ``openai-agents`` 0.24.0 exported by ``opentelemetry-instrumentation-openai-agents-v2`` 0.1.0; names in
:mod:`semconv.openai_agents`. The SDK's other two instrumentations are read by their convention's reader:
OpenInference (``handoff to X`` TOOL spans become handoffs) and OpenLLMetry (``{from} → {to}.handoff``).

Recovers: ``agent_handoff`` spans as handoffs (``gen_ai.handoff.from_agent`` / ``to_agent``; the instrumentor's
default agent name "OpenAI Agent" is never taken for a real agent), ``guardrail_check`` spans as guardrails,
everything GenAI-shaped through :func:`fill_genai_facts`, and the tool calls of chat spans whose output message
holds the Python ``repr`` of the Chat Completions message as text (0.1.0 does that for tool-calling turns).
"""

from __future__ import annotations

import ast
import logging
from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.messages import arguments_text, message_digest
from otel_mapper.mapping.parts_messages import parts_message, text_part, tool_call_part
from otel_mapper.mapping.readers.common import GUARDRAIL_TRIGGERED_ERROR, clean_name
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation
from otel_mapper.mapping.spans import MAX_TEXT, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai
from semconv import openai_agents as oa
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "OpenAIAgentsReader", "handoff_tool_name"]

logger = logging.getLogger(__name__)

CONVENTION: Final = "openai_agents"
_MARKERS: Final = frozenset({oa.ORCHESTRATOR_AGENT_DEFINITIONS, oa.GUARDRAIL_TRIGGERED, oa.GUARDRAIL_NAME})


def handoff_tool_name(agent: str) -> str:
    """The SDK's default tool name for a handoff to ``agent`` (``transfer_to_`` + the name in function style)."""
    style = "".join(char if char.isalnum() else "_" for char in agent.strip().lower())
    return oa.DEFAULT_HANDOFF_TOOL_PREFIX + style


class OpenAIAgentsReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = _MARKERS | {genai.OPERATION_NAME}
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({oa.CONTRIB_SCOPE_NAME})

    def claims(self, view: SpanView) -> bool:
        if view.scope_name == oa.CONTRIB_SCOPE_NAME:
            return True
        attrs = view.attrs
        if not attrs.keys().isdisjoint(_MARKERS):
            return True
        return view.str_attr(genai.OPERATION_NAME) in oa.CONTRIB_OPERATIONS

    def read(self, view: SpanView) -> SpanFacts:
        operation = view.str_attr(genai.OPERATION_NAME) or ""
        kind = kind_of_operation(operation) if operation else NodeKind.OTHER
        if view.has(oa.GUARDRAIL_TRIGGERED) and kind is NodeKind.OTHER:
            kind = NodeKind.GUARDRAIL
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        fill_genai_facts(view, facts)
        if facts.agent_name == oa.DEFAULT_AGENT_NAME and kind is not NodeKind.AGENT_INVOCATION:
            facts.agent_name = None
        for side in ("handoff_from_agent", "handoff_to_agent"):
            if getattr(facts, side) == oa.DEFAULT_AGENT_NAME:
                setattr(facts, side, None)
        if kind is NodeKind.HANDOFF and facts.handoff_to_agent and not facts.tool_name:
            facts.tool_name = handoff_tool_name(facts.handoff_to_agent)
        if kind is NodeKind.GUARDRAIL and view.bool_attr(oa.GUARDRAIL_TRIGGERED):
            facts.error_type = facts.error_type or GUARDRAIL_TRIGGERED_ERROR
        if kind is NodeKind.MODEL_CALL and facts.proposals == [] and genai.OUTPUT_MESSAGES in view.attrs:
            _recover_repr_tool_calls(view.json_attr(genai.OUTPUT_MESSAGES), facts)
        return facts


def _recover_repr_tool_calls(messages: Decoded, facts: SpanFacts) -> None:
    """Tool calls written as the text ``repr`` of a Chat Completions message dict (contrib 0.1.0).

    ``ast.literal_eval`` builds literals only and never runs code; the text is size-bounded and anything that is
    not a message dict with ``tool_calls`` leaves the facts as they were.
    """
    if not isinstance(messages, list) or len(messages) != 1 or not isinstance(messages[0], dict):
        return
    parts = messages[0].get("parts")
    if not isinstance(parts, list) or len(parts) != 1 or not isinstance(parts[0], dict):
        return
    text = parts[0].get("content")
    if not isinstance(text, str) or len(text) > MAX_TEXT or not text.startswith("{") or oa.CHAT_TOOL_CALLS not in text:
        return
    try:
        message = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return
    calls = message.get(oa.CHAT_TOOL_CALLS) if isinstance(message, dict) else None
    if not isinstance(calls, list) or not calls:
        return
    proposals: list[ToolCallFact] = []
    new_parts: list[dict[str, Decoded]] = []
    content = message.get(oa.CHAT_CONTENT)
    if isinstance(content, str) and content:
        new_parts.append(text_part(content))
    for call in calls[:256]:
        function = call.get(oa.CHAT_FUNCTION) if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        call_id = call.get(oa.CHAT_TOOL_CALL_ID)
        call_id = clean_name(call_id) if isinstance(call_id, str) else None
        name = function.get(oa.CHAT_FUNCTION_NAME)
        name = clean_name(name) if isinstance(name, str) else None
        args = function.get(oa.CHAT_FUNCTION_ARGUMENTS)
        proposals.append(ToolCallFact(call_id=call_id, name=name or "", arguments=arguments_text(args)))
        new_parts.append(tool_call_part(call_id, name, args))
    if proposals:
        facts.proposals = proposals
        # The next call's input holds this message as proper parts: digest it in that shape.
        facts.messages.outputs = [message_digest(parts_message(messages[0].get("role") or "assistant", new_parts))]
