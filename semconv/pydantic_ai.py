"""Pydantic AI and Logfire span attributes: the names we read.

Pinned to ``pydantic-ai-slim`` 2.68.0 (``_instrumentation.py``, ``models/instrumented.py``; instrumentation data
versions 2-6) and ``logfire-sdk`` 5.4.0 (``_internal/constants.py``, ``integrations/openai_agents.py``).
From data version 3 spans are GenAI-shaped (read with :mod:`semconv.genai`); these are the extra names.
"""

from __future__ import annotations

from typing import Final

# --- Logfire ---------------------------------------------------------------------------------------------
SPAN_TYPE: Final = "logfire.span_type"
SPAN_TYPE_PENDING: Final = "pending_span"
"""A placeholder sent at span start; the real span follows. Never a trajectory node."""
SPAN_TYPE_SPAN: Final = "span"
"""A span with a duration (``log``: a log line, ``logfire.info(...)``, a span of no duration)."""
API_SCOPE: Final = "logfire"
"""The instrumentation scope of the spans an application opens through the ``logfire`` API (``logfire.span``,
``@logfire.instrument``); Logfire's own integrations write ``logfire.<integration>`` (``logfire.openai``, ...)."""
PENDING_PARENT_ID: Final = "logfire.pending_parent_id"
MSG: Final = "logfire.msg"
MSG_TEMPLATE: Final = "logfire.msg_template"
LEVEL_NUM: Final = "logfire.level_num"
LEVEL_ERROR: Final = 17
"""Logfire level numbers follow OTel severity: 17 = error (fails a span even with status UNSET)."""
SCRUBBED: Final = "logfire.scrubbed"

# Logfire's OpenAI Agents integration writes the SDK's span_data.export() fields as attributes.
LOGFIRE_AGENTS_FROM_AGENT: Final = "from_agent"
LOGFIRE_AGENTS_TO_AGENT: Final = "to_agent"
LOGFIRE_AGENTS_TRIGGERED: Final = "triggered"
LOGFIRE_AGENTS_SCOPE: Final = "logfire.openai_agents"
"""The instrumentation scope of every span ``logfire.instrument_openai_agents()`` writes."""
# Message templates (the span names): one per SDK span type; task and turn spans inline their names instead.
LOGFIRE_AGENTS_TRACE: Final = "OpenAI Agents trace: {name}"
LOGFIRE_AGENTS_AGENT: Final = "Agent run: {name!r}"
LOGFIRE_AGENTS_FUNCTION: Final = "Function: {name}"
LOGFIRE_AGENTS_GENERATION: Final = "Chat completion with {gen_ai.request.model!r}"
LOGFIRE_AGENTS_RESPONSE: Final = "Responses API"
"""Prefix: `` with {gen_ai.request.model!r}`` follows when the model is known."""
LOGFIRE_AGENTS_GUARDRAIL: Final = "Guardrail {name!r} {triggered=}"
LOGFIRE_AGENTS_HANDOFF: Final = "Handoff: {from_agent} → {to_agent}"
LOGFIRE_AGENTS_CUSTOM: Final = "Custom span: {name}"
LOGFIRE_AGENTS_MCP_TOOLS: Final = "MCP: list tools from server {server}"
# span_data.export() fields
LOGFIRE_AGENTS_NAME: Final = "name"
LOGFIRE_AGENTS_TOOLS: Final = "tools"
"""Agent spans: JSON list of the names of the agent's tools."""
LOGFIRE_AGENTS_INPUT: Final = "input"
"""Function spans: the arguments (JSON text); generation spans: the Chat Completions input messages."""
LOGFIRE_AGENTS_OUTPUT: Final = "output"
"""Function spans: the result; generation spans: the Chat Completions output messages."""
LOGFIRE_AGENTS_ERROR: Final = "error"
"""The SDK's ``SpanError`` as JSON: ``{"message": ..., "data": {...}}``."""
LOGFIRE_AGENTS_SDK_SPAN_TYPE: Final = "sdk_span_type"
"""Task and turn spans: ``task`` / ``turn``."""
LOGFIRE_AGENTS_TOOL_NOT_FOUND: Final = "Tool not found"
"""``SpanError.message`` of a turn whose model called a tool the agent does not have (``data.tool_name``)."""

