"""Oracle's Open Agent Specification (Agent Spec) tracing, as OpenInference's Agent Spec instrumentation exports it:
the names we read.

Pinned to ``pyagentspec`` 26.3.1 (``pyagentspec.tracing``) and ``openinference-instrumentation-agentspec`` 0.1.15.
The instrumentation makes one OTel span of each Agent Spec span (``_opentelemetry_spanprocessor.py``,
``convert_agentspec_span_into_otel_span``): OpenInference's keys (``openinference.span.kind`` and the rest, read by the
OpenInference reader) beside the Agent Spec span's own pydantic dump, flattened (its :data:`DESCRIPTION` among them),
and each Agent Spec event as a span event named after the event's class, whose attributes are the event's dump
flattened, :data:`EVENT_TYPE` the class name again (``convert_agentspec_event_into_otel_event``). No instrumentation
scope is written. Observed in ``corpus/traces/openinference-agentspec`` (``corpus/NOTES-frameworks-dd.md``).
"""

from __future__ import annotations

from typing import Final

EVENT_TYPE: Final = "type"
"""An Agent Spec event's class name, written again among its attributes (the event's dump)."""

TOOL_EXECUTION_REQUEST: Final = "ToolExecutionRequest"
"""The event a tool execution span starts with: the tool's ``inputs`` and the runtime's :data:`REQUEST_ID`."""
LLM_GENERATION_REQUEST: Final = "LlmGenerationRequest"
LLM_GENERATION_RESPONSE: Final = "LlmGenerationResponse"
"""The events of an LLM generation span: its prompt, and its answer (``content``, ``tool_calls.<j>.*``)."""
EXCEPTION_RAISED: Final = "ExceptionRaised"
"""The event a span records when the code it covers raised (``Span.__exit__``): :data:`EXCEPTION_TYPE` (the class
name alone), :data:`EXCEPTION_MESSAGE` and :data:`EXCEPTION_STACKTRACE` (Python's formatted traceback). The span's
status is not set."""
EVENTS: Final = frozenset({
    "AgentExecutionStart", "AgentExecutionEnd", "FlowExecutionStart", "FlowExecutionEnd", "NodeExecutionStart",
    "NodeExecutionEnd", TOOL_EXECUTION_REQUEST, "ToolExecutionResponse", LLM_GENERATION_REQUEST,
    LLM_GENERATION_RESPONSE, EXCEPTION_RAISED,
})
"""Agent Spec tracing event classes (``pyagentspec.tracing.events``) that mark a span as Agent Spec's."""

REQUEST_ID: Final = "request_id"
"""A request event's id of the request: the runtime's own (the LangGraph adapter writes LangChain's run id there,
and the instrumentation copies it into the tool span's ``tool_call.id``), not the model's tool-call id."""
EXCEPTION_TYPE: Final = "exception_type"
EXCEPTION_MESSAGE: Final = "exception_message"
EXCEPTION_STACKTRACE: Final = "exception_stacktrace"

DESCRIPTION: Final = "description"
"""The Agent Spec span's description (dumped as an attribute of the OTel span)."""
TOOL_CALL_ID_DESCRIPTION_PREFIX: Final = "tcid__"
"""pyagentspec's LangGraph adapter writes the model's tool-call id into a tool execution span's description as
``tcid__<call id>`` (``AgentSpecToolCallbackHandler.on_tool_start``), the only place the span records it."""
