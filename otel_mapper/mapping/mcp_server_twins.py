"""An in-process MCP server's span of a tool call that a tool span beside it records as well.

The Claude Agent SDK (``claude-agent-sdk`` 0.2.190) serves the tools of an SDK MCP server (``create_sdk_mcp_server``)
inside the app, and the Claude Code CLI calls them over the SDK's control channel, which carries no trace context. The
``mcp`` SDK (2.3) opens its SERVER span ``tools/call <tool>`` (``gen_ai.tool.name``, ``jsonrpc.request.id``; no call
id, no arguments) under whatever span is current in the app: the instrumented run (OpenInference's
``ClaudeAgentSDK.query``). The instrumentation records the same call as a TOOL span ``mcp__<server>__<tool>`` from the
CLI's tool hooks (tool-use id, arguments, result, failure), a sibling of the server span, not its parent. Read as they
are, each call would run twice; nothing but time pairs a server span with its tool span once a tool is called twice.

A SERVER span read as a tool execution whose parent is no tool execution (no MCP client span sent it: such a pair is
one run by :mod:`otel_mapper.mapping.nested_runs`) is read as ``other`` when there are under its parent (directly, or
deeper: a subagent's tool spans hang under the subagent's run, the server spans under the outer run), read with another
convention, tool executions whose own name (:func:`~otel_mapper.mapping.tool_names.local_name`) is the server span's
tool: at least as many as there are such server spans, and at least as many failed ones as failed server spans. The
call is then counted once, on the tool span that carries its id, and no failure is lost. Parent links (at most
:data:`~otel_mapper.mapping.entries.MAX_ANCESTORS` hops up), names and statuses only; nothing here reads an order.
"""

from __future__ import annotations

from collections import Counter

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.entries import SpanEntry, ancestors
from otel_mapper.mapping.members import EXECUTION_KINDS
from otel_mapper.mapping.readers.mcp import CONVENTION as MCP_CONVENTION
from otel_mapper.mapping.tool_names import local_name
from otel_mapper.mapping.twins import settle_accounted_twins
from otel_mapper.model import Declaration
from semconv.trajectory import NodeKind

__all__ = ["settle_mcp_server_twins"]


def _server_call(entry: SpanEntry, by_span_id: dict[str, SpanEntry]) -> bool:
    if not entry.primary or entry.facts.kind is not NodeKind.TOOL_EXECUTION or entry.facts.tool_name is None:
        return False
    if entry.facts.convention != MCP_CONVENTION or entry.view.span.kind != Span.SPAN_KIND_SERVER:
        return False
    parent = by_span_id.get(entry.view.parent_span_id or "")
    return parent is not None and parent.facts.kind not in EXECUTION_KINDS


def settle_mcp_server_twins(
    entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], notes: list[Declaration]
) -> None:
    """Read as ``other`` the server spans whose calls their siblings record (see the module)."""
    servers: dict[tuple[str, str], list[SpanEntry]] = {}
    for entry in entries:
        if _server_call(entry, by_span_id):
            key = (entry.view.parent_span_id or "", entry.facts.tool_name or "")
            servers.setdefault(key, []).append(entry)
    if not servers:
        return
    runs: Counter[tuple[str, str]] = Counter()
    failed_runs: Counter[tuple[str, str]] = Counter()
    for entry in entries:
        facts = entry.facts
        if not entry.primary or facts.kind is not NodeKind.TOOL_EXECUTION or facts.convention == MCP_CONVENTION:
            continue
        own = local_name(facts.tool_name, facts.tool_namespace_separator)
        if own is None:
            continue
        for above in ancestors(entry, by_span_id):
            key = (above.view.span_id, own)
            if key in servers:
                runs[key] += 1
                failed_runs[key] += int(facts.failed)
    settle_accounted_twins(
        servers,
        runs,
        failed_runs,
        lambda entry: entry.facts.failed,
        (
            "mcp_server_twin",
            "an in-process MCP server's span of a tool call that a tool span beside it records was read as other: the "
            "call is counted once, on the tool span",
        ),
        notes,
    )
