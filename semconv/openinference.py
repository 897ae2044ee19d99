"""OpenInference (Arize / Phoenix) span attributes: the names we read.

Pinned to ``openinference-semantic-conventions`` 0.1.42 (``openinference/semconv/trace/__init__.py``) and the
``Arize-ai/openinference`` spec at ``1fe497f1`` (``spec/semantic_conventions.md``, ``spec/tool_calling.md``);
span shapes of ``openinference-instrumentation-openai`` 0.1.66, ``-openai-agents`` 2.6.0, ``-langchain`` 0.1.80.
Lists of objects are flattened: ``<prefix>.<N>.<suffix>``.
"""

from __future__ import annotations

from typing import Final

SPAN_KIND: Final = "openinference.span.kind"
"""Required marker on every OpenInference span (values :data:`KIND_LLM` ...)."""

KIND_LLM: Final = "LLM"
KIND_EMBEDDING: Final = "EMBEDDING"
KIND_CHAIN: Final = "CHAIN"
KIND_RETRIEVER: Final = "RETRIEVER"
KIND_RERANKER: Final = "RERANKER"
KIND_TOOL: Final = "TOOL"
KIND_AGENT: Final = "AGENT"
KIND_GUARDRAIL: Final = "GUARDRAIL"
KIND_EVALUATOR: Final = "EVALUATOR"
KIND_PROMPT: Final = "PROMPT"
KIND_DECISION: Final = "DECISION"
KIND_UNKNOWN: Final = "UNKNOWN"

INPUT_VALUE: Final = "input.value"
INPUT_MIME_TYPE: Final = "input.mime_type"
OUTPUT_VALUE: Final = "output.value"
OUTPUT_MIME_TYPE: Final = "output.mime_type"
MIME_JSON: Final = "application/json"
METADATA: Final = "metadata"
"""JSON string of user metadata (LangChain run metadata, incl. LangGraph keys)."""
AGENT_NAME: Final = "agent.name"
GRAPH_NODE_ID: Final = "graph.node.id"
GRAPH_NODE_NAME: Final = "graph.node.name"
GRAPH_NODE_PARENT_ID: Final = "graph.node.parent_id"
SESSION_ID: Final = "session.id"

LLM_MODEL_NAME: Final = "llm.model_name"
LLM_INVOCATION_PARAMETERS: Final = "llm.invocation_parameters"
"""The request's settings as JSON (Google ADK's include the system instruction)."""
LLM_REQUEST_MODEL_NAME: Final = "llm.request.model_name"
LLM_RESPONSE_MODEL_NAME: Final = "llm.response.model_name"
LLM_PROVIDER: Final = "llm.provider"
LLM_SYSTEM: Final = "llm.system"
LLM_FINISH_REASON: Final = "llm.finish_reason"
LLM_TOKEN_COUNT_PROMPT: Final = "llm.token_count.prompt"
LLM_TOKEN_COUNT_COMPLETION: Final = "llm.token_count.completion"
LLM_TOKEN_COUNT_TOTAL: Final = "llm.token_count.total"
LLM_TOKEN_COUNT_CACHE_READ: Final = "llm.token_count.prompt_details.cache_read"
"""Prompt tokens served from the provider's cache (part of :data:`LLM_TOKEN_COUNT_PROMPT`)."""

LLM_PREFIX: Final = "llm."
"""Namespace of LLM attributes (a cheap first filter when scanning keys)."""
LLM_INPUT_MESSAGES: Final = "llm.input_messages."
"""Prefix of flattened input messages: ``llm.input_messages.N.message.<field>``."""
LLM_OUTPUT_MESSAGES: Final = "llm.output_messages."
"""Prefix of flattened output messages."""
LLM_TOOLS: Final = "llm.tools."
"""Prefix of advertised tools: ``llm.tools.N.tool.json_schema``."""
TOOL_JSON_SCHEMA_SUFFIX: Final = "tool.json_schema"

# Suffixes inside one flattened message (after ``llm.{input,output}_messages.N.``)
MESSAGE_ROLE: Final = "message.role"
MESSAGE_CONTENT: Final = "message.content"
MESSAGE_NAME: Final = "message.name"
MESSAGE_TOOL_CALL_ID: Final = "message.tool_call_id"
MESSAGE_TOOL_CALLS: Final = "message.tool_calls"
"""``message.tool_calls.M.tool_call.{id,function.name,function.arguments}``."""
TOOL_CALL_ID_SUFFIX: Final = "tool_call.id"
TOOL_CALL_NAME_SUFFIX: Final = "tool_call.function.name"
TOOL_CALL_ARGUMENTS_SUFFIX: Final = "tool_call.function.arguments"
MESSAGE_FUNCTION_RESULT_PREFIX: Final = "function."
"""Tool results of one message as JSON objects, ``llm.input_messages.N.function.K`` = ``{"name", "content", "call_id",
"is_error"}``: AutoGen's ``FunctionExecutionResultMessage`` under ``openinference-instrumentation-autogen-agentchat``
0.1.22 (``_llm_messages_attributes``; the message's role is ``function``, and it has no ``message.tool_call_id``)."""
FUNCTION_RESULT_CALL_ID: Final = "call_id"
FUNCTION_RESULT_CONTENT: Final = "content"

