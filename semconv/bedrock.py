"""Amazon Bedrock Converse API request and response fields: the names we read.

Pinned to the Converse API as boto3 / botocore 1.44 model it (``bedrock-runtime`` ``converse``): a call's keyword
arguments as an instrumentation records them (``{"modelId", "system": [{"text"}], "messages": [{"role", "content":
[...]}], "toolConfig", "inferenceConfig"}``) and its response (``{"output": {"message": {"role": "assistant",
"content": [...]}}, "stopReason", "usage": {"inputTokens", "outputTokens", "totalTokens"}, "ResponseMetadata"}``).
Content blocks are ``{"text"}``, ``{"toolUse": {"toolUseId", "name", "input"}}`` and, in a user message,
``{"toolResult": {"toolUseId", "content": [{"text"} | {"json"}], "status": "success" | "error"}}``: the block names
of :mod:`semconv.strands`, whose events write the same blocks.
"""

from __future__ import annotations

from typing import Final

REQUEST_MESSAGES: Final = "messages"
"""A ``converse`` request's conversation: ``{"role": "user" | "assistant", "content": [blocks]}``."""
REQUEST_SYSTEM: Final = "system"
"""A ``converse`` request's system prompt: a list of ``{"text"}`` blocks."""
RESPONSE_OUTPUT: Final = "output"
"""A ``converse`` response's output: ``{"message": {...}}``."""
OUTPUT_MESSAGE: Final = "message"
"""The output's assistant message."""
ROLE: Final = "role"
CONTENT: Final = "content"
BLOCK_JSON: Final = "json"
"""A ``toolResult`` content item holding a JSON value instead of text."""
