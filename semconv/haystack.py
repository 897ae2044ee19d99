"""Haystack agents as ``openinference-instrumentation-haystack`` exports them (the names we read beyond
OpenInference's), and as Haystack's own tracing writes them (the ``NATIVE_*`` names and the operations below).

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

# Haystack's own tracing (``haystack.tracing.tracer``), observed with ``haystack-ai`` 3.4.1 through deepset's
# ``opentelemetry-haystack`` 2.0.0 (``OpenTelemetryTracer``; Haystack 2.x shipped it as
# ``haystack.tracing.OpenTelemetryTracer``). Each operation Haystack opens is one span named after the operation, with
# its tags as attributes (values that are no bool, str, int or float as JSON text, or as ``str(value)`` when they do not
# serialize); the content tags (``*.input`` / ``*.output``) only with content tracing on. No span carries a GenAI name.
NATIVE_SCOPE: Final = "haystack"
"""Tracer name the integration's ``OpenTelemetryConnector`` uses."""
PIPELINE_RUN: Final = "haystack.pipeline.run"
COMPONENT_RUN: Final = "haystack.component.run"
"""A pipeline component's run (``haystack.component.name`` / ``type`` / ``input`` / ``output``)."""
AGENT_RUN: Final = "haystack.agent.run"
AGENT_STEP: Final = "haystack.agent.step"
"""One step of an Agent's loop; also the tag holding the step's number."""
AGENT_STEP_LLM: Final = "haystack.agent.step.llm"
"""The Agent's chat generator call (the HTTP request is sent under it)."""
AGENT_STEP_TOOL: Final = "haystack.agent.step.tool"
"""One tool call of a step (the ToolInvoker's thread pool; the tool body runs under it). No call id."""
CHAT_GENERATOR_RUN: Final = "haystack.chat_generator.run"
"""A chat generator called by another component (rankers, extractors), with the ``haystack.component.*`` tags."""
AGENT_HOOK: Final = "haystack.agent.hook"
HUMAN_IN_THE_LOOP_STRATEGY: Final = "haystack.agent.hook.human_in_the_loop.strategy"

AGENT_TOOLS: Final = "haystack.agent.tools"
COMPONENT_INPUT: Final = "haystack.component.input"
COMPONENT_OUTPUT: Final = "haystack.component.output"
LLM_INPUT: Final = "haystack.agent.step.llm.input"
LLM_OUTPUT: Final = "haystack.agent.step.llm.output"
TOOL_NAME: Final = "haystack.tool.name"
TOOL_ERROR: Final = "haystack.tool.error"
"""``True`` on a tool call that raised (the span itself stays UNSET: Haystack catches the error)."""
TOOL_INPUT: Final = "haystack.agent.step.tool.input"
TOOL_OUTPUT: Final = "haystack.agent.step.tool.output"
TOOL_OUTPUT_ERROR: Final = "error"
"""Key of the output a failed tool call records (``{"error": "<text>"}``)."""

# ChatMessage as ``_to_trace_dict`` writes it: ``{"role", "meta", "name", "content": [<part>, ...]}``, a part one of
# ``{"text"}``, ``{"tool_call": {"tool_name", "arguments", "id", "extra"}}``, ``{"tool_call_result": {"result",
# "origin": <tool_call>, "error"}}``, ``{"reasoning"}``...; a reply's ``meta`` holds ``model``, ``finish_reason`` and the
# OpenAI-style ``usage``.
TOOLS: Final = "tools"
ROLE: Final = "role"
CONTENT: Final = "content"
PART_TEXT: Final = "text"
PART_TOOL_CALL: Final = "tool_call"
PART_TOOL_CALL_RESULT: Final = "tool_call_result"
CALL_NAME: Final = "tool_name"
CALL_ARGUMENTS: Final = "arguments"
CALL_ID: Final = "id"
RESULT: Final = "result"
RESULT_ORIGIN: Final = "origin"
RESULT_ERROR: Final = "error"
META: Final = "meta"
META_MODEL: Final = "model"
META_FINISH_REASON: Final = "finish_reason"
META_USAGE: Final = "usage"
USAGE_PROMPT_TOKENS: Final = "prompt_tokens"
USAGE_COMPLETION_TOKENS: Final = "completion_tokens"
USAGE_PROMPT_DETAILS: Final = "prompt_tokens_details"
USAGE_CACHED_TOKENS: Final = "cached_tokens"
TOOL_DATA: Final = "data"
"""A serialized Tool (``Tool.to_dict``): ``{"type": "<class>", "data": {"name", ...}}``."""
TOOL_NAME_FIELD: Final = "name"

# When a tag's value does not serialize to JSON (a Tool wrapping a local function does not), Haystack writes
# ``str(value)``: the dict's repr, messages as ``ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[...], ...)``.
MESSAGE_REPR: Final = "ChatMessage(_role="
TOOLS_REPR: Final = "'tools': ["
"""Where the offered tools start in a model call's repr'd input (after its messages)."""
TOOL_DEFINITION_REPR: Final = r"\b[A-Za-z]{0,64}Tool\(name='((?:[^'\\]|\\.){1,256})'"
"""``Tool(name='X'``, ``ComponentTool(name='X'``, ``AgentTool(name='X'`` in a repr of the offered tools."""
