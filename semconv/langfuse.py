"""Langfuse's own span attributes (``langfuse.*``): the names we read.

Pinned to the ``langfuse`` Python SDK 5.0.4: attribute names in ``langfuse/_client/attributes.py``
(``LangfuseOtelSpanAttributes``), observation types in ``langfuse/_client/constants.py``, the LangChain integration in
``langfuse/langchain/CallbackHandler.py`` (one observation per LangChain run, named after the run) and its usage
conversion in ``langfuse/langchain/utils.py`` (``_parse_usage_model``). Spans come from the tracer ``langfuse-sdk``.

Value formats (``attributes.py``): input, output, usage and model parameters are JSON text, except a string input or
output, written as it is (``_serialize``); metadata is flattened, one attribute per key
(``langfuse.observation.metadata.<key>``), each value JSON-encoded, strings included (``"agent"`` with the quotes,
``_serialize_metadata_value``); LangChain run metadata (LangGraph's ``langgraph_*`` keys) and, on tool runs, the
callback's keyword arguments (``tool_call_id``) arrive that way. An observation of level ``ERROR`` also sets the
OTel status ERROR with the status message as its description (``span.py``, ``_set_otel_span_status_if_error``).
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "langfuse-sdk"
"""Instrumentation scope of every Langfuse observation span (``constants.py``, ``LANGFUSE_TRACER_NAME``)."""

OBSERVATION_TYPE: Final = "langfuse.observation.type"
"""The observation's type (values below); present on every observation span Langfuse writes: the reader's marker."""
OBSERVATION_INPUT: Final = "langfuse.observation.input"
"""JSON text of the input (a string input as it is). Generations of the LangChain handler: the chat messages as
dicts (``_convert_message_to_dict``), followed by the offered tools as extra ``{"role": "tool", "content": <tool
definition>}`` entries (``__on_llm_action``); tools: the call's arguments (``inputs``), else LangChain's
``input_str``; chains: the run's inputs."""
OBSERVATION_OUTPUT: Final = "langfuse.observation.output"
"""JSON text of the output (absent on failed runs). Generations: one assistant message dict; tools: the returned
``ToolMessage`` (``tool_call_id``, ``status``) or a LangGraph ``Command``."""
OBSERVATION_METADATA: Final = "langfuse.observation.metadata"
"""Prefix of the flattened metadata: ``langfuse.observation.metadata.<key>``, each value JSON text."""
OBSERVATION_LEVEL: Final = "langfuse.observation.level"
"""``DEBUG`` / ``DEFAULT`` / ``WARNING`` / ``ERROR`` (``langfuse/types.py``, ``SpanLevel``)."""
OBSERVATION_STATUS_MESSAGE: Final = "langfuse.observation.status_message"
"""The error text of a failed run (``str(error)``); for LangGraph's control-flow exceptions (``GraphBubbleUp``,
e.g. a handoff's ``ParentCommand``) the ``Command(...)`` repr at level ``DEFAULT``."""
OBSERVATION_MODEL: Final = "langfuse.observation.model.name"
"""Generations: the model (the response's model name once the call ended, else the request's)."""
OBSERVATION_USAGE_DETAILS: Final = "langfuse.observation.usage_details"
"""Generations: JSON object of token counts (``USAGE_*`` keys)."""

# Observation types (constants.py: ObservationTypeGenerationLike, ObservationTypeSpanLike, and "event")
TYPE_GENERATION: Final = "generation"
TYPE_EMBEDDING: Final = "embedding"
TYPE_SPAN: Final = "span"
TYPE_AGENT: Final = "agent"
"""The LangChain handler types a chain run ``agent`` when its serialized class path or its name contains "agent"
(``_get_observation_type_from_serialized``): a name heuristic, not a statement that the run is an agent."""
TYPE_TOOL: Final = "tool"
TYPE_CHAIN: Final = "chain"
TYPE_RETRIEVER: Final = "retriever"
TYPE_EVALUATOR: Final = "evaluator"
TYPE_GUARDRAIL: Final = "guardrail"
TYPE_EVENT: Final = "event"

LEVEL_ERROR: Final = "ERROR"

# usage_details keys (utils.py, _parse_usage_model)
USAGE_INPUT: Final = "input"
"""Input tokens less every input detail below (cached, audio ...): Langfuse subtracts each ``input_<detail>``."""
USAGE_OUTPUT: Final = "output"
"""Output tokens less every ``output_<detail>`` (reasoning, audio ...)."""
USAGE_INPUT_DETAIL_PREFIX: Final = "input_"
USAGE_OUTPUT_DETAIL_PREFIX: Final = "output_"
USAGE_NOT_SUBTRACTED: Final = "priority"
"""Detail keys whose name (after the prefix) starts so are not subtracted (priority tiers are no sub-category)."""
USAGE_CACHE_READ: Final = ("input_cache_read", "input_cached_tokens")
"""Cached input tokens: LangChain's ``input_token_details.cache_read``, OpenAI's ``prompt_tokens_details
.cached_tokens``."""
USAGE_OPENAI_INPUT: Final = "prompt_tokens"
USAGE_OPENAI_OUTPUT: Final = "completion_tokens"
USAGE_OPENAI_INPUT_DETAILS: Final = "prompt_tokens_details"
USAGE_OPENAI_CACHED: Final = "cached_tokens"
"""An OpenAI usage object of exactly its own keys is passed through unconverted (``_parse_usage_model``)."""

# Message dicts (CallbackHandler._convert_message_to_dict; langfuse/openai.py for the OpenAI integration)
ROLE_TOOL: Final = "tool"
MESSAGE_ROLE: Final = "role"
MESSAGE_CONTENT: Final = "content"
MESSAGE_TOOL_CALL_ID: Final = "tool_call_id"
MESSAGE_TOOL_CALLS: Final = "tool_calls"
"""LangChain ``ToolCall`` dicts ``{"name", "args": {...}, "id", "type": "tool_call"}``; the OpenAI integration
writes Chat Completions calls ``{"id", "function": {"name", "arguments"}}``."""
MESSAGE_INVALID_TOOL_CALLS: Final = "invalid_tool_calls"
"""LangChain ``InvalidToolCall`` dicts (``args`` the unparsed text): calls the model made that did not parse."""
INPUT_MESSAGES: Final = "messages"
INPUT_TOOLS: Final = "tools"
"""The OpenAI integration's generation input when tools are offered: ``{"messages": [...], "tools": [...]}``
(``openai.py``, ``_extract_chat_prompt``)."""

# Metadata keys (suffixes of OBSERVATION_METADATA)
METADATA_TOOL_CALL_ID: Final = "tool_call_id"
"""Tool runs: the model's call id (LangChain passes it to ``on_tool_start``; the handler adds the keyword arguments
to the metadata)."""
METADATA_PROVIDER: Final = "ls_provider"
"""LangChain's ``ls_provider`` run metadata of a chat model (``openai`` ...)."""
