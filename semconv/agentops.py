"""AgentOps' spans (the ``agentops`` Python SDK) and the OpenAI Agents SDK spans its instrumentation makes: the names we
read.

Pinned to ``agentops`` 0.4.21 on ``openai-agents`` 0.24.0. ``agentops.init()`` opens a session span (scope
``agentops``, ``agentops.span.kind`` ``session``, named ``<trace name>.session``) and keeps it current. Its Agents SDK
instrumentation (``agentops/instrumentation/agentic/openai_agents/``) replaces the SDK's tracing processors with its
own, which opens one OTel span per SDK trace and per SDK span (``exporter.py``; scope ``openai-agents`` with the SDK's
version), never current: each is named by the span data's ``name``, else by its type (``generation``, ``handoff``,
``turn``), and carries :data:`INSTRUMENTATION_NAME` ``agentops`` with the SDK's own ids as text
(``get_base_span_attributes``). Typed by ``agentops.span.kind`` only where its attribute extractors write one
(``attributes/common.py``: agent -> ``agent``, function -> ``tool``, generation / response -> ``llm``); the SDK trace's
span (``workflow.step.type`` ``trace``), task, turn, custom and handoff spans carry none. Every mirror span ends with
status OK (the processor marks the SDK span OK before the exporter reads it, and an OK status is final): an SDK
``SpanError`` is written as :data:`ERROR_TYPE` ``AgentError``, :data:`ERROR_MESSAGE` (the SDK's short label: ``Error
running tool (non-fatal)``, ``Error getting response``, ``Error in agent run``, ``Tool not found``) and an
``exception`` event whose :data:`ERROR_DATA` is the JSON of the error's data (``{"error": "Error code: 500 - ..."}``,
``{"tool_name": "fetch_invoice"}``).

Its OpenAI client instrumentation (``agentops/instrumentation/providers/openai/``) stays on beside it: a span
``openai.chat.completion`` (scope ``openai``) current around each request, with OpenLLMetry's legacy ``gen_ai.prompt.*``
/ ``gen_ai.completion.*`` names (read by the GenAI reader), the answer's tool calls not among them but each one a child
span ``tool_call.<name>`` (scope :data:`CHAT_WRAPPER_SCOPE`) with :data:`TOOL_CALL_ID`, :data:`TOOL_NAME` and
:data:`TOOL_PARAMETERS`: a record of the proposal, not a run. Observed in ``corpus/traces/agentops-openai-agents``
(``corpus/NOTES-frameworks-br.md``).

Its Agno instrumentation (``agentops/instrumentation/agentic/agno/``, for agno >= 1.5.8) writes spans of its own kinds
(scope ``agentops.instrumentation.agno``, INTERNAL, the current span around each run): ``agent`` around ``Agent.run``
(:data:`AGENT_NAME`, :data:`AGENT_TOOLS`), ``workflow`` around ``Team.run`` (:data:`TEAM_NAME`) and ``tool`` around
each ``FunctionCall.execute`` (:data:`TOOL_NAME`, :data:`TOOL_PARAMETERS`, :data:`TOOL_RESULT`, no call id; a failed
run ends OK with :data:`TOOL_ERROR`); the OpenAI client spans and their ``tool_call.<name>`` children are as above,
inside the agent's span. Observed in ``corpus/traces/agentops-agno`` (``corpus/NOTES-frameworks-by.md``).

Its CrewAI instrumentation (``agentops/instrumentation/agentic/crewai/``, for crewai >= 0.70.0; scope ``crewai``, the
instrumentation's version 0.36.0) writes spans of its own kinds, current around each run: ``workflow`` around
``Crew.kickoff`` (``crewai.workflow``), :data:`SPAN_KIND_WORKFLOW_STEP` around ``Task.execute_sync``
(``<description>.task``) and ``agent`` around ``Agent.execute_task`` (``<role>.agent``: :data:`AGENT_TOOLS` as a list
of objects with :data:`OFFERED_NAME`, the tools the agent was built with; CrewAI's delegation tools, added when the
task runs, are not among them); its ``tool`` and ``tool.usage`` spans wrap CrewAI's ReAct tool path, which native
function calling does not take, and its ``llm`` span ``LLM.call``, which CrewAI's native providers do not go through.
The OpenAI client spans and their ``tool_call.<name>`` children are as above, inside the agent's span; their request's
tools are the indexed ``gen_ai.request.functions.N.*`` (:data:`semconv.genai.LEGACY_FUNCTIONS_PREFIX`). Observed in
``corpus/traces/agentops-crewai`` (``corpus/NOTES-frameworks-cc.md``).

Its smolagents instrumentation (``agentops/instrumentation/agentic/smolagents/``, for smolagents >= 1.0.0; scope
``agentops.instrumentation.smolagents``, CLIENT, current) writes **no** ``agentops.span.kind``: every span carries
:data:`INSTRUMENTATION_NAME` ``agentops`` and says what it is only by what it records. ``<agent>.run`` around
``ToolCallingAgent.run`` (:data:`AGENT_NAME`, :data:`AGENT_TOOLS` as a JSON list of names, the managed agents left out
and named apart in :data:`AGENT_MANAGED_AGENTS`); ``tool.execute`` around ``ToolCallingAgent.execute_tool_call``
(:data:`TOOL_STATUS`, :data:`TOOL_RESULT`; smolagents 1.26 passes the tool's name and arguments as plain values, which
the wrapper does not read, so :data:`TOOL_NAME` is :data:`TOOL_NAME_UNKNOWN` and :data:`TOOL_PARAMETERS` its default
``{}``); ``litellm.generate (<model>)`` around ``LiteLLMModel.generate`` (``gen_ai.request.model``, usage), inside which
the OpenAI client spans of its requests are. Observed in ``corpus/traces/agentops-smolagents``
(``corpus/NOTES-frameworks-co.md``).

Its SDK's decorators (``agentops/sdk/decorators/``: ``@agentops.workflow``, ``@agentops.agent``, ``@agentops.tool``
... on a user's functions) open a span per call, current, scope ``agentops``, named ``<name>.<kind>`` with
:data:`SPAN_KIND` the decorator's kind, :data:`OPERATION_NAME` the name given (else the function's) and the call as
``agentops.<kind>.input`` (JSON ``{"args": [...], "kwargs": {...}}``), the return value as ``agentops.<kind>.output``
(text): a decorated tool's span writes no :data:`TOOL_NAME` and no call id, only :data:`DECORATED_TOOL_INPUT` /
:data:`DECORATED_TOOL_OUTPUT` (``agentops/sdk/decorators/utility.py``, ``_create_as_current_span``,
``_record_entity_input`` / ``_record_entity_output``). A call that raised ends ERROR with its exception recorded twice.
Observed in ``corpus/traces/agentops-openai`` (the raw loop's units under them, ``corpus/NOTES-frameworks-cr.md``).
"""

