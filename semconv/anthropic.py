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
