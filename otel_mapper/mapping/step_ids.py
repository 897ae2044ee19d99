"""Tool-call ids recorded on the step span around a tool span instead of on the tool span itself.

LlamaIndex runs each tool call in a ``call_tool`` workflow step whose output (the ``ToolCallResult``) holds the call
id, while the ``FunctionTool.acall`` TOOL span under it records none. A tool span without an id whose parent span
recorded one for the call it ran takes that id, named on its edge. Parent links only; nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.run_state import copy_facts

__all__ = ["STEP_ID_EVIDENCE", "inherit_step_call_ids"]

STEP_ID_EVIDENCE: Final = "parent step's output (ToolCallResult tool_id)"


def inherit_step_call_ids(entries: list[SpanEntry]) -> None:
    by_span = {entry.view.span_id: entry.facts.child_tool_call_id for entry in entries if entry.facts.child_tool_call_id}
    if not by_span:
        return
    children: dict[str, list[SpanEntry]] = {}
    for entry in entries:
        facts = entry.facts
        if facts.kind is _TOOL_EXECUTION and not facts.tool_call_id and entry.view.parent_span_id in by_span:
            children.setdefault(entry.view.parent_span_id or "", []).append(entry)
    for parent, tools in children.items():
        if len(tools) != 1:
            continue  # the step ran several tools: its one id names none of them
        facts = tools[0].facts = copy_facts(tools[0].facts)  # the read facts may be kept for the run: never changed
        facts.tool_call_id = by_span[parent]
        facts.tool_call_id_evidence = STEP_ID_EVIDENCE
        facts.dedup_key = facts.dedup_key or f"tool_call:{facts.tool_call_id}"
