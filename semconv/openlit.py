"""OpenLIT's own names beside the GenAI ones (``openlit`` 1.45, ``openlit/semcov/__init__.py`` and
``openlit/instrumentation/openai_agents/utils.py``, ``openlit/instrumentation/crewai/``,
``openlit/instrumentation/agno/``, ``openlit/instrumentation/ag2/``, ``openlit/instrumentation/google_adk/``,
``openlit/instrumentation/litellm/``, ``openlit/instrumentation/smolagents/``,
``openlit/instrumentation/pydantic_ai/``, ``openlit/instrumentation/haystack/``,
``openlit/instrumentation/anthropic/``, ``openlit/instrumentation/bedrock/``,
``openlit/instrumentation/google_ai_studio/``).

OpenLIT writes GenAI semantic-convention spans; for the OpenAI Agents SDK it records a handoff as an
``invoke_agent <target>`` span (the SDK's handoff span type mapped to ``invoke_agent``) whose ``gen_ai.agent.name``
is the agent receiving the run and whose :data:`AGENT_SOURCE` is the agent handing it over. Its LangChain callback
handler records a tool run's ``gen_ai.tool.call.arguments`` as LangChain's ``input_str``
(``instrumentation/langchain/__init__.py``, ``on_tool_start``): Python text for a dict input, not JSON.
"""

from __future__ import annotations

from typing import Final

MODEL_CALL_TOOL_NAMES: Final = "gen_ai.tool.name"
"""On OpenLIT's model-call span: the names of the tool calls in the response, joined with ``", "`` (its client
instrumentations, e.g. ``instrumentation/openai/utils.py`` and ``anthropic/utils.py``), written whether or not message
content is captured. The ``n``-th entry of :data:`MODEL_CALL_TOOL_CALL_IDS` is the same call's id; the arguments
(``gen_ai.tool.args``, joined the same way) are content and cannot be split back."""
MODEL_CALL_TOOL_CALL_IDS: Final = "gen_ai.tool.call.id"
MODEL_CALL_TOOL_SEPARATOR: Final = ", "

AGENT_SOURCE: Final = "gen_ai.agent.source"
"""On a handoff's ``invoke_agent`` span: the name of the agent that hands the run over (OpenLIT's
``SemanticConvention.GEN_AI_AGENT_SOURCE``; not a GenAI semantic-convention attribute)."""

