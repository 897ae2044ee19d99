"""Anthropic Messages API response fields: the names we read.

Pinned to the Messages API as the ``anthropic`` Python SDK models it (``anthropic.types.Message``, 0.73 to 2.x): a
response as an instrumentation records it (``model_dump_json``): ``{"id", "type": "message", "role": "assistant",
"content": [...], "model", "stop_reason", "usage"}``, its content a list of blocks: ``{"type": "text", "text"}`` and
``{"type": "tool_use", "id", "name", "input"}`` (the call's id, ``toolu_...``, which the app returns in a
``tool_result`` block's ``tool_use_id``).
"""

from __future__ import annotations

from typing import Final

MESSAGE_TYPE: Final = "type"
"""The response object's type (and a content block's)."""
MESSAGE_TYPE_VALUE: Final = "message"
"""``type`` of a Messages API response."""
CONTENT: Final = "content"
"""The response's content blocks, in order."""
BLOCK_TOOL_USE: Final = "tool_use"
"""``type`` of a content block that calls a tool."""
BLOCK_ID: Final = "id"
"""A ``tool_use`` block's call id."""
BLOCK_NAME: Final = "name"
"""A ``tool_use`` block's tool name."""
BLOCK_TEXT: Final = "text"
"""``type`` of a text content block, and the block's field holding the text."""
BLOCK_INPUT: Final = "input"
"""A ``tool_use`` block's arguments, a JSON object."""
BLOCK_TOOL_RESULT: Final = "tool_result"
"""``type`` of a content block (in a request's user message) that returns a tool's result."""
BLOCK_TOOL_USE_ID: Final = "tool_use_id"
"""A ``tool_result`` block's call id: the ``id`` of the ``tool_use`` block it answers."""
BLOCK_CONTENT: Final = "content"
"""A ``tool_result`` block's result: a string, or a list of content blocks."""
ROLE: Final = "role"
"""A message's role: ``user`` or ``assistant`` (a system prompt is the request's ``system``, not a message)."""
RESPONSE_ID: Final = "id"
"""The response's id (``msg_...``)."""
REQUEST_MESSAGES: Final = "messages"
"""A ``messages.create`` request's conversation: ``{"role", "content"}`` messages, content a string or blocks."""
REQUEST_SYSTEM: Final = "system"
"""A ``messages.create`` request's system prompt: a string, or a list of text blocks."""
