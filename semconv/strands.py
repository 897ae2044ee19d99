"""Strands Agents' native OpenTelemetry output: the names we read beyond the GenAI ones.

Pinned to ``strands-agents`` ``src/strands/telemetry/tracer.py`` (sdk-python @ ``1232230d``, 2026-05). Spans:
``invoke_agent {name}`` -> ``execute_event_loop_cycle`` -> ``chat`` and ``execute_tool {tool}``. By default
(GenAI <= v1.36 events) content is only in span **events**, never in attributes: ``gen_ai.system.message``,
``gen_ai.user.message``, ``gen_ai.assistant.message``, ``gen_ai.tool.message`` (attribute ``content``: JSON of the
message's Bedrock content blocks) in input order, and ``gen_ai.choice`` (``message``: JSON of the output blocks,
``finish_reason``). On ``execute_tool`` spans ``gen_ai.tool.message`` holds the tool input (``content``, ``id`` =
``toolUseId``) and ``gen_ai.choice`` the result (``message``, ``id``). With ``gen_ai_latest_experimental`` the same
content is in one ``gen_ai.client.inference.operation.details`` event per side, in the GenAI parts schema. Agent
spans carry the run's accumulated usage under the model calls' ``gen_ai.usage.*`` keys (an aggregate).
"""

from __future__ import annotations

from typing import Final

AGENT_TOOLS: Final = "gen_ai.agent.tools"
"""JSON list of the names of the tools the agent offers (on ``invoke_agent`` spans)."""
TOOL_STATUS: Final = "gen_ai.tool.status"
EVENT_LOOP_CYCLE_ID: Final = "event_loop.cycle_id"
SCOPE_NAME: Final = "strands.telemetry.tracer"

EVENT_CONTENT: Final = "content"
"""Per-message event attribute: the message content (JSON text)."""
EVENT_MESSAGE: Final = "message"
"""``gen_ai.choice`` event attribute: the output content (JSON text)."""
EVENT_ID: Final = "id"
"""Tool-call id on ``gen_ai.tool.message`` / ``gen_ai.choice`` events of tool spans."""
EVENT_ROLE: Final = "role"
EVENT_TOOL_CALLS: Final = "tool_calls"
"""OpenAI-style per-message events (GenAI <= v1.36): the assistant message's tool calls."""
EVENT_FINISH_REASON: Final = "finish_reason"

# Bedrock content blocks inside ``content`` / ``message``
BLOCK_TEXT: Final = "text"
BLOCK_TOOL_USE: Final = "toolUse"
BLOCK_TOOL_RESULT: Final = "toolResult"
TOOL_USE_ID: Final = "toolUseId"
TOOL_USE_NAME: Final = "name"
TOOL_USE_INPUT: Final = "input"
TOOL_RESULT_CONTENT: Final = "content"
