"""OpenAI Agents SDK spans as its instrumentations export them: the names we read.

Pinned to ``openai-agents`` 0.24.0 (``agents/tracing/span_data.py``) as exported by
``opentelemetry-instrumentation-openai-agents-v2`` 0.1.0 (OTel contrib, GenAI-shaped),
``openinference-instrumentation-openai-agents`` 2.6.0 (see :mod:`semconv.openinference`) and
``opentelemetry-instrumentation-openai-agents`` 0.62.4 (OpenLLMetry, see :mod:`semconv.openllmetry`).
"""

from __future__ import annotations

from typing import Final

OPERATION_AGENT_HANDOFF: Final = "agent_handoff"
"""Contrib ``gen_ai.operation.name`` of handoff spans (``agent_handoff {agent}``)."""
OPERATION_GUARDRAIL_CHECK: Final = "guardrail_check"
OPERATION_HANDOFF: Final = "handoff"
"""OpenLLMetry ``gen_ai.operation.name`` of handoff spans."""
CONTRIB_OPERATIONS: Final = frozenset({OPERATION_AGENT_HANDOFF, OPERATION_GUARDRAIL_CHECK})

ORCHESTRATOR_AGENT_DEFINITIONS: Final = "gen_ai.orchestrator.agent.definitions"
GUARDRAIL_NAME: Final = "gen_ai.guardrail.name"
GUARDRAIL_TRIGGERED: Final = "gen_ai.guardrail.triggered"

DEFAULT_AGENT_NAME: Final = "OpenAI Agent"
"""Contrib 0.1.0 writes this default instead of the real agent name on chat / tool / handoff spans."""

CONTRIB_SCOPE_NAME: Final = "opentelemetry.instrumentation.openai_agents"
"""Instrumentation scope of the contrib instrumentation (OpenLLMetry's uses the same module path and name; its
spans carry ``traceloop.*`` markers and are read first)."""

DEFAULT_HANDOFF_TOOL_PREFIX: Final = "transfer_to_"
"""The SDK names a handoff's tool ``transfer_to_{agent name in function style}`` unless overridden
(``agents/handoffs.py`` ``Handoff.default_tool_name``)."""

CHAT_TOOL_CALLS: Final = "tool_calls"
CHAT_TOOL_CALL_ID: Final = "id"
CHAT_FUNCTION: Final = "function"
CHAT_FUNCTION_NAME: Final = "name"
CHAT_FUNCTION_ARGUMENTS: Final = "arguments"
CHAT_CONTENT: Final = "content"
"""Chat Completions message fields: contrib 0.1.0 writes the ``repr`` of such a message dict as the text of the
output message of tool-calling chat spans (observed, corpus README)."""

# A streamed Chat Completions call (``OpenAIChatCompletionsModel.stream_response``): the SDK assembles the stream into a
# Responses API ``Response`` and sets its generation span's output to ``[response.model_dump()]``
# (``agents/models/_trace.py`` ``populate_generation_span``), not the chat message of an unstreamed call; OpenInference
# 2.6.0 writes it as ``output.value`` and, finding no ``role``, no ``llm.output_messages``.
RESPONSE_OBJECT: Final = "object"
RESPONSE_OBJECT_VALUE: Final = "response"
"""``{"id", "object": "response", "output": [items], ...}``: the Responses API's response object."""
RESPONSE_OUTPUT: Final = "output"
RESPONSE_ITEM_TYPE: Final = "type"
RESPONSE_ITEM_MESSAGE: Final = "message"
"""``{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text"}]}``."""
RESPONSE_ITEM_CONTENT: Final = "content"
RESPONSE_TEXT_TYPE: Final = "output_text"
RESPONSE_TEXT: Final = "text"
RESPONSE_ITEM_FUNCTION_CALL: Final = "function_call"
"""``{"type": "function_call", "call_id", "name", "arguments"}``; ``id`` is the SDK's placeholder ``__fake_id__``."""
RESPONSE_CALL_ID: Final = "call_id"
RESPONSE_CALL_NAME: Final = "name"
RESPONSE_CALL_ARGUMENTS: Final = "arguments"
EMPTY_ARGUMENTS: Final = "{}"
"""OpenInference leaves a tool call's arguments out when they are ``{}`` (``_get_attributes_from_chat_completions_tool
_call_dict``): so does the output read from a response object, to digest as the replayed call does."""
