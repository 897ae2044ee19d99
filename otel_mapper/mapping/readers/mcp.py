"""Reader for Model Context Protocol spans (OTel MCP semantic conventions; names in :mod:`semconv.mcp`).

Pinned to ``docs/gen-ai/mcp.md`` of semantic-conventions-genai and the spans ``mcp`` 2.3 (Python SDK) emits: a
CLIENT span ``MCP send tools/call <tool>`` that carries only ``mcp.method.name`` and ``jsonrpc.request.id``, and
the SERVER span ``tools/call <tool>`` under it (context travels in ``params._meta``) with ``gen_ai.operation.name
= execute_tool`` and ``gen_ai.tool.name``. Both are read as the tool execution they describe, keyed by the JSON-RPC
request (and session) id, so the mapper merges them into one node (the server's) hung where the client span was.
Other methods (``initialize``, ``tools/list``, ``server/discover``, ...) are ``other`` nodes. Everything GenAI-shaped
is read through :func:`fill_genai_facts`.
"""

from __future__ import annotations

from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation
from otel_mapper.mapping.spans import SpanView
from semconv import genai, mcp
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "MCPReader"]

CONVENTION: Final = "otel_mcp"


def _span_tool_name(name: str) -> str | None:
    if name.startswith(mcp.CLIENT_SPAN_PREFIX):
        name = name[len(mcp.CLIENT_SPAN_PREFIX):]
    if name.startswith(mcp.TOOLS_CALL_SPAN_PREFIX):
        return clean_name(name[len(mcp.TOOLS_CALL_SPAN_PREFIX):])
    return None


class MCPReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({mcp.METHOD_NAME})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset()

    def claims(self, view: SpanView) -> bool:
        return mcp.METHOD_NAME in view.attrs

    def read(self, view: SpanView) -> SpanFacts:
        operation = view.str_attr(genai.OPERATION_NAME)
        method = view.str_attr(mcp.METHOD_NAME)
        if operation:
            kind = kind_of_operation(operation)
        else:
            kind = NodeKind.TOOL_EXECUTION if method == mcp.METHOD_TOOLS_CALL else NodeKind.OTHER
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        if kind is NodeKind.TOOL_EXECUTION:
            facts.tool_name = clean_name(view.str_attr(genai.TOOL_NAME)) or _span_tool_name(view.name)
        fill_genai_facts(view, facts)
        return facts