# --- pydantic-ai ---------------------------------------------------------------------------------------
AGENT_CALL_ID: Final = "gen_ai.agent.call.id"
"""Run id, propagated as baggage onto every span of a run (non-standard)."""
AGGREGATED_USAGE_INPUT_TOKENS: Final = "gen_ai.aggregated_usage.input_tokens"
AGGREGATED_USAGE_OUTPUT_TOKENS: Final = "gen_ai.aggregated_usage.output_tokens"
ALL_MESSAGES: Final = "pydantic_ai.all_messages"
FINAL_RESULT: Final = "final_result"
AGENT_NAME_V2: Final = "agent_name"
MODEL_NAME_V2: Final = "model_name"
TOOL_ARGUMENTS_V2: Final = "tool_arguments"
TOOL_RESPONSE_V2: Final = "tool_response"
MODEL_REQUEST_PARAMETERS: Final = "model_request_parameters"
"""A model request's parameters as JSON: the function tools offered, and the instructions (``instruction_parts``)."""
TOOL_FAILURE_STAGE: Final = "pydantic_ai.tool.failure_stage"
TOOL_RETRY_ATTEMPT: Final = "pydantic_ai.tool.retry.attempt"
MODEL_REQUEST_ATTEMPT: Final = "pydantic_ai.model_request.attempt"
"""Zero-based position of a failed attempt at a model request (``_model_request_attempts.py``). Its span, named
``model request attempt {model}``, is an ERROR child of the request's ``chat`` span, opened once the attempt has
failed (a ``RetryModelRequest`` from a hook, a ``FallbackModel`` moving on); it has no ``gen_ai.operation.name``.
The ``chat`` span describes the attempt that answered; a rejected response's usage is on the attempt span only."""

AGENT_RUN_SPAN: Final = "agent run"
"""Data version 2 agent span name (v3+: ``invoke_agent {agent}``)."""
RUNNING_TOOL_SPAN: Final = "running tool"
"""Data version 2 tool span name (v3+: ``execute_tool {tool}``)."""

# --- Messages ----------------------------------------------------------------------------------------------

RETRY_PROMPT_SUFFIX: Final = "Fix the errors and try again."
"""The sentence Pydantic AI ends a retry prompt with (``RetryPromptPart.model_response``, 2.31 and 2.68): the result
the model receives for a tool call whose tool raised ``ModelRetry`` or whose arguments failed validation, and, worded
``Unknown tool name: ...``, for a call of a tool the agent does not have."""

# --- Pydantic AI's message objects (``pydantic_ai/messages.py``), as an instrumentation serialises them whole ----------
# MLflow's Pydantic AI autolog records a model request's ``messages`` (``ModelRequest`` / ``ModelResponse`` dataclasses
# as dicts) and the ``ModelResponse`` it returned; every part says what it is in ``part_kind``.
REQUEST_MESSAGES: Final = "messages"
"""The model request's inputs as MLflow records them: ``{"messages": [...], "model_settings", ...}``."""
MESSAGE_KIND: Final = "kind"
MESSAGE_KIND_REQUEST: Final = "request"
MESSAGE_KIND_RESPONSE: Final = "response"
MESSAGE_PARTS: Final = "parts"
PART_KIND: Final = "part_kind"
PART_SYSTEM_PROMPT: Final = "system-prompt"
PART_USER_PROMPT: Final = "user-prompt"
PART_TEXT: Final = "text"
PART_TOOL_CALL: Final = "tool-call"
PART_TOOL_RETURN: Final = "tool-return"
PART_RETRY_PROMPT: Final = "retry-prompt"
"""A tool's ``ModelRetry``, its arguments' validation errors or an unknown tool, handed back to the model as the call's
result: ``content`` (a message, or a list of validation errors) then :data:`RETRY_PROMPT_SUFFIX`."""
PART_CONTENT: Final = "content"
PART_TOOL_NAME: Final = "tool_name"
PART_TOOL_CALL_ID: Final = "tool_call_id"
PART_ARGS: Final = "args"
"""A ``tool-call`` part's arguments: JSON text, or an object."""
RESPONSE_ID: Final = "provider_response_id"
