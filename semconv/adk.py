"""Google Agent Development Kit span attributes: the names we read.

Pinned to ``google-adk`` 2.13.0 (``google/adk/telemetry/{tracing,_instrumentation,node_tracing,_schema_version}.py``).
Schema v2 (default, ``otel_semconv_1_44``) spans are GenAI-shaped; legacy v1 (``otel_semconv_1_36``) spans add
the ``gcp.vertex.agent.*`` attributes below (some still written in v2).
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "gcp.vertex.agent"
"""Instrumentation scope (tracer) name of ADK's own spans."""
INVOCATION_ID: Final = "gcp.vertex.agent.invocation_id"
SESSION_ID: Final = "gcp.vertex.agent.session_id"
EVENT_ID: Final = "gcp.vertex.agent.event_id"
LLM_REQUEST: Final = "gcp.vertex.agent.llm_request"
"""JSON LlmRequest: ``{"model", "config", "contents": [{"role", "parts": [{"text"|"function_call"|"function_response"}]}]}``."""
LLM_RESPONSE: Final = "gcp.vertex.agent.llm_response"
"""JSON LlmResponse: ``{"content": {"role", "parts": [...]}, ...}``."""
TOOL_CALL_ARGS: Final = "gcp.vertex.agent.tool_call_args"
TOOL_RESPONSE: Final = "gcp.vertex.agent.tool_response"

MARKERS: Final = (INVOCATION_ID, EVENT_ID, LLM_REQUEST, LLM_RESPONSE, TOOL_CALL_ARGS, SESSION_ID)

# Gemini content parts inside llm_request / llm_response
CONTENTS: Final = "contents"
CONTENT: Final = "content"
PARTS: Final = "parts"
ROLE: Final = "role"
TEXT: Final = "text"
FUNCTION_CALL: Final = ("function_call", "functionCall")
FUNCTION_RESPONSE: Final = ("function_response", "functionResponse")
PART_ID: Final = "id"
PART_NAME: Final = "name"
PART_ARGS: Final = "args"
PART_RESPONSE: Final = "response"

LEGACY_INVOCATION_SPAN: Final = "invocation"
LEGACY_LLM_SPAN: Final = "call_llm"
INVOKE_AGENT_PREFIX: Final = "invoke_agent"
EXECUTE_TOOL_PREFIX: Final = "execute_tool"
MERGED_TOOLS_NAME: Final = "(merged tools)"
"""``gen_ai.tool.name`` of the span wrapping a parallel tool batch; each tool also has its own span."""
TRANSFER_TOOL_TYPE: Final = "TransferToAgentTool"
"""``gen_ai.tool.type`` of ADK's own agent-transfer tool (``transfer_to_agent``): the span of a handoff, typed as
such by ADK, as the OpenAI Agents SDK's transfer runs as its handoff span."""
