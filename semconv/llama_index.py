"""LlamaIndex as ``openinference-instrumentation-llama-index`` exports it (the names we read beyond OpenInference's), and
as LlamaIndex's own OpenTelemetry integration exports it (at the end).

Observed with ``openinference-instrumentation-llama-index`` 4.6.1 (corpus ``openinference-llama-index``). Spans come
from LlamaIndex's instrumentation dispatcher, named ``<Class>.<method>``: the agent run is a CHAIN
``FunctionAgent.run`` / ``ReActAgent.run`` / ``CodeActAgent.run`` / ``AgentWorkflow.run`` (no span names the agent);
each model turn has an LLM ``OpenAI._prepare_chat_with_tools`` that sends nothing and the LLM ``OpenAI.achat`` that
is the call; each tool call is a CHAIN ``*.call_tool`` whose ``output.value`` is the ``ToolCallResult`` repr with
the call id (``tool_id='call_...'``) around the TOOL ``FunctionTool.acall``, which carries none.
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "openinference.instrumentation.llama_index"
AGENT_RUN_SPANS: Final = frozenset(
    {"FunctionAgent.run", "ReActAgent.run", "CodeActAgent.run", "AgentWorkflow.run", "BaseWorkflowAgent.run"}
)
PREPARE_CHAT_SUFFIX: Final = "._prepare_chat_with_tools"
CALL_TOOL_SUFFIX: Final = ".call_tool"
TOOL_ID_REPR: Final = "tool_id='"
"""How the call id appears in a ``ToolCallResult`` repr."""
RUN_AGENT_STEP_SUFFIX: Final = ".run_agent_step"
"""The step that runs the current agent's model turn; its ``input.value`` is the ``AgentSetup`` event repr holding the
conversation so far, tool results included: ``ChatMessage(role=<MessageRole.TOOL: 'tool'>, additional_kwargs=
{'tool_call_id': 'call_...'}, ...)``."""
TOOL_MESSAGE_REPR: Final = r"MessageRole\.TOOL: 'tool'>, additional_kwargs=\{'tool_call_id': '([^'\\]{1,256})'"

# LlamaIndex's own OpenTelemetry integration (``llama-index-observability-otel`` 0.7.0, ``base.py``): a span handler
# on the instrumentation dispatcher opens one span per dispatcher span, named ``<Class>.<method>`` (the same names as
# above) under this scope, status OK when it exits and ERROR with an ``exception`` event when it is dropped; the
# dispatcher's instrument tags become attributes (a key without a dot gets the ``llamaindex.`` prefix); every
# instrumentation event of a span becomes a span event named after the event class, its fields flattened with dots
# (values that are no OTel type as JSON text).
OTEL_SCOPE_NAME: Final = "llamaindex.opentelemetry.tracer"
STEP_INPUT_EVENT: Final = "llamaindex.step.input_event"
"""Tag of every span inside a workflow step (``llama-index-workflows``): the class of the event the step was given."""
STEP_INPUT_SUMMARY: Final = "llamaindex.step.input_summary"
"""The step's input event as a bounded repr (``summarize_event``): a string value longer than 50 characters cut to 50
and ``...`` (inside its quotes), a list or dict of more than 3 items replaced by its size (``{4 keys}``), the whole repr
cut to 200 characters ending ``...``."""
SUMMARY_CUT: Final = "..."
TOOL_CALL_INPUT: Final = "ToolCall"
"""The input event of an agent's ``call_tool`` step: ``ToolCall(tool_name='…', tool_kwargs={…}, tool_id='…')``."""
TOOL_NAME_REPR: Final = "tool_name='"
TOOL_KWARGS_REPR: Final = "tool_kwargs="
TOOL_SPAN_CLASS_SUFFIX: Final = "Tool"
"""A tool's class (``FunctionTool``, ``QueryEngineTool``, ...): its ``call`` / ``acall`` span is the tool's run."""
TOOL_SPAN_METHODS: Final = frozenset({"call", "acall"})
CHAT_START_EVENT: Final = "LLMChatStartEvent"
CHAT_END_EVENT: Final = "LLMChatEndEvent"
COMPLETION_START_EVENT: Final = "LLMCompletionStartEvent"
COMPLETION_END_EVENT: Final = "LLMCompletionEndEvent"
MODEL_EVENTS: Final = frozenset({CHAT_START_EVENT, CHAT_END_EVENT, COMPLETION_START_EVENT, COMPLETION_END_EVENT})
"""Events of an LLM call: the span they are on is the call."""
EVENT_MESSAGES: Final = "messages"
"""JSON list of LlamaIndex ``ChatMessage`` dicts: ``role``, ``additional_kwargs`` (``tool_calls`` in the Chat
Completions shape on an assistant message, ``tool_call_id`` on a tool message), ``blocks`` (``{"block_type": "text",
"text"}``, ...)."""
EVENT_TOOLS: Final = "additional_kwargs.tools"
"""JSON list of the tools offered (the OpenAI LLM's Chat Completions ``tools``)."""
EVENT_MODEL_NAME: Final = "model_dict.model_name"
EVENT_RESPONSE_CHOICES: Final = "response.raw.choices"
"""JSON list of the provider's raw choices (OpenAI: ``message`` in the Chat Completions shape, ``finish_reason``)."""
EVENT_RESPONSE_MODEL: Final = "response.raw.model"
EVENT_RESPONSE_ID: Final = "response.raw.id"
EVENT_USAGE_INPUT: Final = "response.raw.usage.prompt_tokens"
EVENT_USAGE_OUTPUT: Final = "response.raw.usage.completion_tokens"
EVENT_USAGE_CACHED: Final = "response.raw.usage.prompt_tokens_details.cached_tokens"
MESSAGE_ROLE: Final = "role"
MESSAGE_KWARGS: Final = "additional_kwargs"
MESSAGE_BLOCKS: Final = "blocks"
MESSAGE_TOOL_CALLS: Final = "tool_calls"
MESSAGE_TOOL_CALL_ID: Final = "tool_call_id"
BLOCK_TYPE: Final = "block_type"
BLOCK_TEXT: Final = "text"
CHOICE_MESSAGE: Final = "message"
CHOICE_FINISH_REASON: Final = "finish_reason"