from __future__ import annotations

from typing import Final

SESSION_SCOPE: Final = "agentops"
"""Scope of the session span (``agentops.sdk.core``'s tracer)."""
MIRROR_SCOPE: Final = "openai-agents"
"""Scope of its Agents SDK mirror spans (the instrumentation's ``LIBRARY_NAME``, with the SDK's version)."""
SCOPE_PREFIX: Final = "agentops."
"""Scopes of AgentOps' own instrumentation modules (``agentops.instrumentation.providers.openai.wrappers.chat``...)."""
CHAT_WRAPPER_SCOPE: Final = "agentops.instrumentation.providers.openai.wrappers.chat"
"""Scope of the ``tool_call.<name>`` spans its OpenAI wrapper opens under a model call, one per proposed call."""

SPAN_KIND: Final = "agentops.span.kind"
"""The span's AgentOps kind (``SPAN_KIND_*``); absent on most Agents SDK mirrors."""
SPAN_KIND_SESSION: Final = "session"
SPAN_KIND_AGENT: Final = "agent"
SPAN_KIND_TOOL: Final = "tool"
SPAN_KIND_LLM: Final = "llm"
SPAN_KIND_GUARDRAIL: Final = "guardrail"
SPAN_KIND_WORKFLOW: Final = "workflow"
SPAN_KIND_WORKFLOW_STEP: Final = "workflow.step"
"""A step of a workflow (``SpanKind.WORKFLOW_STEP`` of its semconv): its CrewAI task spans (``Task.execute_sync``)
are the only spans of 0.4.21 that carry it."""
SPAN_KIND_STEPS: Final = frozenset({SPAN_KIND_WORKFLOW, SPAN_KIND_WORKFLOW_STEP, "task", "operation", "chain"})
"""Kinds of a run's structure (read as workflow steps)."""

INSTRUMENTATION_NAME: Final = "instrumentation.name"
"""``agentops`` on every Agents SDK mirror span (with ``instrumentation.version``, ``trace.id``, ``span.id``)."""
INSTRUMENTATION_AGENTOPS: Final = "agentops"

AGENT_NAME: Final = "agent.name"
AGENT_TOOLS: Final = "agent.tools"
"""The agent's tools as a JSON list: of names (its Agno and Agents SDK spans), or of objects each naming one in
:data:`OFFERED_NAME` with its description (its CrewAI agent spans)."""
OFFERED_NAME: Final = "name"
AGENT_MANAGED_AGENTS: Final = "agent.managed_agents"
"""Its smolagents agent spans: the managed agents, which the model is offered as tools and :data:`AGENT_TOOLS` leaves
out; ``[]`` when there are none (any other value: some, named or not)."""
NO_MANAGED_AGENTS: Final = "[]"
AGENT_HANDOFFS: Final = "handoffs"
"""The agents it may hand the run to, as a JSON list of names (each offered as ``transfer_to_<agent>``)."""

