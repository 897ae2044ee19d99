"""smolagents as ``openinference-instrumentation-smolagents`` exports it: the names we read beyond OpenInference's.

Pinned to ``Arize-ai/openinference`` @ ``1fe497f1`` (``openinference-instrumentation-smolagents``
``_wrappers.py``) and smolagents' memory format (``ActionStep.to_messages``). Spans: ``{agent}.run`` (AGENT; the
run's total usage under ``llm.token_count.*``, and never ended when the run raises, so its children arrive as
orphans), ``Step N`` (CHAIN, one per step: the model call and the tools it asked for run inside it),
``{Model}.generate`` (LLM), and one TOOL span per tool call named after the tool's class: ``SimpleTool`` for every
``@tool`` function (the real name is ``tool.name``). Tool input is the bound ``Tool.__call__`` record
``{"args": [...], "sanitize_inputs_outputs": ..., "kwargs": {...}}`` with no ``input.mime_type``. Managed agents
are called as tools by name but run as ``{agent}.run`` spans with no TOOL span. Model inputs replay earlier steps as
text: a ``tool-call`` message (``Calling tools:`` and the calls' Python text) and a ``tool-response`` message
``Call id: <id of the step's first call>`` followed by the observation.
"""

from __future__ import annotations

from typing import Final

CALL_RECORD_FLAG: Final = "sanitize_inputs_outputs"
"""Keyword of ``Tool.__call__`` recorded next to ``args`` / ``kwargs`` in a tool span's ``input.value``."""
ROLE_TOOL_RESPONSE: Final = "tool-response"
TOOL_RESPONSE_CALL_ID_PREFIX: Final = "Call id: "
RUN_SPAN_SUFFIX: Final = ".run"
MANAGED_AGENT_NAME: Final = "smolagents.managed_agents.{index}.name"
"""Run-span attribute naming each managed agent (``{index}`` from 0)."""
MANAGED_AGENTS_PREFIX: Final = "smolagents.managed_agents."
MANAGED_AGENT_NAME_SUFFIX: Final = ".name"
TOOLS_NAMES: Final = "smolagents.tools_names"
ROLE_TOOL_CALL: Final = "tool-call"
TOOL_CALL_TEXT_PREFIX: Final = "Calling tools:\n"
"""A ``tool-call`` message replays the step's calls as the Python text of a list of
``{'id', 'type': 'function', 'function': {'name', 'arguments'}}`` dicts after this prefix."""
OBSERVATION_TEXT_PREFIX: Final = "Observation:\n"
"""The message after a ``Calling tools:`` replay holds the calls' results after this prefix (``ToolCallingAgent``)."""
TOOL_ERROR_TEXT_PREFIX: Final = "Error executing tool '"
"""``AgentToolExecutionError`` of a tool that raised: ``Error executing tool '<name>' with arguments <Python dict>:
<error>`` (``ToolCallingAgent.execute_tool_call``)."""
TOOL_ERROR_ARGUMENTS: Final = "' with arguments "
