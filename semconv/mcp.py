"""Model Context Protocol spans (OTel MCP semantic conventions, ``docs/gen-ai/mcp.md`` in semantic-conventions-genai):
the names we read.

Spans ``{mcp.method.name} {target}``: CLIENT on the caller, SERVER on the server, the server span a child of the
client span across processes (trace context travels in ``params._meta``). ``tools/call`` spans also carry
``gen_ai.operation.name = execute_tool`` and ``gen_ai.tool.*``, so one call is two tool spans, nested; both carry
the JSON-RPC request id (and, before the 2026-07-28 protocol revision, the session id).
"""

from __future__ import annotations

from typing import Final

METHOD_NAME: Final = "mcp.method.name"
SESSION_ID: Final = "mcp.session.id"
PROTOCOL_VERSION: Final = "mcp.protocol.version"
JSONRPC_REQUEST_ID: Final = "jsonrpc.request.id"
METHOD_TOOLS_CALL: Final = "tools/call"
TOOLS_CALL_SPAN_PREFIX: Final = "tools/call "
"""``{mcp.method.name} {target}``: the tool's name follows the method in the span name."""
CLIENT_SPAN_PREFIX: Final = "MCP send "
"""Span-name prefix of the Python SDK's (mcp 2.x) CLIENT spans, which carry no ``gen_ai.*`` attribute."""
