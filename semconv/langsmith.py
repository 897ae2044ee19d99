"""LangSmith's OTel spans (the ``langsmith`` SDK in OTel mode): the names we read.

Pinned to ``langsmith`` 0.15.1, ``langsmith/_internal/otel/_otel_exporter.py`` (``OTELExporter``): one span per
LangChain run, made after the fact from the run's post and patch operations (``_create_span_for_run``,
``_update_span_for_run``) with the tracer ``langsmith``. Attribute names are the module's constants
(``LANGSMITH_RUN_TYPE``, ``LANGSMITH_METADATA``, ``GENAI_PROMPT`` ...); message and result shapes are LangChain's
(``langchain_core.load.serializable`` constructor form, ``LLMResult``), as observed in
``corpus/traces/langsmith-langgraph`` (``corpus/NOTES-frameworks-s.md``).

Errors (``_create_span_for_run`` / ``_update_span_for_run``): a run with an ``error`` gets ``set_status(ERROR)`` and
``record_exception(Exception(run.error))``, always together, so every ``exception`` event is one write of the run's
error. The status of a span already set OK stays OK (OTel's API makes OK final): the event is then the only record.
``exception.type`` is always ``Exception``; the message is LangChain's run error, the original exception's repr
(``OpenAITimeoutError('Request timed out.')``) followed by its traceback.
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "langsmith"
"""Instrumentation scope of every span the exporter makes (``trace.get_tracer("langsmith", ...)``)."""

RUN_TYPE: Final = "langsmith.span.kind"
"""The run's type (``LANGSMITH_RUN_TYPE``), values ``RUN_*`` below; written on every post and patch."""
RUN_NAME: Final = "langsmith.trace.name"
"""The run's name (``LANGSMITH_NAME``); the span is named the same."""
METADATA_PREFIX: Final = "langsmith.metadata."
"""One attribute per key of the run's metadata (``LANGSMITH_METADATA``), the value as it is (strings, numbers,
bools; lists and dicts as JSON text, ``otel_safe_attribute_value``): LangGraph's ``langgraph_*`` run metadata (plain
values, not JSON-quoted), LangChain's ``ls_provider`` / ``ls_model_name``, langgraph-supervisor's
``__handoff_destination``."""
PROMPT: Final = "gen_ai.prompt"
"""The run's inputs as one JSON text (``GENAI_PROMPT``, ``_set_io_attributes``). ``llm`` runs of a chat model:
``{"messages": [[<message>, ...]]}`` in LangChain's constructor form; ``llm`` runs of ``wrap_openai``: the Chat
Completions request's keyword arguments (``{"messages": [<message dict>, ...], "model", "tools": [...]}``); ``tool``
runs: the call's arguments (``{"city": "Paris"}``); chains: the run's inputs."""
COMPLETION: Final = "gen_ai.completion"
"""The run's outputs as one JSON text (``GENAI_COMPLETION``). ``llm`` runs: LangChain's ``LLMResult``
(``{"generations": [[{"message": <AIMessage>, "generation_info": {...}}]], "llm_output": {...}}``); ``llm`` runs of
``wrap_openai``: the ``ChatCompletion`` as a dict (``{"id", "model", "choices": [{"message", "finish_reason"}]}``,
``usage`` moved to ``usage_metadata``); ``tool`` runs: ``{"output": <ToolMessage as a dict>}`` (a ``@traceable``
function's return value: ``{"output": <value>}``); ``{}`` on a failed chain or tool of LangChain's, ``{"output": null}``
on a failed ``@traceable`` function."""

RUN_LLM: Final = "llm"
RUN_TOOL: Final = "tool"
RUN_CHAIN: Final = "chain"
RUN_RETRIEVER: Final = "retriever"
RUN_EMBEDDING: Final = "embedding"
RUN_PROMPT: Final = "prompt"
"""A prompt-template run (``gen_ai.operation.name`` ``chat`` by the exporter's table, but it calls no model)."""
RUN_PARSER: Final = "parser"

METADATA_PROVIDER: Final = "ls_provider"
METADATA_MODEL_NAME: Final = "ls_model_name"

# LangChain serialization (langchain_core.load.serializable: to_json) and LLMResult, as the exporter dumps them.
LC_ID: Final = "id"
"""Constructor form: the class path, its last item the class name (``MESSAGE_ROLES``)."""
LC_KWARGS: Final = "kwargs"
MESSAGE_ROLES: Final = {
    "SystemMessage": "system",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "ToolMessage": "tool",
    "SystemMessageChunk": "system",
    "HumanMessageChunk": "user",
    "AIMessageChunk": "assistant",
    "ToolMessageChunk": "tool",
}
"""LangChain message classes -> Chat Completions roles."""
INPUT_MESSAGES: Final = "messages"
"""Chat model input: a list of message lists (one per prompt of the batch)."""
OUTPUT_GENERATIONS: Final = "generations"
"""``LLMResult.generations``: a list (per prompt) of lists of generations."""
GENERATION_MESSAGE: Final = "message"
GENERATION_INFO: Final = "generation_info"
FINISH_REASON: Final = "finish_reason"
LLM_OUTPUT: Final = "llm_output"
LLM_OUTPUT_ID: Final = "id"
"""The provider's response id (``chatcmpl-...``)."""
LLM_OUTPUT_MODEL: Final = "model_name"
"""The model that answered (``gpt-4o-mini-2024-07-18``)."""
MESSAGE_CONTENT: Final = "content"
MESSAGE_TOOL_CALLS: Final = "tool_calls"
"""``ToolCall`` dicts ``{"name", "args": {...}, "id", "type": "tool_call"}``."""
MESSAGE_INVALID_TOOL_CALLS: Final = "invalid_tool_calls"
"""``InvalidToolCall`` dicts (``args`` the unparsed text)."""
MESSAGE_TOOL_CALL_ID: Final = "tool_call_id"
TOOL_OUTPUT: Final = "output"
"""A tool run's outputs: ``{"output": <ToolMessage dict or Command dict>}``."""

# The OpenAI Chat Completions shapes `langsmith.wrappers.wrap_openai` records (wrappers/_openai.py: the request's keyword
# arguments as inputs, `_process_chat_completion`'s `ChatCompletion.model_dump()` as outputs).
MESSAGE_ROLE: Final = "role"
"""A Chat Completions message dict's role: a message carrying one is already in the shape the mapping reads."""
INPUT_TOOLS: Final = "tools"
"""The request's offered tools (``{"type": "function", "function": {"name", ...}}``); ``wrap_openai`` leaves them out
of the invocation parameters the exporter turns into ``gen_ai.tool.definitions``."""
OUTPUT_CHOICES: Final = "choices"
CHOICE_MESSAGE: Final = "message"
RESPONSE_ID: Final = "id"
RESPONSE_MODEL: Final = "model"