AG2_SCOPE: Final = "openlit.instrumentation.ag2"
"""Instrumentation scope of OpenLIT's AG2 wrappers (``instrumentation/ag2``): ``create_agent <name>``
(``ConversableAgent.__init__``), ``execute_task <agent>`` (``ConversableAgent.run``, ``generate_reply``, ``send``,
``receive``), ``invoke_workflow GroupChat_<n>_agents`` (``GroupChatManager.run_chat``) and ``invoke_agent
speaker_selection`` (``GroupChat.select_speaker``). Attributes are written only when the wrapped call returns, so a
call that raised leaves a span with its name, status ERROR and the exception event alone (see
:mod:`otel_mapper.mapping.readers.openlit_ag2`)."""
AG2_AGENT_CALL_OPERATION: Final = "execute_task"
"""The operation word of the span name OpenLIT gives an AG2 agent's calls (``execute_task <agent>``; its
``GEN_AI_OPERATION_TYPE_EXECUTE_AGENT_TASK``), read from the name when the call raised and recorded no attribute."""
AG2_MESSAGE_TYPE: Final = "gen_ai.agent.message_type"
"""On OpenLIT's AG2 ``execute_task <agent>`` spans, which of the agent's calls the span is (values below); every such
span says ``gen_ai.operation.name`` ``chat``. On ``send`` / ``receive`` its ``gen_ai.output.messages`` /
``gen_ai.input.messages`` hold the other agent's name (OpenLIT takes AG2's arguments in each other's places), not GenAI
message JSON."""
AG2_GENERATE_REPLY: Final = "generate_reply"
"""``ConversableAgent.generate_reply``: the agent producing its reply (its model calls or tool runs are inside). Its
``gen_ai.usage.*`` are the instrumentation's estimate (a quarter of the messages' text length), not a model's count."""
AG2_SEND: Final = "send"
"""``ConversableAgent.send``: a message handed to another agent (that agent's ``receive`` is inside)."""
AG2_RECEIVE: Final = "receive"
"""``ConversableAgent.receive``: a message taken from another agent (the reply it asks for is inside)."""
AG2_SPEAKER_SELECTION: Final = "speaker_selection"
"""The agent name (``gen_ai.agent.name``, and the entity of the span name ``invoke_agent speaker_selection``) of the
span OpenLIT opens around ``GroupChat.select_speaker``: the group choosing its next speaker, no agent's run."""
AG2_SELECTOR_ROLE: Final = "selector"
"""``gen_ai.agent.role`` on that speaker-selection span."""
AGENT_ROLE: Final = "gen_ai.agent.role"
"""OpenLIT's role of an agent span (AG2: ``selector`` on the speaker selection)."""
AGNO_TEAM_AGENTS: Final = "gen_ai.agno.team.agents"
"""On the ``invoke_workflow <team>`` span OpenLIT's Agno instrumentor opens around ``Team.run`` / ``arun``
(``instrumentation/agno/utils.py``, ``_set_team_attributes``): the names of the team's members, a JSON list. An Agno
team's leader decides with a model of its own and delegates through a tool, so the run is the leader's agent
invocation, named by ``gen_ai.workflow.name`` (see :mod:`otel_mapper.mapping.readers.openlit_agno`)."""
CREWAI_SCOPE: Final = "openlit.instrumentation.crewai"
"""Instrumentation scope of OpenLIT's CrewAI wrappers (``instrumentation/crewai``): ``invoke_workflow <crew>``
(``Crew.kickoff``), ``invoke_agent <role>`` (``Task._execute_core``), ``execute_tool <tool>`` (``BaseTool.run``),
``invoke_workflow <flow class>`` (``Flow.kickoff``; CrewAI's agent executor is a Flow), ``invoke_agent <method>``
(``Flow._execute_method``), ``create_agent <role>`` (``Crew.__init__``). Span names are ``<operation> <entity>``; the
attributes are written only when the wrapped call returns, so a failed call's span has its name, status and
``error.type`` alone (see :mod:`otel_mapper.mapping.readers.openlit_crewai`)."""
GOOGLE_ADK_SCOPE: Final = "openlit.instrumentation.google_adk"
"""Instrumentation scope of OpenLIT's Google ADK wrappers (``instrumentation/google_adk``): ``invoke_agent <app>``
(``Runner.run_async``), ``invoke_agent <agent>`` (``BaseAgent.run_async``), ``create_agent <agent>``
(``LlmAgent.__init__``). Span names are ``<operation> <entity>``; a run span's attributes, ``gen_ai.operation.name``
included, are written only when the agent's event stream has been read to its end, so the span of a run whose stream
was closed early (ADK closes an agent's run when it transfers to another agent) or that raised has its name and
status alone (see :mod:`otel_mapper.mapping.readers.openlit_crewai`)."""
LITELLM_SCOPE: Final = "openlit.instrumentation.litellm"
"""Instrumentation scope of OpenLIT's LiteLLM wrappers (``instrumentation/litellm``): ``chat <requested model>`` around
``litellm.completion`` / ``acompletion``, every attribute written when the response is processed, so a request that
raised leaves the span with its name, status ERROR and the exception event alone."""
ANTHROPIC_SCOPE: Final = "openlit.instrumentation.anthropic"
"""Instrumentation scope of OpenLIT's Anthropic client wrappers (``instrumentation/anthropic``): ``chat <requested
model>`` around ``Messages.create`` (and ``stream``, and their async twins). A request that is not streamed gets every
attribute, ``gen_ai.operation.name`` included, from the response (``process_chat_response``), after the client call
returned: a request that raised leaves the span with its name, status ERROR and the exception event alone (the
SDK's own handling of the exception leaving ``start_as_current_span``)."""
BEDROCK_SCOPE: Final = "openlit.instrumentation.bedrock"
"""Instrumentation scope of OpenLIT's Amazon Bedrock wrappers (``instrumentation/bedrock``): ``chat <modelId>`` around
the ``converse`` (and ``converse_stream``) of each ``bedrock-runtime`` client botocore creates
(``ClientCreator.create_client`` wrapped). A request that is not streamed gets every attribute, ``gen_ai.operation.name``
included, from the response (``process_chat_response``), after the client call returned: a request that raised leaves
the span with its name, status ERROR and the exception event alone. Its messages keep the text blocks only: no
``toolUse`` or ``toolResult`` block is written on any span (``build_input_messages`` / ``build_output_messages``)."""
GOOGLE_AI_STUDIO_SCOPE: Final = "openlit.instrumentation.google_ai_studio"
"""Instrumentation scope of OpenLIT's Google Gen AI SDK wrappers (``instrumentation/google_ai_studio``): ``chat
<model>`` around ``Models.generate_content`` (and ``generate_content_stream``, and their async twins). As for
:data:`ANTHROPIC_SCOPE`, every attribute is written from the response after the call returned, so a request that raised
leaves the span with its name, status ERROR and the exception event alone. Its input messages write the SDK's
``function_call`` and ``function_response`` parts with an empty ``id`` and the response as the ``str`` of its object, in
the content's own role (``user`` for the function responses); its output messages keep the calls' ids."""
MISTRAL_SCOPE: Final = "openlit.instrumentation.mistral"
"""Instrumentation scope of OpenLIT's Mistral AI SDK wrappers (``instrumentation/mistral``): ``chat <requested model>``
around ``mistralai.chat.Chat.complete`` (and ``stream``, and their async twins; the SDK's 1.x layout). As for
:data:`ANTHROPIC_SCOPE`, every attribute is written from the response after the call returned, so a request that raised
leaves the span with its name, status ERROR and the exception event alone. Its input messages keep each message's text
alone: an assistant message that only calls tools is left out, a tool message keeps its result text without the call
id (``build_input_messages``)."""
OLLAMA_SCOPE: Final = "openlit.instrumentation.ollama"
"""Instrumentation scope of OpenLIT's Ollama client wrappers (``instrumentation/ollama``): ``chat <requested model>``
around ``ollama._client.Client._request`` (and ``AsyncClient._request``) for a request to ``/api/chat``. A request that
is not streamed gets every attribute, ``gen_ai.operation.name`` included, from the response
(``process_chat_response``), inside a ``try`` after the client call returned: a request that raised leaves the span
with its name, status ERROR and the exception event alone, and a span that has the attributes records a call that
returned (its ERROR, if any, OpenLIT's own failure to record the response, ``handle_exception``). Its output messages
keep the answer's text alone (an answer that only calls tools has no part); the next request's input replays the
calls as ``tool_call`` parts with an empty ``id`` (Ollama's chat API has no call ids)."""
GROQ_SCOPE: Final = "openlit.instrumentation.groq"
"""Instrumentation scope of OpenLIT's Groq SDK wrappers (``instrumentation/groq``): ``chat <requested model>`` around
``groq.resources.chat.completions.Completions.create`` (and ``AsyncCompletions.create``). As for
:data:`OLLAMA_SCOPE`, every attribute is written from the response inside a ``try`` after the call returned: a request
that raised leaves its name, ERROR and the exception event alone; a span with ``gen_ai.operation.name`` records a call
that returned. 1.45 fails so on every answer that calls tools (``common_chat_logic`` reads the ``tool_calls`` list as a
dict: an ``AttributeError`` recorded as the span's error), after the request parameters, response id and finish
reasons and before the messages and usage are written."""
COHERE_SCOPE: Final = "openlit.instrumentation.cohere"
"""Instrumentation scope of OpenLIT's Cohere SDK wrappers (``instrumentation/cohere``): ``chat <requested model>`` around
``cohere.client_v2.ClientV2.chat`` (and ``chat_stream``, ``embed``, and the ``AsyncClientV2`` twins). As for
:data:`OLLAMA_SCOPE`, a call that is not streamed gets every attribute, ``gen_ai.operation.name`` included, from the
response (``process_chat_response``) inside a ``try`` after the call returned: a request that raised (the SDK's
``TooManyRequestsError`` / ``InternalServerError``, httpx's ``ReadTimeout``) leaves the span with its name, status ERROR
(with the SDK's description) and the exception event alone. Its input messages keep each message's text alone: an
assistant message that only calls tools is one empty text part, a tool message keeps its result text without the call
id (``build_input_messages``); its output messages keep the calls with their ids."""
VERTEXAI_SCOPE: Final = "openlit.instrumentation.vertexai"
"""Instrumentation scope of OpenLIT's Vertex AI SDK wrappers (``instrumentation/vertexai``): ``chat <model>`` around
``vertexai.generative_models.GenerativeModel.generate_content`` and ``ChatSession.send_message`` (and their async twins,
and the ``vertexai.language_models`` chat sessions). As for :data:`OLLAMA_SCOPE`, a call that is not streamed gets
every attribute, ``gen_ai.operation.name`` included, from the response (``process_chat_response``) inside a ``try``
after the call returned: a call that raised leaves the span with its name, status ERROR (with the SDK's description)
and the exception event alone, and a span with ``gen_ai.operation.name`` records a call that returned. The ``try``'s
``except`` is OpenLIT's ``handle_exception`` (``error.type``, an ``exception`` event, ERROR **without a
description**); 1.45 fails so on every answer: reading ``response.text`` first (the SDK's ``ValueError`` for an
answer whose part is a ``function_call``, before any attribute is written) or calling ``.get`` on a
``GenerationConfig`` argument (an ``AttributeError``, after the operation and model are written). A streamed call
that raised is recorded by the same ``handle_exception``. No span records a message, usage or tool definitions then."""
LANGCHAIN_SCOPE: Final = "openlit.instrumentation.langchain"
"""Instrumentation scope of the spans of OpenLIT's LangChain callback handler."""
LANGGRAPH_SCOPE: Final = "openlit.instrumentation.langgraph"
"""Instrumentation scope of OpenLIT's LangGraph wrappers (``invoke_workflow <graph>``, ``invoke_agent <node>``,
``create_agent <graph>``; see :mod:`otel_mapper.mapping.openlit_graph`)."""
ROUTING_PROVIDERS: Final = frozenset({"litellm"})
"""``gen_ai.provider.name`` values that name a client library routing the request to a provider rather than the
provider: OpenLIT's LiteLLM instrumentor (``instrumentation/litellm``) writes ``litellm`` on the span of each
``litellm.completion`` / ``acompletion``, whatever provider LiteLLM sends the request to (the provider is the prefix of
the requested model, ``openai/gpt-4o-mini``)."""
SMOLAGENTS_SCOPE: Final = "openlit.instrumentation.smolagents"
"""Instrumentation scope of OpenLIT's smolagents wrappers (``instrumentation/smolagents``): ``create_agent <name>``
(``MultiStepAgent.__init__``), ``invoke_agent <name>`` (``MultiStepAgent.run``), ``invoke_agent <name> step_<n>``
(``ToolCallingAgent._step_stream`` / ``CodeAgent._step_stream``: one step of the run, the model call and the tools it
asked for inside), ``invoke_agent <name> planning`` (``MultiStepAgent._generate_planning_step``) and ``execute_tool
<tool>`` (``ToolCallingAgent.execute_tool_call``, ``Tool.__call__``). Step spans get their attributes when they start;
the run and tool wrappers write theirs when the call returns, so a run or tool call that raised leaves a span with its
name, status ERROR and ``error.type`` alone. A tool span's ``gen_ai.tool.call.id`` is never the model's call id:
smolagents hands the tool its name and arguments only, and OpenLIT writes the value of an id-like key of the
arguments, else a new UUID (see :mod:`otel_mapper.mapping.readers.openlit_smolagents`)."""
SMOLAGENTS_STEP_NUMBER: Final = "gen_ai.smolagents.step_number"
"""On OpenLIT's smolagents step span (operation ``invoke_agent``): the step's number in the run."""
SMOLAGENTS_PLANNING: Final = "gen_ai.smolagents.planning"
"""On OpenLIT's smolagents planning-step span (operation ``invoke_agent``): ``true``."""
HAYSTACK_SCOPE: Final = "openlit.instrumentation.haystack"
"""Instrumentation scope of OpenLIT's Haystack wrappers (``instrumentation/haystack``): ``invoke_workflow pipeline``
(``Pipeline.run``, ``AsyncPipeline.run_async``) and ``<operation> <component>`` around six component classes' ``run``,
``chat openai_chat_generator`` among them (``OpenAIChatGenerator.run``: a component's run with no model, message or
usage; the request is the client's span inside it). The span is named when the call starts; every attribute is
written only after the wrapped call returned (``process_haystack_response``), inside a ``try`` whose ``except``
records the instrumentation's own failure as the span's error (``handle_exception``) and ends with status OK
otherwise."""
HAYSTACK_PROVIDER: Final = "haystack"
"""The ``gen_ai.provider.name`` OpenLIT writes on every span of :data:`HAYSTACK_SCOPE` (the framework, not the model
provider a request goes to)."""
NAMED_ONLY_SCOPES: Final = frozenset(
    {AG2_SCOPE, ANTHROPIC_SCOPE, BEDROCK_SCOPE, COHERE_SCOPE, CREWAI_SCOPE, GOOGLE_ADK_SCOPE, GOOGLE_AI_STUDIO_SCOPE,
     GROQ_SCOPE, HAYSTACK_SCOPE, LITELLM_SCOPE, MISTRAL_SCOPE, OLLAMA_SCOPE, SMOLAGENTS_SCOPE, VERTEXAI_SCOPE}
)
"""OpenLIT scopes whose spans say their operation and entity by their name alone when the wrapped call did not
return, whatever the name's first word (read before, each with its spans)."""
INSTRUMENTATION_SCOPE_PREFIX: Final = "openlit.instrumentation."
"""Every OpenLIT instrumentor's scope starts so (``openlit.instrumentation.<module>``, its tracer's name): OpenLIT
names every span ``<operation> <entity>`` when the wrapped call starts (``chat <model>``, ``invoke_agent <agent>``,
``execute_tool <tool>``) and its client instrumentors write their attributes from the response, so a span of another
OpenLIT scope than :data:`NAMED_ONLY_SCOPES` whose name starts with a GenAI operation name says what it records by
its name alone too (OpenLIT's bundled HTTP-client instrumentations keep OpenTelemetry's own scopes)."""
COMPONENT_NAMED_SCOPES: Final = frozenset({HAYSTACK_SCOPE})
"""Of :data:`NAMED_ONLY_SCOPES`, those whose span name ends with the wrapped component's name, not a model's
(``chat openai_chat_generator``)."""
RETURN_RECORDED_SCOPES: Final = frozenset({GROQ_SCOPE, HAYSTACK_SCOPE, OLLAMA_SCOPE, VERTEXAI_SCOPE})
"""OpenLIT scopes whose spans get their GenAI attributes only after the wrapped call returned, and an ERROR status
after that only from the instrumentation's own failure to record the response: a span of them that has
``gen_ai.operation.name`` records a call that returned, whatever its status."""
FRAMEWORK_PROVIDERS: Final = frozenset({HAYSTACK_PROVIDER})
"""``gen_ai.provider.name`` values that name an agent framework, not a model provider: a model-call span naming one is
the framework's component around the client call (OpenLIT's Haystack generator span), and the client's span inside
it, of whichever provider, records the request."""
TOOL_MESSAGE_CALL_ID: Final = "tool_call_id="
"""How the repr of a LangChain ``ToolMessage`` in ``gen_ai.tool.call.result`` names the model's call id
(``... tool_call_id='call_...'``)."""
PYDANTIC_AI_SCOPE: Final = "openlit.instrumentation.pydantic_ai"
"""Instrumentation scope of OpenLIT's Pydantic AI wrappers (``instrumentation/pydantic_ai``): ``create_agent <name>``
(``Agent.__init__``), ``execute_task <name>`` (``Agent.run`` / ``run_sync``: the agent's run, operation
``execute_task``), ``invoke_workflow <name>`` (``Agent.iter``), ``user_prompt_processing <model>``,
``model_request <model>`` and ``execute_tool <model>`` (``UserPromptNode.run``, ``ModelRequestNode.run``,
``CallToolsNode.run``). The last four are synchronous wrappers of an async context manager and of coroutine
functions: each span opens and closes around creating the object, before anything of it runs (see
:mod:`otel_mapper.mapping.readers.openlit_pydantic_ai`)."""
AGENT_LIFECYCLE_PHASE: Final = "gen_ai.agent.lifecycle.phase"
"""OpenLIT's phase of an agent's life the span records (``create``, ``execute``, ``graph_execution``, ...; its
``SemanticConvention.GEN_AI_AGENT_LIFECYCLE_PHASE``)."""
PYDANTIC_AI_RUN_PHASE: Final = "execute"
"""The :data:`AGENT_LIFECYCLE_PHASE` of OpenLIT's span of a Pydantic AI agent's run (``execute_task <name>``)."""
PYDANTIC_AI_NODE_PHASES: Final = frozenset(
    {"graph_execution", "user_prompt_processing", "model_request", "tool_execution"}
)
"""The :data:`AGENT_LIFECYCLE_PHASE` values of OpenLIT's Pydantic AI spans that hold nothing of what they name
(``Agent.iter`` and the graph nodes' ``run``: the span ends when the context manager or coroutine is created)."""
