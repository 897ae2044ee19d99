"""Laminar's spans (the ``lmnr`` Python SDK) and its OpenAI Agents SDK instrumentation: the names we read.

Pinned to ``lmnr`` 0.8.2 on ``openai-agents`` 0.24.0. Every span of the SDK comes from one tracer, ``lmnr.tracer``
(``lmnr/opentelemetry_lib/tracing/wrapper.py`` ``TRACER_NAME``), and is typed only by ``lmnr.span.type``
(``lmnr/opentelemetry_lib/tracing/attributes.py``; values ``lmnr/sdk/types.py`` ``LaminarSpanType``). The Agents SDK
instrumentation (``lmnr/opentelemetry_lib/opentelemetry/instrumentation/openai_agents/``) opens one span per SDK trace
and per SDK span (``processor.py``), names it by the span data (``helpers.py`` ``span_name``: the agent's, function's
or custom span's ``name``, else ``agents.<type>``), types it with ``helpers.py`` ``map_span_type`` (generation,
response, speech, transcription -> ``LLM``; function, tool, handoff, MCP listing -> ``TOOL``; agent, task, turn,
custom, guardrail and the root -> ``DEFAULT``) and writes ``span_data.export()`` at the span's end (``span_data.py``
``apply_span_data``), structured values as JSON text (``lmnr/sdk/utils.py`` ``json_dumps``). Observed in
``corpus/traces/laminar-openai-agents`` (``corpus/NOTES-frameworks-t.md``).

Errors (``span_data.py`` ``apply_span_error``): the SDK's ``SpanError`` becomes status ERROR with its ``message``
(a short label: :data:`ERROR_TOOL_NOT_FOUND`, ``Error running tool (non-fatal)``, ``Error getting response``,
``Error in agent run``) and an ``exception`` event whose ``exception.type`` is the same label and whose
``exception.message`` is the JSON of the error's ``data`` (``{"error": "Error code: 429 - ..."}``,
``{"tool_name": "fetch_invoice"}``), or the label when there is no data.
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "lmnr.tracer"
"""Instrumentation scope of every span the SDK makes (no version)."""

SPAN_TYPE: Final = "lmnr.span.type"
"""The span's Laminar type (``SPAN_TYPE_*``), stamped on every span when it starts."""
SPAN_TYPE_DEFAULT: Final = "DEFAULT"
SPAN_TYPE_LLM: Final = "LLM"
SPAN_TYPE_TOOL: Final = "TOOL"

SPAN_INPUT: Final = "lmnr.span.input"
"""The span's input as JSON text (``messages.py`` ``set_lmnr_span_io``). A function span: the SDK's input, the
arguments' JSON text, so JSON-encoded twice (``"{\\"city\\": \\"Paris\\"}"``); an agent span: ``{"name", "tools",
"handoffs", "output_type"}`` (:data:`AGENT_KEYS`; empty lists left out); task / turn spans: ``{"name"}`` /
``{"turn", "agent_name"}``."""
SPAN_OUTPUT: Final = "lmnr.span.output"
"""The span's output as JSON text: a function span's result (a JSON string for a text result); the usage roll-up on
task and turn spans; the listed tools of an MCP listing span."""

AGENT_NAME: Final = "name"
AGENT_TOOLS: Final = "tools"
"""The tool names the agent offered its model (``AgentSpanData.tools``)."""
AGENT_HANDOFFS: Final = "handoffs"
"""The agents it could hand the run to, by agent name (``AgentSpanData.handoffs``): each offered to the model as a
handoff tool, ``transfer_to_<agent>`` unless renamed."""
AGENT_OUTPUT_TYPE: Final = "output_type"
"""Always written by the SDK (``"str"`` at least)."""
AGENT_KEYS: Final = frozenset({AGENT_NAME, AGENT_TOOLS, AGENT_HANDOFFS, AGENT_OUTPUT_TYPE})
"""Every key ``_apply_agent_span_data`` writes into an agent span's input, and no other."""

HANDOFF_FROM: Final = "openai.agents.handoff.from"
HANDOFF_TO: Final = "openai.agents.handoff.to"
"""A handoff span's agents by name (``_apply_handoff_span_data``)."""
HANDOFF_SPAN: Final = "agents.handoff"

TASK_NAME: Final = "openai.agents.task.name"
TASK_USAGE: Final = "openai.agents.task.usage"
TURN_INDEX: Final = "openai.agents.turn.index"
TURN_AGENT_NAME: Final = "openai.agents.turn.agent_name"
TURN_USAGE: Final = "openai.agents.turn.usage"
"""Task (one ``Runner.run``) and turn (one model turn of the agent loop) spans. Their usage is the JSON roll-up of the
generations under them, deliberately not written as ``gen_ai.usage.*`` (``_apply_aggregate_usage``): never model
usage."""
STEP_MARKERS: Final = frozenset({TASK_NAME, TASK_USAGE, TURN_INDEX, TURN_AGENT_NAME, TURN_USAGE})

