"""Tool-call ids and tool names recorded on the step span around a tool span instead of on the tool span itself.

LlamaIndex runs each tool call in a ``call_tool`` workflow step whose output (the ``ToolCallResult``) holds the call
id, while the ``FunctionTool.acall`` TOOL span under it records none; MLflow's AG2 autolog puts an executor's tool runs
under the span of the message that hands their results to the model, each result with its call id (a handoff
function's run among them). A tool span without an id whose parent span
recorded one for the call it ran takes that id, named on its edge; a tool span without a name takes the tool the
parent step names (OpenLLMetry's ``call_tool`` step's ``tool.name``, written whether content is captured or not).
Parent links only; nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import EXECUTION_KINDS as _EXECUTION_KINDS
from otel_mapper.mapping.run_state import copy_facts

__all__ = ["STEP_ID_EVIDENCE", "inherit_step_call_ids"]

STEP_ID_EVIDENCE: Final = "parent step's output (ToolCallResult tool_id)"


def inherit_step_call_ids(entries: list[SpanEntry]) -> None:
    steps = {
        entry.view.span_id: entry.facts
        for entry in entries
        if entry.facts.child_tool_call_id or entry.facts.child_tool_name
    }
    if not steps:
        return
    children: dict[str, list[SpanEntry]] = {}
    for entry in entries:
        facts = entry.facts
        step = steps.get(entry.view.parent_span_id or "")
        if facts.kind in _EXECUTION_KINDS and step is not None and (
            (step.child_tool_call_id and not facts.tool_call_id) or (step.child_tool_name and not facts.tool_name)
        ):
            children.setdefault(entry.view.parent_span_id or "", []).append(entry)
    for parent, tools in children.items():
        if len(tools) != 1:
            continue  # the step ran several tools: its one id or name names none of them
        step = steps[parent]
        facts = tools[0].facts = copy_facts(tools[0].facts)  # the read facts may be kept for the run: never changed
        if step.child_tool_call_id and not facts.tool_call_id:
            facts.tool_call_id = step.child_tool_call_id
            facts.tool_call_id_evidence = step.child_tool_call_id_evidence or STEP_ID_EVIDENCE
            facts.dedup_key = facts.dedup_key or f"tool_call:{facts.tool_call_id}"
        if step.child_tool_name and not facts.tool_name:
            facts.tool_name = step.child_tool_name
