"""MLflow Tracing's span attributes: the names we read.

Pinned to ``mlflow-tracing`` 3.17.2 (``mlflow/tracing/constant.py`` ``SpanAttributeKey``, ``mlflow/entities/span.py``
``SpanType``; its OpenAI Agents SDK processor in ``mlflow/openai/_agent_tracer.py``). Every attribute value MLflow
writes is JSON text (a string attribute ``"AGENT"`` is written ``"\\"AGENT\\""``). Span names: the agent's name for
agent spans, the tool's for tool spans, ``Generation`` for the SDK's model step, ``AsyncCompletions`` /
``Completions`` for the OpenAI client call inside it, ``Handoff``, ``Unknown`` for the SDK's turn spans. Its LangChain
autologging (``mlflow/langchain/langchain_tracer.py``) opens one span per LangChain run, named after the run: ``CHAIN``,
``CHAT_MODEL`` / ``LLM``, ``TOOL``, ``RETRIEVER``. Its smolagents autologging (``mlflow/smolagents/autolog.py``)
patches methods and names each span after the method: ``ToolCallingAgent.run`` (``AGENT``), ``SimpleTool.__call__``
(``TOOL``), ``<Model>.__call__`` (``CHAT_MODEL``). Its Anthropic autologging patches the ``anthropic`` client's
``Messages.create`` (a ``CHAT_MODEL`` span of that name, message format ``anthropic``); its Bedrock autologging a
``bedrock-runtime`` client's ``converse`` (``BedrockRuntime.converse``, ``CHAT_MODEL``, format ``bedrock``); its Gemini
autologging ``google-genai``'s ``Models.generate_content`` and the ``Models._generate_content`` inside it (both ``LLM``,
format ``gemini``). Its DSPy autologging
(``mlflow/dspy/callback.py``, a DSPy callback) names a module run's span ``<Module class>.forward`` (``AGENT`` for a
ReAct, ``LLM`` for a Predict, ``CHAIN`` for another module), an LM call's ``LM.__call__`` (``CHAT_MODEL``), an
adapter's ``<Adapter class>.format`` / ``.parse`` (``PARSER``) and a tool's ``Tool.<tool name>`` (``TOOL``; ReAct's
own ``finish`` tool gets none). Its CrewAI and Pydantic AI autologs (``mlflow-tracing`` 3.18.0,
``mlflow/crewai/autolog.py``, ``mlflow/pydantic_ai/autolog_v2.py``): a crew's ``Crew.kickoff`` and
``Task.execute_sync`` (``CHAIN``), an agent's ``execute_task`` (``AGENT``, named after its role), a native tool call
(``TOOL``, named after the tool); Pydantic AI's ``Agent.run`` (``AGENT``), ``<Model class>.request`` (``LLM``, format
``pydantic_ai``) and a tool's run (``TOOL``, named after the tool).
"""

from __future__ import annotations

from typing import Final