TOOL_NAME: Final = "tool.name"
TOOL_ID: Final = "tool.id"
"""Id of the tool call a TOOL span executes (some instrumentations write :data:`TOOL_CALL_ID` instead)."""
TOOL_CALL_ID: Final = "tool_call.id"
TOOL_CALL_FUNCTION_NAME: Final = "tool_call.function.name"
TOOL_CALL_FUNCTION_ARGUMENTS: Final = "tool_call.function.arguments"

REDACTED: Final = "__REDACTED__"
"""Literal value of a hidden attribute (``OPENINFERENCE_HIDE_*``)."""

HANDOFF_SPAN_PREFIX: Final = "handoff to "
"""OpenAI Agents SDK handoff spans, exported as TOOL spans named ``handoff to {to_agent}`` with
``input.value`` = from agent and ``output.value`` = to agent (``openinference-instrumentation-openai-agents``); the
JavaScript instrumentation writes the two as JSON objects (below)."""

HANDOFF_FROM_KEY: Final = "from_agent"
"""Key of the JavaScript instrumentation's handoff ``input.value``, ``{"from_agent": <name>}``
(``@arizeai/openinference-instrumentation-openai-agents``)."""

HANDOFF_TO_KEY: Final = "to_agent"
"""Key of the JavaScript instrumentation's handoff ``output.value``, ``{"to_agent": <name>}``."""

HANDOFF_TOOL_LABEL_PREFIX: Final = "handoff_to_"
"""The JavaScript instrumentation's ``tool.name`` on a handoff span, ``handoff_to_`` + the target agent's name: its
own label, not the tool the model called (the SDK's handoff tool is ``transfer_to_<agent>`` unless renamed)."""

SMOLAGENTS_STEP_RECOVERY_EVENT: Final = "agent.step_recovery"
"""Event ``openinference-instrumentation-smolagents`` adds to an OK step span for an expected tool error (attributes:
the error's ``dict()``, e.g. ``message``, and ``severity=expected``): an unknown tool shows up here."""
SMOLAGENTS_TOOL_SPAN_NAME: Final = "SimpleTool"
"""Span name of every ``@tool`` function under smolagents (the class name); the real name is in ``tool.name``."""
EVENT_MESSAGE: Final = "message"
MESSAGE_CONTENTS_PREFIX: Final = "message.contents."
"""Multimodal content list of a flattened message: ``message.contents.K.message_content.{type,text,...}``."""
MESSAGE_CONTENT_TEXT_SUFFIX: Final = "message_content.text"
MIME_TEXT: Final = "text/plain"
LANGCHAIN_TOOL_MESSAGE_TYPE: Final = "tool"
"""``type`` of a LangChain ``ToolMessage`` dumped into a tool span's ``output.value``."""
LANGCHAIN_TOOL_CALL_ID: Final = "tool_call_id"
LANGCHAIN_SCOPE_NAME: Final = "openinference.instrumentation.langchain"
"""Scope of OpenInference's LangChain instrumentation (its tracer's spans, one per LangChain run)."""
LANGCHAIN_SERIALIZED_KWARGS: Final = "kwargs"
"""LangChain's serialised form ``{"lc": 1, "type": "constructor", "id": [..., "ToolMessage"], "kwargs": {...}}``."""
LANGCHAIN_MESSAGE_DATA: Final = "data"
"""LangChain's message dict form (``message_to_dict``): ``{"type": "tool", "data": {..., "tool_call_id": ...}}``."""
LANGCHAIN_RESPONSE_METADATA: Final = "response_metadata"
"""A LangChain ``AIMessage``'s provider fields, in a chat-model run's recorded output (``output.value``)."""
BEDROCK_CONVERSE_STOP_REASON: Final = "stopReason"
"""The Bedrock Converse API's finish reason (``tool_use``, ``end_turn``, ``max_tokens``, ...), kept under its own name in
the ``response_metadata`` of langchain-aws's ``ChatBedrockConverse``; the instrumentation's ``llm.finish_reason`` reads
only ``finish_reason`` and ``stop_reason`` there."""
