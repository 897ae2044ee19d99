"""Haystack agents as ``openinference-instrumentation-haystack`` exports them: the names we read beyond OpenInference's.

Observed with ``openinference-instrumentation-haystack`` 0.1.46 and ``haystack-ai`` 3.4: one span per component
run, named ``<Component>.run``; the agent's run is a CHAIN ``Agent.run`` (no span names the agent), each model call an
LLM ``<Generator>.run``, and tools run with no span of their own. The LLM span's ``llm.output_messages`` carry the
tool calls without their ids, and ``llm.input_messages`` the tool results without content: ids, results and whether
a tool failed are only in the Python reprs its ``output.value`` (``{"replies": ["ChatMessage(...)"]}``) and
``input.value`` (``{"messages": [...]}``) hold: ``ToolCall(tool_name='X', arguments={...}, id='call_…', extra=None)``
and ``ToolCallResult(result='…', origin=ToolCall(...), error=True|False)``.
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "openinference.instrumentation.haystack"
AGENT_RUN_SPANS: Final = frozenset({"Agent.run"})
REPLIES: Final = "replies"
MESSAGES: Final = "messages"
TOOL_CALL_REPR: Final = "ToolCall(tool_name='"
TOOL_CALL_ID_REPR: Final = r", id='((?:[^'\\]|\\.){1,256})', extra="
TOOL_RESULT_REPR: Final = "ToolCallResult(result="
TOOL_RESULT_ERROR_REPR: Final = r"\), error=(True|False)\)"
