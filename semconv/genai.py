"""OpenTelemetry GenAI semantic conventions: the names we read.

Pinned to ``open-telemetry/semantic-conventions-genai`` at ``f5e3733b`` (registry ``docs/registry/attributes/
gen-ai.md``, ``model/gen-ai/spans.yaml``), plus the legacy names of ``open-telemetry/semantic-conventions``
v1.26-v1.36 that instrumentations still emit by default (``gen_ai.system``, indexed ``gen_ai.prompt.N.*``,
per-message events). All GenAI conventions are still at "development" stability.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

PREFIX: Final = "gen_ai."
"""Namespace of every GenAI attribute (a cheap first filter when scanning keys)."""
OPERATION_NAME: Final = "gen_ai.operation.name"
PROVIDER_NAME: Final = "gen_ai.provider.name"
SYSTEM: Final = "gen_ai.system"
"""Deprecated (v1.37) in favour of :data:`PROVIDER_NAME`; still emitted widely."""

AGENT_ID: Final = "gen_ai.agent.id"
AGENT_NAME: Final = "gen_ai.agent.name"
AGENT_DESCRIPTION: Final = "gen_ai.agent.description"
WORKFLOW_NAME: Final = "gen_ai.workflow.name"
CONVERSATION_ID: Final = "gen_ai.conversation.id"

REQUEST_MODEL: Final = "gen_ai.request.model"
RESPONSE_MODEL: Final = "gen_ai.response.model"
RESPONSE_ID: Final = "gen_ai.response.id"
RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
TOOL_CALL_FINISH_REASONS: Final = frozenset({"tool_call", "tool_calls", "tool_use", "function_call"})
"""Finish reasons (compared lower case) saying the model stopped to call tools: the convention's ``tool_call``,
OpenAI's ``tool_calls`` / ``function_call``, Anthropic's and Bedrock Converse's ``tool_use``, Cohere's ``TOOL_CALL``.
Gemini's ``STOP`` ends a turn with or without function calls, so it says nothing either way."""
UNTOLD_CALL_FINISH_PROVIDERS: Final = frozenset({"ollama"})
"""``gen_ai.provider.name`` values whose finish reason does not tell an answer that calls tools from one that does
not: Ollama's chat API ends every answer with ``done_reason`` ``stop``, tool calls or not (OpenLIT's Ollama
instrumentation copies it as the finish reason), so ``stop`` there says nothing either way."""
REQUEST_PREVIOUS_RESPONSE_ID: Final = "gen_ai.request.previous_response.id"

USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
USAGE_PROMPT_TOKENS: Final = "gen_ai.usage.prompt_tokens"
"""Deprecated v1.26 name of :data:`USAGE_INPUT_TOKENS`."""
USAGE_COMPLETION_TOKENS: Final = "gen_ai.usage.completion_tokens"
"""Deprecated v1.26 name of :data:`USAGE_OUTPUT_TOKENS`."""
USAGE_CACHE_READ_INPUT_TOKENS: Final = "gen_ai.usage.cache_read.input_tokens"
"""Input tokens served from the provider's prompt cache (part of :data:`USAGE_INPUT_TOKENS`)."""
USAGE_CACHE_READ_INPUT_TOKENS_OLD: Final = "gen_ai.usage.cache_read_input_tokens"
"""Earlier name of :data:`USAGE_CACHE_READ_INPUT_TOKENS` (OpenLLMetry, Strands)."""
USAGE_TOTAL_TOKENS: Final = "gen_ai.usage.total_tokens"
"""Non-standard, emitted by OpenLLMetry and Strands."""
AGGREGATED_USAGE_PREFIX: Final = "gen_ai.aggregated_usage."
"""pydantic-ai agent spans carry totals here instead of ``gen_ai.usage.*``."""

TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
TOOL_TYPE: Final = "gen_ai.tool.type"
TOOL_DESCRIPTION: Final = "gen_ai.tool.description"
TOOL_CALL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
TOOL_CALL_RESULT: Final = "gen_ai.tool.call.result"
TOOL_DEFINITIONS: Final = "gen_ai.tool.definitions"

INPUT_MESSAGES: Final = "gen_ai.input.messages"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS: Final = "gen_ai.system_instructions"

LEGACY_PROMPT_PREFIX: Final = "gen_ai.prompt."
"""Indexed legacy input messages: ``gen_ai.prompt.N.role``/``.content``/``.tool_call_id``/``.tool_calls.M.*``."""
LEGACY_TOOL_CALL_ID_SUFFIX: Final = ".tool_call_id"
"""``gen_ai.prompt.N.tool_call_id``: the tool call a legacy indexed tool message answers."""
LEGACY_ROLE_SUFFIX: Final = ".role"
"""``gen_ai.prompt.N.role``: the role of a legacy indexed message."""
LEGACY_CONTENT_SUFFIX: Final = ".content"
"""``gen_ai.prompt.N.content``: the text of a legacy indexed message."""
LEGACY_COMPLETION_PREFIX: Final = "gen_ai.completion."
"""Indexed legacy output messages: ``gen_ai.completion.N.role``/``.content``/``.tool_calls.M.{id,name,arguments}``."""
LEGACY_FUNCTIONS_PREFIX: Final = "gen_ai.request.functions."
"""Indexed legacy tool definitions of a request: ``gen_ai.request.functions.N.name``/``.description``/``.parameters``
(OpenLLMetry's legacy form, written by AgentOps' OpenAI client instrumentation, ``agentops`` 0.4.21)."""
LEGACY_FUNCTION_NAME_SUFFIX: Final = ".name"

