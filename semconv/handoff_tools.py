"""Tools frameworks provide to hand a conversation to another agent, and the argument that names the agent.

The model calls them like any tool (they stay tool executions); the agent the argument names, when it runs as its
own agent invocation, is joined to the call as a handoff. Names in function style (casefolded, ``_`` between words).
Read in each framework's source: Strands Agents Swarm (``handoff_to_agent``), Google ADK (``transfer_to_agent``),
LlamaIndex ``AgentWorkflow`` (``handoff``), Agno ``Team`` (``delegate_task_to_member``), CrewAI (``Delegate work
to coworker``, called ``delegate_work_to_coworker``).
"""

from __future__ import annotations

from typing import Final

HANDOFF_TOOL_TARGETS: Final = {
    "handoff_to_agent": "agent_name",
    "transfer_to_agent": "agent_name",
    "handoff": "to_agent",
    "delegate_task_to_member": "member_id",
    "delegate_work_to_coworker": "coworker",
}
"""Function-style tool name -> the argument naming the receiving agent."""
