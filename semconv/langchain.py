"""LangChain's classic agents (``langchain_classic.agents``, the ``AgentExecutor`` loop): the names we read in the
runs an instrumentation records.

Pinned to ``langchain-classic`` 1.0.8 (``agents/agent.py``, ``agents/tools.py``) and ``langchain-core`` 1.8.3
(``agents.py``: ``AgentAction``, ``AgentActionMessageLog``, ``AgentFinish``; ``langchain_classic.agents.output_parsers.
tools``: ``ToolAgentAction``). The executor runs its agent (a runnable whose output is the agent's decision) once per
step, then each tool the decision names; what it decides is recorded as the step run's output.
"""

from __future__ import annotations

from typing import Final

AGENT_FINISH: Final = "AgentFinish"
"""The decision to end the run with an answer (``return_values``)."""
AGENT_ACTION_TYPES: Final = frozenset({
    "AgentAction", "AgentActionMessageLog", "ToolAgentAction", "OpenAIToolAgentAction",
})
"""The decision to run a tool: ``AgentAction`` and its subclasses in LangChain (the tool-calling agent's
``ToolAgentAction``, the OpenAI tools agent's ``OpenAIToolAgentAction``)."""
TYPE_KEY: Final = "type"
"""An agent step's own ``type`` field (its class name, in the JSON of its fields: OpenInference's encoding)."""
LC_ID_KEY: Final = "id"
LC_MARKER_KEY: Final = "lc"
"""LangChain's serialised constructor form ``{"lc": 1, "type": "constructor", "id": [..., <class>], "kwargs": {}}``
(OpenLLMetry's encoding of run outputs)."""
LC_KWARGS_KEY: Final = "kwargs"
AGENT_NAMESPACE: Final = ("langchain", "schema", "agent")
"""``lc_namespace`` of the agent step classes: the head of their constructor ``id``."""
ACTION_TOOL: Final = "tool"
ACTION_TOOL_CALL_ID: Final = "tool_call_id"
"""Fields of an action: the tool it runs and, for a tool-calling agent, the model's call id."""
RUN_OUTPUTS_KEY: Final = "outputs"
"""Key of a chain run's outputs in OpenLLMetry's ``traceloop.entity.output`` payload (``{"outputs": ..., "kwargs"}``)."""
RUN_OUTPUT_KEY: Final = "output"
"""Key of a tool run's output in OpenLLMetry's ``traceloop.entity.output`` payload (``{"output": ..., "kwargs"}``)."""

INVALID_TOOL_NAME: Final = "invalid_tool"
"""``InvalidTool.name``: the tool the executor runs for a call of a tool it does not have; its observation is
``<name> is not a valid tool, try one of [...]``."""
REQUESTED_TOOL_NAME: Final = "requested_tool_name"
AVAILABLE_TOOL_NAMES: Final = "available_tool_names"
"""``InvalidTool``'s input: the tool the model asked for and the executor's tool names."""

MARKERS: Final = ("AgentFinish", "AgentAction")
"""Substrings of every agent step's recorded output (its class name): a cheap test before any JSON is parsed."""
