"""Tool executions of ``transfer_to_<agent>`` tools that hand the run to an agent of the trace: handoff nodes.

``transfer_to_`` + the agent's name is the default name of the handoff tools of the OpenAI Agents SDK, AutoGen
AgentChat (``Handoff``, observed in ``autogen-agentchat`` 0.7.5: ``execute_tool transfer_to_billing_agent``, then
the ``invoke_agent billing_agent`` span beside it) and langgraph-supervisor. A convention that records the
execution as a plain tool span says nothing more; the trace does: when it holds an invocation of an agent whose
name, in function style, is what follows the prefix, the execution is a handoff to that agent. Without such an
agent it stays a tool execution (a banking agent's ``transfer_to_savings`` tool is a tool). Parent links and names
only; nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import AGENT_INVOCATION as _AGENT_INVOCATION
from otel_mapper.mapping.members import TOOL_EXECUTION as _TOOL_EXECUTION
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.tool_names import function_style
from semconv.openai_agents import DEFAULT_HANDOFF_TOOL_PREFIX
from semconv.trajectory import NodeKind

__all__ = ["settle_transfer_tools"]

_PREFIX: Final = DEFAULT_HANDOFF_TOOL_PREFIX
_TRANSFER: Final = "transfer"


def settle_transfer_tools(entries: list[SpanEntry]) -> None:
    """Make each tool execution of a ``transfer_to_<agent>`` tool whose agent the trace invokes a handoff to it."""
    transfers = [
        entry
        for entry in entries
        if entry.primary
        and entry.facts.kind is _TOOL_EXECUTION
        and entry.facts.tool_name
        and _TRANSFER in entry.facts.tool_name.casefold()  # cheap, and needed for the function-style prefix
        and function_style(entry.facts.tool_name).startswith(_PREFIX)
    ]
    if not transfers:
        return
    agents: dict[str, set[str]] = {}
    for entry in entries:
        name = entry.facts.agent_name
        if entry.primary and entry.facts.kind is _AGENT_INVOCATION and name:
            agents.setdefault(function_style(name), set()).add(name)
    for entry in transfers:
        facts = entry.facts
        assert facts.tool_name is not None
        named = agents.get(function_style(facts.tool_name)[len(_PREFIX) :], set())
        if len(named) != 1 or facts.handoff_to_agent not in (None, *named):
            continue  # no such agent, or names that differ only in spelling: not decided here
        facts = entry.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
        facts.kind = NodeKind.HANDOFF
        facts.handoff_to_agent = next(iter(named))
