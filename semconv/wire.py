"""Provider and framework message shapes as clients and frameworks serialise them: the names a model call's request or
response is recognised by wherever a span holds it (:mod:`otel_mapper.mapping.wire_payloads`).

Each shape is pinned to the API or SDK model it comes from:

- OpenAI Chat Completions: a request ``{"messages": [...]}``, a response ``{"choices": [{"message": {...}}]}``; a
  message ``{"role", "content", "tool_calls": [{"id", "function": {"name", "arguments"}}], "tool_call_id"}``.
- OpenAI Responses: a request ``{"input": [items]}``, a response ``{"object": "response", "output": [items]}``; items
  ``{"type": "message", "role", "content": [{"type": "output_text" | "input_text", "text"}]}``, ``{"type":
  "function_call", "call_id", "name", "arguments"}``, ``{"type": "function_call_output", "call_id", "output"}``.
- Anthropic Messages, Bedrock Converse, Gemini ``generate_content``, Pydantic AI messages: their own modules in
  :mod:`semconv` (``anthropic``, ``bedrock``, ``google_genai``, ``pydantic_ai``).
- LangChain messages as ``dumpd`` or ``model_dump`` writes them: ``{"lc": 1, "type": "constructor", "id": [...,
  "AIMessage"], "kwargs": {...}}`` or ``{"type": "ai" | "human" | "system" | "tool", "content", "tool_calls": [{"name",
  "args", "id"}], "tool_call_id"}``; a chat model's result ``{"generations": [[{"message": {...}}]]}``; older
  messages keep OpenAI's calls in ``additional_kwargs``.
- LlamaIndex ``ChatMessage`` (``{"role", "content" | "blocks": [{"block_type": "text", "text"}], "additional_kwargs":
  {"tool_calls", "tool_call_id"}}``) and ``ChatResponse`` (``{"message": {...}, "raw": ...}``); Ollama's chat response
  has the same ``message``.
"""

from __future__ import annotations

from typing import Final

ROLE: Final = "role"
CONTENT: Final = "content"
PARTS: Final = "parts"
"""A message's parts: Gemini ``Content`` parts, or parts of the GenAI parts schema (those have a ``type``)."""
TOOL_CALLS: Final = "tool_calls"
INVALID_TOOL_CALLS: Final = "invalid_tool_calls"
TOOL_CALL_ID: Final = "tool_call_id"
ADDITIONAL_KWARGS: Final = "additional_kwargs"
"""LangChain's and LlamaIndex's provider-specific message fields (older LangChain and LlamaIndex keep OpenAI's
``tool_calls`` and ``tool_call_id`` there)."""

REQUEST_MESSAGES: Final = "messages"
RESPONSE_CHOICES: Final = "choices"
CHOICE_MESSAGE: Final = "message"
"""A Chat Completions choice's message, and the assistant message of a LlamaIndex or Ollama chat response."""

RESPONSES_REQUEST_INPUT: Final = "input"
RESPONSES_OBJECT: Final = "object"
RESPONSES_OBJECT_VALUE: Final = "response"
RESPONSES_OUTPUT: Final = "output"
ITEM_TYPE: Final = "type"
ITEM_MESSAGE: Final = "message"
ITEM_FUNCTION_CALL: Final = "function_call"
ITEM_FUNCTION_CALL_OUTPUT: Final = "function_call_output"
ITEM_CALL_ID: Final = "call_id"
ITEM_NAME: Final = "name"
ITEM_ARGUMENTS: Final = "arguments"
ITEM_OUTPUT: Final = "output"
TEXT_BLOCK_TYPES: Final = frozenset({"text", "output_text", "input_text"})
"""``type`` of a content block holding text (Chat Completions parts, Responses items, Anthropic blocks)."""
BLOCK_TEXT: Final = "text"

LANGCHAIN_MARKER: Final = "lc"
LANGCHAIN_ID: Final = "id"
LANGCHAIN_KWARGS: Final = "kwargs"
LANGCHAIN_TYPE: Final = "type"
LANGCHAIN_ROLES: Final = {"ai": "assistant", "human": "user", "system": "system", "tool": "tool"}
"""A LangChain message's ``type`` and the role it stands for."""
LANGCHAIN_CLASS_ROLES: Final = {
    "AIMessage": "assistant", "AIMessageChunk": "assistant", "HumanMessage": "user", "SystemMessage": "system",
    "ToolMessage": "tool",
}
"""A serialised LangChain message's class (last entry of its ``id``) and the role it stands for."""
GENERATIONS: Final = "generations"
GENERATION_MESSAGE: Final = "message"

LLAMA_INDEX_BLOCKS: Final = "blocks"
LLAMA_INDEX_BLOCK_TYPE: Final = "block_type"

MODEL_ROLE: Final = "model"
"""Gemini's role for the model's turns (the assistant's)."""
ASSISTANT_ROLES: Final = frozenset({"assistant", "model", "ai"})