GUARDRAIL_NAME: Final = "openai.agents.guardrail.name"
GUARDRAIL_TRIGGERED: Final = "openai.agents.guardrail.triggered"
"""A guardrail span (``DEFAULT``): the guardrail's name and whether its tripwire fired (bool)."""
CUSTOM_NAME: Final = "openai.agents.custom.name"
CUSTOM_DATA: Final = "openai.agents.custom.data"
"""A custom span (``DEFAULT``, named after it): its name and data (JSON)."""
MCP_SERVER: Final = "openai.agents.mcp.server"
MCP_RESULT: Final = "openai.agents.mcp.result"
"""An MCP tool listing (``TOOL``): the server and the tool names it listed (JSON); it runs no tool."""
MCP_LISTING_SPANS: Final = frozenset({"agents.mcp_tools", "agents.mcp_list_tools"})
"""Names of MCP listing spans (``agents.<type>``), whichever of their attributes are written."""

ERROR_TOOL_NOT_FOUND: Final = "Tool not found"
"""The SDK's label when a model called a tool the agent does not have (``agents/run_internal/turn_resolution.py``),
written on the turn span with ``data = {"tool_name": X}``."""
ERROR_DETAIL: Final = "error"
"""The error text in a ``SpanError``'s data (``{"error": "Request timed out."}``, ``{"tool_name", "error"}``)."""

CHOICE_MESSAGE: Final = "message"
"""A Chat Completions choice's message: Laminar's own OpenAI client instrumentation writes the response's ``choices``
(``{"index", "message", "finish_reason"}``) as ``gen_ai.output.messages``
(``instrumentation/openai/shared/chat_wrappers.py`` ``_set_completions``)."""

# The Responses API path (``agents.response`` spans, ``messages.py`` ``set_gen_ai_output_messages_from_response``):
# ``gen_ai.input.messages`` / ``gen_ai.output.messages`` hold Responses items, not Chat Completions messages.
RESPONSES_TYPE: Final = "type"
RESPONSES_MESSAGE: Final = "message"
"""``{"type": "message", "role", "content": [{"type": "output_text", "text"}]}``."""
RESPONSES_FUNCTION_CALL: Final = "function_call"
"""``{"type": "function_call", "call_id", "name", "arguments", "id", "status"}`` (output items get ``role``
``assistant`` stamped on, ``_with_roles``)."""
RESPONSES_FUNCTION_CALL_OUTPUT: Final = "function_call_output"
"""``{"type": "function_call_output", "call_id", "output"}`` in a later request's input."""
RESPONSES_CALL_ID: Final = "call_id"
RESPONSES_NAME: Final = "name"
RESPONSES_ARGUMENTS: Final = "arguments"
RESPONSES_OUTPUT: Final = "output"
RESPONSES_TEXT: Final = "text"
"""Text of a content block (``input_text`` / ``output_text``) of a message item's ``content`` list."""

INSTRUMENTATION_SCOPE: Final = "lmnr.span.instrumentation_scope.name"
"""Which of Laminar's instrumentations opened the span (``shared/utils.py`` ``stamp_instrumentation_scope``):
``langchain``, ``openai``, ``anthropic``, ...; absent on the SDK's own spans (``@observe``, ``Laminar.start_span``) and
the Agents SDK processor's."""
LANGCHAIN_SCOPE: Final = "langchain"
"""Its LangChain callback handler (``instrumentation/langchain/callback_handler.py``, ported from OpenLLMetry): one
span per LangChain run. A root chain run is ``<run>.workflow`` with ``gen_ai.operation.name = invoke_agent`` and
``gen_ai.agent.name`` the run's name (whatever the run is: an agent's graph or a graph of agents); any other chain run
``execute_task <run>`` (``execute_task``); a tool run ``execute_tool <tool>`` (``TOOL``, ``gen_ai.tool.name``,
``gen_ai.tool.call.id`` as LangChain hands it to the tool); a chat-model run ``<run>.chat`` (``LLM``) unless the
provider client's own Laminar instrumentation records the call (then no span for the run: ChatOpenAI's call is
Laminar's ``openai.chat``). Observed in ``corpus/traces/laminar-langgraph`` (``corpus/NOTES-frameworks-cl.md``)."""
LANGCHAIN_METADATA: Final = "langchain.metadata"
"""The run's metadata as JSON text (LangGraph's ``langgraph_step``, ``langgraph_node``, ``langgraph_checkpoint_ns``,
...), written when the run has any."""
LANGCHAIN_TASK_PREFIX: Final = "execute_task "
LANGCHAIN_ROOT_SUFFIX: Final = ".workflow"