HANDOFF_FROM_AGENT: Final = "gen_ai.handoff.from_agent"
HANDOFF_TO_AGENT: Final = "gen_ai.handoff.to_agent"
GUARDRAIL_NAME: Final = "gen_ai.guardrail.name"
GUARDRAIL_TRIGGERED: Final = "gen_ai.guardrail.triggered"
GUARDRAIL_RESULT_TYPE: Final = "gen_ai.guardrail.result.type"
GUARDRAIL_RESULT_VALUE: Final = "gen_ai.guardrail.result.value"
TRANSFER_TARGET_NAME: Final = "gen_ai.transfer.target.name"

ERROR_TYPE: Final = "error.type"
HTTP_RESPONSE_STATUS_CODE: Final = "http.response.status_code"
HTTP_STATUS_CODE_LEGACY: Final = "http.status_code"

EXCEPTION_EVENT: Final = "exception"
EXCEPTION_TYPE: Final = "exception.type"
EXCEPTION_MESSAGE: Final = "exception.message"

SERVICE_NAME: Final = "service.name"
SERVICE_VERSION: Final = "service.version"

EVALUATION_RESULT_EVENT: Final = "gen_ai.evaluation.result"
EVALUATION_NAME: Final = "gen_ai.evaluation.name"
EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"

# Message part types (gen_ai-input-messages.json / gen_ai-output-messages.json)
MESSAGE_PARTS: Final = "parts"
PART_CONTENT: Final = "content"
"""A ``text`` part's text."""
PART_TYPE: Final = "type"
PART_TOOL_CALL: Final = "tool_call"
PART_TOOL_CALL_RESPONSE: Final = "tool_call_response"
PART_TEXT: Final = "text"
MESSAGE_FINISH_REASON: Final = "finish_reason"
"""An output message's finish reason (required in gen_ai-output-messages.json; one message per choice)."""


class Operation(StrEnum):
    """Well-known ``gen_ai.operation.name`` values (custom values are allowed and read as steps)."""

    CHAT = "chat"
    TEXT_COMPLETION = "text_completion"
    GENERATE_CONTENT = "generate_content"
    EMBEDDINGS = "embeddings"
    RETRIEVAL = "retrieval"
    CREATE_AGENT = "create_agent"
    INVOKE_AGENT = "invoke_agent"
    EXECUTE_TOOL = "execute_tool"
    APPLY_GUARDRAIL = "apply_guardrail"
    INVOKE_WORKFLOW = "invoke_workflow"
    PLAN = "plan"
    FETCH_RESPONSE = "fetch_response"


MODEL_CALL_OPERATIONS: Final = frozenset({"chat", "text_completion", "generate_content", "text_completions"})
"""Operation names of inference spans (``text_completions`` is Semantic Kernel's plural spelling)."""
AGENT_OPERATIONS: Final = frozenset({"invoke_agent", "create_agent"})
TOOL_OPERATIONS: Final = frozenset({"execute_tool"})
WORKFLOW_OPERATIONS: Final = frozenset(
    {"invoke_workflow", "plan", "agent_step", "invoke_node", "execute_task", "invoke_swarm", "invoke_graph"}
)
RETRIEVAL_OPERATIONS: Final = frozenset({"retrieval", "embeddings", "vector_db_retrieve", "search_memory"})
MEMORY_WRITE_OPERATIONS: Final = frozenset(
    {"create_memory_store", "create_memory", "update_memory", "upsert_memory", "delete_memory", "delete_memory_store"}
)
"""Memory operations that change a memory store (``gen_ai.memory.client`` spans); ``search_memory`` reads one."""
AGENT_CREATION_OPERATIONS: Final = frozenset({"create_agent"})
GUARDRAIL_OPERATIONS: Final = frozenset({"apply_guardrail", "guardrail_check"})
HANDOFF_OPERATIONS: Final = frozenset({"agent_handoff", "handoff"})

# --- GenAI events that instrumentations send as OTLP log records -------------------------------------------
EVENT_NAME_ATTRIBUTE: Final = "event.name"
"""Where logs without the ``LogRecord.event_name`` field (OTLP < 1.5) carry the event name."""
INFERENCE_DETAILS_EVENT: Final = "gen_ai.client.inference.operation.details"
"""Same attribute set as the inference span, content included (structured messages)."""
OPERATION_EXCEPTION_EVENT: Final = "gen_ai.client.operation.exception"
SYSTEM_MESSAGE_EVENT: Final = "gen_ai.system.message"
USER_MESSAGE_EVENT: Final = "gen_ai.user.message"
ASSISTANT_MESSAGE_EVENT: Final = "gen_ai.assistant.message"
TOOL_MESSAGE_EVENT: Final = "gen_ai.tool.message"
CHOICE_EVENT: Final = "gen_ai.choice"
"""Deprecated per-message events (body fields: ``content``, ``role``, ``tool_calls``, ``id``; choice: ``index``,
``finish_reason``, ``message``)."""
EVENT_CONTENT_ATTRIBUTE: Final = "gen_ai.event.content"
"""A per-message event's whole body as one JSON text, where it is recorded as a span event (GenAI conventions
v1.27-v1.28 left span events without a body: the Azure SDKs' instrumentations write it in this attribute)."""

# --- span-link attribution (proposal: semantic-conventions-genai PR #370, for issue #309) -------------------
ATTRIBUTION_LINK_TYPE: Final = "gen_ai.attribution.link_type"
"""On a span link: how the linked span caused this one. Still a proposal; read as evidence when present."""


class AttributionLinkType(StrEnum):
    CAUSED_BY_GENERATION = "CAUSED_BY_GENERATION"
    """On ``execute_tool``: the linked span is the inference span whose output held this tool call."""
    RETRY_OF = "RETRY_OF"
    """The linked span is the previous attempt of this operation."""
    INFORMED_BY = "INFORMED_BY"
    """On an inference span: the linked span is a tool execution whose result informed this generation."""
