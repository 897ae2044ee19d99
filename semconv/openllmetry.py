"""OpenLLMetry / Traceloop span attributes: the names we read.

Pinned to ``opentelemetry-semantic-conventions-ai`` 0.5.1 and ``traceloop-sdk`` 0.62.4 (decorators, span
processor), ``opentelemetry-instrumentation-{openai,openai-agents,langchain}`` 0.62.4. LLM spans of >= 0.55 also
carry ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (read with the GenAI names); <= 0.54 wrote indexed
``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` (see :mod:`semconv.genai`).
"""

from __future__ import annotations

from typing import Final

SPAN_KIND: Final = "traceloop.span.kind"
ENTITY_NAME: Final = "traceloop.entity.name"
ENTITY_PATH: Final = "traceloop.entity.path"
ENTITY_INPUT: Final = "traceloop.entity.input"
"""JSON ``{"args": [...], "kwargs": {...}}`` of the decorated call (content)."""
ENTITY_OUTPUT: Final = "traceloop.entity.output"
WORKFLOW_NAME: Final = "traceloop.workflow.name"
ASSOCIATION_PROPERTIES: Final = "traceloop.association.properties."
"""Prefix of user metadata; LangChain run metadata (incl. LangGraph keys) lands here."""
LLM_REQUEST_TYPE: Final = "llm.request.type"
"""Legacy LLM marker: ``chat``, ``completion``, ``embedding``, ``rerank``, ``unknown``."""
LLM_USAGE_TOTAL_TOKENS: Final = "llm.usage.total_tokens"

KIND_WORKFLOW: Final = "workflow"
KIND_TASK: Final = "task"
KIND_AGENT: Final = "agent"
KIND_TOOL: Final = "tool"
KIND_HANDOFF: Final = "handoff"
"""Seen on the openai-agents instrumentation: ``{from} → {to}.handoff`` spans."""

REQUEST_TYPES_MODEL: Final = frozenset({"chat", "completion"})
REQUEST_TYPES_RETRIEVAL: Final = frozenset({"embedding", "rerank"})

AGENT_HANDOFF_PARENT: Final = "gen_ai.agent.handoff_parent"
"""On ``{agent}.agent`` spans of the openai-agents instrumentation: the agent that handed off to this one."""
AGENT_HANDOFFS: Final = "openai.agent.handoffs"

HANDOFF_NAME_SUFFIX: Final = ".handoff"
HANDOFF_NAME_ARROW: Final = " \u2192 "
"""Handoff span names are ``{from_agent} → {to_agent}.handoff``."""
UNKNOWN_AGENT: Final = "unknown"
"""The instrumentation writes this when it does not know the handoff target (observed in 0.62.4)."""

CREWAI_SCOPE_NAME: Final = "opentelemetry.instrumentation.crewai.instrumentation"
"""Scope of OpenLLMetry's CrewAI instrumentation, whose crew span (``crewai.workflow``) carries no ``traceloop.*``
attribute (0.62.4, observed)."""

LLAMAINDEX_SCOPE_NAME: Final = "opentelemetry.instrumentation.llamaindex"
"""Scope of OpenLLMetry's LlamaIndex instrumentation (0.62.4, observed): spans from LlamaIndex's dispatcher named
``<Class>.workflow`` / ``<Class>.task``, so every workflow step is ``BaseWorkflowAgent.task`` or
``AgentWorkflow.task``; no LlamaIndex span ever gets a status."""

AGNO_SCOPE_NAME: Final = "opentelemetry.instrumentation.agno"
"""Scope of ``opentelemetry-instrumentation-agno`` (0.62.4): agent, team and tool runs; model calls come from the
OpenAI instrumentation."""
AGNO_TEAM_NAME: Final = "agno.team.name"
"""On the ``<team>.team`` span (``traceloop.span.kind=workflow``): the run of an Agno team, whose leader decides with a
model of its own."""
AGNO_FAILURE_STATUS: Final = "status='failure'"
"""Head of an Agno tool run's ``traceloop.entity.output`` when the tool raised: the text of Agno's
``FunctionExecutionResult`` (``status='failure' result=None error="..." ...``); Agno catches the exception and the
span stays OK."""
AGNO_ERROR_FIELD: Final = " error="
"""The field of that text holding the error, a Python string literal."""

LLAMAINDEX_AGENT_WORKFLOWS: Final = frozenset(
    {"FunctionAgent.workflow", "ReActAgent.workflow", "CodeActAgent.workflow", "AgentWorkflow.workflow"}
)
"""The workflow span of an agent run."""
LLAMAINDEX_TOOL_TASK_SUFFIX: Final = "Tool.task"
"""A tool's own run (``FunctionTool.task``): its output holds ``tool_name``, ``raw_input`` and ``is_error``."""
LLAMAINDEX_STEP_TOOL_NAME: Final = "tool.name"
"""On the ``call_tool`` step span, whose output (the ``ToolCallResult``) holds ``tool_id`` and ``tool_output``."""
LLAMAINDEX_TOOL_ID: Final = "tool_id"
LLAMAINDEX_TOOL_OUTPUT: Final = "tool_output"
LLAMAINDEX_TOOL_NAME: Final = "tool_name"
LLAMAINDEX_IS_ERROR: Final = "is_error"
LLAMAINDEX_RAW_OUTPUT: Final = "raw_output"
LLAMAINDEX_KWARGS: Final = "kwargs"

