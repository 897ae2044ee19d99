"""OpenLLMetry's MCP instrumentation (``opentelemetry-instrumentation-mcp`` 0.62.4): the tool call record.

The instrumentation opens a TOOL span ``<tool>.tool`` around each ``tools/call`` request an MCP client sends, with
``traceloop.entity.input`` ``{"tool_name": <tool>, "arguments": {...}}`` (the request's name and arguments), not the
decorators' ``{"args": [], "kwargs": {...}}`` call record. The arguments inside it are what the model proposed, so they
are the side of the (tool name, arguments) join the execution gives; the name must be the span's own tool, else the
record is left as recorded.
"""

from __future__ import annotations

from otel_mapper.otlp.anyvalue import Decoded
from semconv import openllmetry as tl

__all__ = ["mcp_call_arguments"]

_RECORD_KEYS = frozenset({tl.MCP_CALL_TOOL_NAME, tl.MCP_CALL_ARGUMENTS})


def mcp_call_arguments(record: Decoded, tool_name: str | None) -> Decoded:
    """The arguments of an MCP ``tools/call`` record naming ``tool_name``, else ``record`` unchanged.

    A request sent without arguments (``null``) is the empty argument object a model proposes for such a call."""
    if not isinstance(record, dict) or set(record) != _RECORD_KEYS or tool_name is None:
        return record
    if record[tl.MCP_CALL_TOOL_NAME] != tool_name:
        return record
    arguments = record[tl.MCP_CALL_ARGUMENTS]
    if arguments is None:
        return {}
    return arguments if isinstance(arguments, dict) else record