OPERATION_NAME: Final = "operation.name"
"""On its decorators' spans (and its session span): the unit's name, the decorator's ``name`` or the function's."""
DECORATED_TOOL_INPUT: Final = "agentops.tool.input"
"""On a ``@agentops.tool`` span: the call as JSON ``{"args": [...], "kwargs": {...}}`` (the arguments, by keyword)."""
DECORATED_TOOL_OUTPUT: Final = "agentops.tool.output"
"""On a ``@agentops.tool`` span that returned: the return value as text (the tool's result)."""

TOOL_NAME: Final = "tool.name"
TOOL_PARAMETERS: Final = "tool.parameters"
"""A tool's arguments (JSON text): on a function mirror (the run) and on a ``tool_call.<name>`` span (the proposal)."""
TOOL_RESULT: Final = "tool.result"
TOOL_STATUS: Final = "tool.status"
"""``success`` / ``error`` (``pending`` before the run) on a tool span of its attribute extractors: a record of a run."""
TOOL_NAME_UNKNOWN: Final = "unknown"
"""What its tool-call extractor writes as :data:`TOOL_NAME` when it found no name (its smolagents tool spans): no name.
The arguments it writes then are its default ``{}``, not the call's."""
TOOL_CALL_ID: Final = "tool.call.id"
"""Only on ``tool_call.<name>`` spans: the function mirrors record no call id."""

TOOL_ERROR: Final = "tool.error"
"""On a tool span whose run failed (``agentops`` 0.4.21's Agno tool spans: the text of the failure result's error).
Its ``tool.status`` is written from the call before the run and not overwritten, so it says ``success`` there; the
error text is the only mark of the failure on a span whose status is OK."""

TEAM_NAME: Final = "team.name"
"""On a ``workflow`` span around a team's run (its Agno instrumentation's ``Team.run``: ``workflow.type`` ``team_run``,
the members in ``team.members``): the team, whose leader decides with a model of its own and hands work to a member
through a tool, so the run is the leader's agent invocation named after the team."""

CREWAI_TASK_NAME: Final = "crewai.task.name"
"""On its CrewAI task span: the task's description (the text of the task, the user's request in it) under a key
named ``name``."""
CREWAI_CREW_TASKS_PREFIX: Final = "crewai.crew.tasks."
"""On its CrewAI crew span, per task (``crewai.crew.tasks.<i>.*``): :data:`CREWAI_TASK_TEXT_SUFFIXES` hold text."""
CREWAI_TASK_TEXT_SUFFIXES: Final = (".name", ".raw")
"""The task's description (``name``) and its raw output (``raw``)."""

HANDOFF_FROM: Final = "from_agent"
HANDOFF_TO: Final = "to_agent"
"""A handoff mirror's agents by name."""

ERROR_TYPE: Final = "error.type"
ERROR_MESSAGE: Final = "error.message"
ERROR_DATA: Final = "error.data"
"""On the ``exception`` event of a mirror whose SDK span failed: the error's data as JSON (``ERROR_DATA_*`` keys)."""
ERROR_DATA_ERROR: Final = "error"
ERROR_DATA_TOOL: Final = "tool_name"

GENERATION_INPUT: Final = "gen_ai.prompt.0.content"
"""On a generation mirror (``llm``): the SDK generation's whole input, the Chat Completions message list as one JSON
text (under ``gen_ai.prompt.0.role`` ``user``); its output and usage are not written for Chat Completions."""

ANTHROPIC_REQUEST_FUNCTIONS: Final = "gen_ai.request.functions"
"""On its Anthropic client span (``anthropic.messages.create``, ``agentops/instrumentation/providers/anthropic/``):
the names of the tools the request offered, one JSON text (a list of strings). Its indexed
``gen_ai.request.tools.<i>.{name,id,arguments}`` are the tool definitions until the answer is read, then each of the
answer's calls is written over them with the call's index (``get_tool_attributes`` uses the definitions' keys): those
keys name a made-up tool as if offered, and only this list keeps what was."""
ANTHROPIC_TOOL_RESULT_OPEN: Final = "[Tool Result: "
ANTHROPIC_TOOL_RESULT_CLOSE: Final = "]"
ANTHROPIC_TOOL_RESULT_SEPARATOR: Final = " "
"""Its Anthropic client span's prompts (``gen_ai.prompt.<i>.content``) write a message's block list as text: each
``tool_result`` block as ``[Tool Result: <content>]``, the blocks joined by a space, a ``tool_use`` block as nothing (the
assistant turn that only called tools is an empty message), no call id anywhere."""