NAME_SUFFIX_KINDS: Final = (
    (".workflow", KIND_WORKFLOW),
    (".task", KIND_TASK),
    (".agent", KIND_AGENT),
    (".tool", KIND_TOOL),
    (".handoff", KIND_HANDOFF),
)
"""Decorator span names are ``{entity_name}.{kind}``."""

ARGS_KEY: Final = "args"
KWARGS_KEY: Final = "kwargs"
LANGCHAIN_OUTPUT: Final = "output"
"""Key of a LangChain tool run's result in ``traceloop.entity.output`` (``{"output": <ToolMessage>, "kwargs": {...}}``)."""
LANGCHAIN_SCOPE_NAME: Final = "opentelemetry.instrumentation.langchain"
"""Scope of OpenLLMetry's LangChain instrumentation (its callback handler's spans, one per LangChain run; 0.62.4)."""
LANGCHAIN_TOOL_CALL_ID: Final = "tool_call_id"
"""The call id field of a LangChain ``ToolMessage``."""
LANGCHAIN_INPUT_STR: Final = "input_str"
"""``gen_ai.tool.call.arguments`` of the LangChain instrumentation holds the callback payload
``{"input_str": "<python repr of the arguments>", "tags": ..., "metadata": ...}``."""

LANGCHAIN_JS_SCOPE_NAME: Final = "@traceloop/instrumentation-langchain"
"""Instrumentation scope of OpenLLMetry's LangChain instrumentation for JavaScript (``@traceloop/instrumentation-langchain``
0.27.0, its ``TraceloopCallbackHandler``)."""
LANGCHAIN_TOOL_CLASSES: Final = frozenset({"DynamicStructuredTool", "DynamicTool", "StructuredTool"})
"""LangChain's tool classes (``@langchain/core/tools``): the JavaScript handler names a tool span and its
``traceloop.entity.name`` after the last part of the tool's serialized id, the class of a tool made with ``tool()``, not
the tool's name (observed in 0.27.0)."""
LANGCHAIN_SERIALIZED_ID: Final = "id"
"""Key of the class path in LangChain's serialized form ``{"lc": 1, "type": "constructor", "id": [...], "kwargs": {}}``."""
LANGCHAIN_TOOL_MESSAGE_CLASS: Final = "ToolMessage"
LANGCHAIN_AI_MESSAGE_CLASS: Final = "AIMessage"
LANGCHAIN_MESSAGE_NAME: Final = "name"
"""A LangChain message's ``name``: the tool a ``ToolMessage`` answers for; the agent that wrote an ``AIMessage`` (LangGraph's
prebuilt agents name their messages after themselves)."""
LANGGRAPH_COMMAND_KEY: Final = "lg_name"
LANGGRAPH_COMMAND: Final = "Command"
"""``{"lg_name": "Command", "update": {...}, "goto": ...}``: a LangGraph ``Command`` as JSON (``Command.toJSON``)."""
LANGGRAPH_COMMAND_UPDATE: Final = "update"
LANGGRAPH_MESSAGES: Final = "messages"

# --- LangChain v1 agent middleware (opentelemetry-instrumentation-langchain 0.62.4, patch.py) ------------------------
TASK_KIND: Final = "gen_ai.task.kind"
"""On the span OpenLLMetry's LangChain instrumentation opens around an ``AgentMiddleware`` hook call: the middleware's
class name."""
TASK_NAME: Final = "gen_ai.task.name"
"""``<middleware class>.<hook>`` on a middleware hook span (the name ``create_agent`` gives the graph node that calls
the hook)."""
MIDDLEWARE_OPERATION: Final = "execute_task"
"""``gen_ai.operation.name`` of a middleware hook span."""
MIDDLEWARE_PROVIDER: Final = "langchain"
"""``gen_ai.provider.name`` of a middleware hook span (the LangGraph node runs around it say ``langgraph``)."""
MIDDLEWARE_HOOKS: Final = frozenset({
    "before_agent", "before_model", "after_model", "after_agent",
    "abefore_agent", "abefore_model", "aafter_model", "aafter_agent",
})
"""The ``AgentMiddleware`` methods the instrumentation wraps (``langchain`` 1.x, each a node of the agent's graph)."""

# --- MCP tool calls (opentelemetry-instrumentation-mcp 0.62.4) -------------------------------------------------------
MCP_CALL_TOOL_NAME: Final = "tool_name"
MCP_CALL_ARGUMENTS: Final = "arguments"
"""The two keys of ``traceloop.entity.input`` on the ``<tool>.tool`` span ``opentelemetry-instrumentation-mcp`` (0.62.4)
opens around each ``tools/call`` the MCP client sends: ``{"tool_name": <tool>, "arguments": {...}}``, the request's
arguments as sent (``null`` when none); its output is ``{"result": <first content text>, "is_error": true}``."""