SPAN_TYPE: Final = "mlflow.spanType"
SPAN_INPUTS: Final = "mlflow.spanInputs"
SPAN_OUTPUTS: Final = "mlflow.spanOutputs"
TRACE_REQUEST_ID: Final = "mlflow.traceRequestId"
MESSAGE_FORMAT: Final = "mlflow.message.format"
"""``openai`` on the OpenAI client's call (inputs: the request, outputs: the ``ChatCompletion``); ``openai-agent`` on
the Agents SDK's generation span around it (inputs / outputs: Chat Completions message lists)."""
CHAT_TOOLS: Final = "mlflow.chat.tools"
"""The tools offered to the model, in the OpenAI ``{"type": "function", "function": {...}}`` shape."""
REQUEST_TOOLS: Final = "tools"
"""Key of a model call's ``mlflow.spanInputs`` when they are the request's keyword arguments: the offered tools, in the
OpenAI ``{"type": "function", "function": {...}}`` shape. LiteLLM's own ``mlflow`` callback (``MlflowLogger``, turned on
by MLflow's LiteLLM autolog; litellm 1.110.2 on mlflow 3.18.0) writes its ``LLM`` span's inputs as
``{"messages", "tools", ...}`` and no ``mlflow.chat.tools`` (its ``set_span_chat_tools`` call sits behind an import
that fails on that release); MLflow's AG2 autolog writes its ``chat_completion`` span's inputs as the request with its
``tools`` and no ``mlflow.chat.tools`` either, and its OpenAI client autolog writes ``mlflow.chat.tools`` only on a call
that returned (a failed call keeps its request in the inputs)."""
CHAT_TOKEN_USAGE: Final = "mlflow.chat.tokenUsage"
"""``{"input_tokens", "output_tokens", "total_tokens", ...}``."""
LLM_MODEL: Final = "mlflow.llm.model"
RECORDED_MODEL: Final = "model"
"""The field of a recorded request or response (``mlflow.spanInputs`` / ``mlflow.spanOutputs``) that names the model."""
AGENT_TOOLS: Final = "tools"
"""Agents SDK agent spans: JSON list of the agent's tool names (model-call spans hold the request's tools there)."""
RUN_METADATA: Final = "metadata"
"""LangChain runs (``mlflow.langchain.autolog()``, ``mlflow/langchain/langchain_tracer.py``): the run's callback
metadata as a JSON object, LangGraph's run metadata (:mod:`semconv.langgraph`) among it. The tracer writes every extra
keyword of LangChain's start callback as an attribute of that name (``invocation_params``, ``tool_call_id``, ...)."""
INSTANCE_NAME: Final = "name"
"""Framework autologs that patch a class's methods (``mlflow.smolagents``, ``mlflow.crewai``) name the span
``<Class>.<method>`` and write the instance's fields as attributes: an agent's ``name`` field is its name."""
TOOL_FUNCTION: Final = "function"
"""Those autologs' tool spans: ``{"name", "description"}`` of the tool, when the tool instance holds them as its own
fields (smolagents' ``@tool`` tools hold them on the class: no attribute, the span names no tool)."""
RETURN_VALUE: Final = "_value"
"""Those autologs record a returned object's ``__dict__``: smolagents' tools return their text as an ``AgentText``
(a ``str`` subclass keeping it in ``_value``), so a tool span's outputs are ``{"_value": <text>}``."""
AGENT_ROLE: Final = "role"
"""The CrewAI autolog's agent span (``Agent.execute_task``, typed ``AGENT``): named after the agent's ``role``, which
it writes among the agent's fields. Its outputs, the task's answer, are written only when ``execute_task`` returned
(``patched_class_call``), as on a method-named span."""
CREWAI_OBJECT_FIELDS: Final = ("agents", "tasks", "crew", "agent_executor")
"""The CrewAI autolog's crew span writes the crew's ``agents`` and ``tasks`` (each agent's role, goal and backstory,
each task's description: the user's request) and its agent span the agent's ``crew`` and ``agent_executor`` (the same
crew again) as the Python text of the objects: content under keys that name none."""
NATIVE_TOOL_NAME: Final = "tool_name"
NATIVE_TOOL_ARGS: Final = "tool_args"
NATIVE_TOOL_RESULT: Final = "result"
"""The CrewAI autolog's span of a native tool call (``mlflow/crewai/autolog.py`` ``patched_single_native_tool_call``,
crewai >= 1.15.29; a ``TOOL`` span named after the called tool): inputs ``{"tool_name": <the span's name>,
"tool_args": {<the call's arguments>}}``, outputs ``{"result": <the text CrewAI hands the model>}``. CrewAI catches
a tool's exception and a call to a tool the agent does not have, so the span stays OK: the result says it
(``Error executing tool: ...``, ``Tool not found``)."""
TOOL_INSTANCE_NAME: Final = "name"
"""The DSPy autolog's tool spans: the tool's ``name`` (beside ``description`` and ``args``) as an attribute."""
FORMAT_ANTHROPIC: Final = "anthropic"
"""``mlflow.message.format`` of the Anthropic autolog's ``Messages.create`` span (``mlflow/anthropic/autolog.py``):
inputs the call's keyword arguments (``model``, ``system``, ``messages`` in the Messages API's shape, ``tools``),
outputs the response ``Message`` (:mod:`semconv.anthropic`)."""
FORMAT_BEDROCK: Final = "bedrock"
"""``mlflow.message.format`` of the Bedrock autolog's ``BedrockRuntime.converse`` span (``mlflow/bedrock/_autolog.py``):
inputs the call's keyword arguments (``modelId``, ``system``, ``messages`` in the Converse API's shape, ``toolConfig``),
outputs the Converse response (:mod:`semconv.bedrock`)."""
FORMAT_GEMINI: Final = "gemini"
"""``mlflow.message.format`` of the Gemini autolog's spans (``mlflow/gemini/autolog.py``): inputs the call's arguments
(``model``, ``contents``, ``config``), outputs the ``GenerateContentResponse`` (:mod:`semconv.google_genai`). On the
``google-genai`` SDK it patches ``Models.generate_content`` and the ``Models._generate_content`` it calls (and
``Chat.send_message`` above them): one request is a span in a span, each recording the whole call."""
FORMAT_PYDANTIC_AI: Final = "pydantic_ai"
"""``mlflow.message.format`` of the Pydantic AI autolog's spans (``mlflow/pydantic_ai/autolog_v2.py``, mlflow-tracing
3.18.0): on a model request's LLM span (``<Model class>.request``, opened in the ``Instrumentation`` capability's
``wrap_model_request``) inputs ``{"messages", "model_settings", "model_request_parameters"}`` with Pydantic AI's own
message objects, outputs the ``ModelResponse`` (:mod:`semconv.pydantic_ai`); also on the ``Agent.run`` span."""
FORMAT_DSPY: Final = "dspy"
"""``mlflow.message.format`` of the DSPy autolog's LM call: inputs ``{"messages": [{"role", "content"}...]}``, outputs the
LM's completions, a list of strings (ChatAdapter ``[[ ## field ## ]]`` sections or the JSONAdapter's object)."""
FORMAT_LLAMA_INDEX: Final = "llamaindex"
"""``mlflow.message.format`` of the LlamaIndex autolog's LLM spans (``mlflow/llama_index/tracer.py``, mlflow-tracing
3.18.0: an MLflow span per LlamaIndex dispatcher span, named ``<Class>.<method>``): inputs the bound arguments
(``{"messages", "kwargs": {"tools", ...}}`` on ``OpenAI.achat``) with LlamaIndex's ``ChatMessage`` dicts
(:data:`semconv.llama_index.EVENT_MESSAGES`), outputs the ``ChatResponse``: ``{"message": <ChatMessage>, "raw": <the
provider's response>}``. The LLM's ``_prepare_chat_with_tools`` span has the format too and sends nothing."""
LLAMA_RESPONSE_MESSAGE: Final = "message"
LLAMA_RESPONSE_RAW: Final = "raw"
LLAMA_RESPONSE_ID: Final = "id"
LLAMA_STEP_EVENT: Final = "ev"
"""The LlamaIndex autolog's workflow step spans (``CHAIN``): inputs ``{"ctx", "ev": <the step's input event>}``. An
agent's ``call_tool`` step is given the ``ToolCall`` (``tool_name``, ``tool_kwargs``, ``tool_id``: the call's id) and
outputs the ``ToolCallResult`` (the same three and ``tool_output``); its ``run_agent_step`` is given the conversation
so far as ``ev.input`` (``ChatMessage`` dicts, tool results with their ``tool_call_id``)."""
LLAMA_STEP_TOOL_ID: Final = "tool_id"
LLAMA_STEP_INPUT: Final = "input"
NULL_SPAN_TYPE: Final = "null"
"""``mlflow.spanType`` as MLflow's span processor writes it on a span its fluent API did not make (JSON ``null``): the
spans of another instrumentation on MLflow's tracer provider (its Agno autolog, which instruments Agno with
OpenInference's instrumentor there), typed by that instrumentation's own keys. Its Strands autolog
(``mlflow/strands/autolog.py``, mlflow-tracing 3.18.0) hands Strands' own GenAI spans to MLflow's provider and, as each
ends, writes a type from its ``gen_ai.operation.name`` (``invoke_*`` ``AGENT``, ``execute_tool`` ``TOOL``, ``chat``
``CHAT_MODEL``; else the ``null`` above) and inputs / outputs copied from its message events (the user and tool
messages only): a typed span that carries a GenAI operation is such a span (MLflow's GenAI export drops every
``mlflow.*`` key, so none of MLflow's own exports writes both)."""
FORMAT_AG2: Final = "ag2"
"""``mlflow.message.format`` of every span of the AG2 autolog (``mlflow/ag2/ag2_logger.py``, mlflow-skinny 3.18.0:
AG2's runtime logging with MLflow's ``MlflowAg2Logger``). The chat session's root, its patched ``initiate_chat``, is
typed ``UNKNOWN``; each message an agent receives after the first is an ``AGENT`` span named after the message's
sender (inputs the message it answers, outputs the message it is, :data:`AG2_MESSAGE`), one reply of that agent and no
agent run, under which the logger moves the ``LLM`` ``chat_completion`` spans and ``TOOL`` spans that made the message;
a ``TOOL`` span is named after the registered Python function and records no call id. A request that failed with an
API error is logged too: its ``chat_completion`` span's outputs are AG2's text ``error_code:<code>, config <n> failed``
(a JSON string, not a response), with no status of its own."""
FORMAT_AUTOGEN: Final = "autogen"
"""``mlflow.message.format`` of the AutoGen autolog's model-call span (``mlflow/autogen/__init__.py``, mlflow-tracing
3.18.0: an ``LLM`` span ``<client class>.create`` around each ``ChatCompletionClient.create``): inputs the call's
arguments, ``messages`` as AutoGen's own message dumps (:data:`AUTOGEN_MESSAGE_TYPE`), outputs AutoGen's
``CreateResult`` (``{"finish_reason", "content": <text> | [<FunctionCall>], "usage", ...}``)."""
AUTOGEN_MESSAGE_TYPE: Final = "type"
"""An AutoGen message dump's type: ``SystemMessage`` / ``UserMessage`` (text ``content``), ``AssistantMessage``
(``content`` its text, or a list of ``FunctionCall`` ``{"id", "arguments", "name"}``), ``FunctionExecutionResultMessage``
(``content`` a list of ``FunctionExecutionResult`` ``{"content", "name", "call_id", "is_error"}``)."""
AUTOGEN_SYSTEM: Final = "SystemMessage"
AUTOGEN_USER: Final = "UserMessage"
AUTOGEN_ASSISTANT: Final = "AssistantMessage"
AUTOGEN_RESULTS: Final = "FunctionExecutionResultMessage"
AUTOGEN_CONTENT: Final = "content"
AUTOGEN_CALL_ID: Final = "id"
AUTOGEN_CALL_NAME: Final = "name"
AUTOGEN_CALL_ARGUMENTS: Final = "arguments"
AUTOGEN_RESULT_CALL_ID: Final = "call_id"
AUTOGEN_RESULT_IS_ERROR: Final = "is_error"
"""AutoGen's own mark of a result the tool's run did not give: the tool raised (its exception's text as content), or
the runtime answered a call itself (an unknown tool)."""
AUTOGEN_AGENT_METHODS: Final = {"run": "task", "on_messages": "messages"}
"""The agent methods the AutoGen autolog patches on ``BaseChatAgent``'s subclasses, each an ``AGENT`` span named
``<agent name>.<method>`` whose inputs bind the method's arguments, with the argument each one always has.
``AssistantAgent.run`` calls ``on_messages`` on the same agent: one run is an ``on_messages`` span directly inside a
``run`` span of that agent."""
AUTOGEN_HANDLER_METHOD: Final = "on_messages"
UNKNOWN: Final = "UNKNOWN"
TRACER_SCOPE: Final = "mlflow.tracing.provider"
"""The instrumentation scope of every span MLflow's own tracer makes (its fluent API, its patching autologs). A span of
another scope on MLflow's provider is another tracer's span an MLflow processor typed as it ended: its Semantic Kernel
autolog (``mlflow/semantic_kernel/``, mlflow-skinny 3.18.0) types Semantic Kernel's spans from ``gen_ai.operation.name``
alone and every other span (the ``AutoFunctionInvocationLoop``, which has no operation) :data:`UNKNOWN`, recording
no inputs or outputs there: a type that says nothing of the span, whose own convention reads it."""
MESSAGES: Final = "messages"
"""``{"messages": [...]}``: MLflow's inputs and outputs of a Semantic Kernel ``chat`` span under its Semantic Kernel
autolog, the chat history and the completions as Semantic Kernel's ``ChatMessageContent.to_dict()`` (Chat Completions
shape, call ids) (:mod:`otel_mapper.mapping.readers.mlflow_typed_genai`)."""
AG2_MESSAGE: Final = "message"
"""The AG2 autolog's message span: inputs and outputs ``{"message", "sender", "valid"}``; a message carrying tool
results has ``tool_responses`` (:data:`AG2_TOOL_RESPONSES`)."""
AG2_TOOL_RESPONSES: Final = "tool_responses"
AG2_TOOL_CALL_ID: Final = "tool_call_id"
"""``[{"tool_call_id", "role": "tool", "content"}]``: the results the executor's message hands the model, each with the
id of the call it ran."""
AG2_TRANSFER_FUNCTION: Final = "transfer_to_target"
"""The Python function AG2's group chat registers for each handoff condition (offered to the model as
``transfer_to_<agent>_<n>``): it only names the next speaker, outputs ``{"agent_name": <agent>}``."""
AG2_TRANSFER_TARGET: Final = "agent_name"
MODULE_SIGNATURE: Final = "signature"
"""The DSPy autolog's Predict and ChainOfThought module spans: the module's signature (``question -> answer``)."""
MODULE_METHOD: Final = "forward"
"""The method in the DSPy autolog's module span names (``Predict.forward``), whatever was called."""
TOOL_CALL_ID: Final = "tool_call_id"
"""LangChain tool runs: the id of the model's tool call the run executes (a JSON string)."""

# SpanType values
AGENT: Final = "AGENT"
CHAIN: Final = "CHAIN"
TOOL: Final = "TOOL"
CHAT_MODEL: Final = "CHAT_MODEL"
LLM: Final = "LLM"
RETRIEVER: Final = "RETRIEVER"
EMBEDDING: Final = "EMBEDDING"
GUARDRAIL: Final = "GUARDRAIL"
FORMAT_AGENTS_GENERATION: Final = "openai-agent"

HANDOFF_SPAN: Final = "Handoff"
"""The Agents SDK's handoff, a ``CHAIN`` span: inputs ``{"from_agent"}``, outputs ``{"to_agent"}``."""
HANDOFF_FROM: Final = "from_agent"
HANDOFF_TO: Final = "to_agent"
