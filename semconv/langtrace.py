"""Langtrace's spans (``langtrace-python-sdk``): the names we read.

Pinned to ``langtrace-python-sdk`` 3.8.21 with ``trace-attributes`` 7.2.1 (its attribute names,
``langtrace/trace_attributes/__init__.py`` ``SpanAttributes``): ``instrumentation/langchain_core/``,
``instrumentation/langgraph/``, ``instrumentation/openai/patch.py``, ``utils/llm.py``. Langtrace instruments by
wrapping library methods, not through a framework's callbacks: each wrapper opens a CLIENT span named
``Class.method`` (the OpenAI one ``openai.chat.completions.create``) and writes ``langtrace.*`` beside the names below.

- LLM client wrappers (``langtrace.service.type`` ``llm``): GenAI request / response names (``gen_ai.operation.name``,
  ``gen_ai.system``, ``gen_ai.request.model``, usage), the request's tools as ``gen_ai.request.tools``, the prompt and
  completion as span events (``set_event_prompt`` / ``set_event_completion``): message lists in the Chat Completions
  shape, JSON text. The span is not made current. A response read as a raw HTTP response (LangChain's ``ChatOpenAI``
  asks for one) records no completion, no response model and no usage.
- langchain-core wrappers (``langtrace.service.type`` ``framework``, service name ``Langchain Core``): every public
  method of the public classes of a fixed list of modules, the task named by the module (``langchain.task.name``),
  the positional arguments as ``langchain.inputs``, the keyword arguments as ``langchain.metadata`` and the result as
  ``langchain.outputs`` (JSON of the objects' fields, empty values left out: an ``AIMessage`` keeps ``type`` ``ai``,
  its ``tool_calls`` and ``usage_metadata``; an ``LLMResult`` ``type`` ``LLMResult`` and little else). Model methods
  also write ``gen_ai.request.model`` and the answer's usage as ``gen_ai.usage.input_tokens`` /
  ``output_tokens``. A chat model's ``invoke`` runs ``generate_prompt`` runs ``generate``, each wrapped: one model
  call is a chain of wrapper spans around the client's span. These spans are made current.
- LangGraph wrappers (``langgraph.task.name``): graph building (``StateGraph.add_node`` ...), nothing of a run.
- DSPy wrappers (``instrumentation/dspy/patch.py`` ``patch_signature``; service name ``DSPy``, type ``framework``): a
  module's ``forward`` (``Predict``, ``ChainOfThought``, ``ReAct`` ...; on DSPy 3 only those wrapped before the
  instrumentation fails on a module DSPy 3 no longer has: ``Predict`` and ``ChainOfThought``), a current span named
  ``<wrapped class>.forward`` with the instance's class, the keyword arguments as their Python ``str()`` and the
  returned Prediction's fields as JSON. ``Predict.forward`` is where DSPy formats the prompt, calls its LM and parses
  the answer: the span of the model call (DSPy's own retry and its adapter fallback re-send inside it). No messages,
  model, tool definitions or usage.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

SDK_NAME: Final = "langtrace.sdk.name"
"""``langtrace-python-sdk`` on every span a Langtrace wrapper opens."""
ROOT_SPAN_SCOPE: Final = "langtrace_python_sdk.utils.with_root_span"
"""Instrumentation scope of the span ``with_langtrace_root_span`` opens around the function it decorates (named
``LangtraceRootSpan`` or as the caller says; no attribute but ``session.id`` when a session is set): the user's run."""
SERVICE_TYPE: Final = "langtrace.service.type"
"""What the wrapped library is, values :class:`ServiceType`."""
SERVICE_NAME: Final = "langtrace.service.name"
"""The wrapped library (``OpenAI``, ``Langchain Core``, ``LangGraph`` ...)."""
LANGCHAIN_TASK: Final = "langchain.task.name"
"""The langchain-core module a wrapped method belongs to, values :class:`LangChainTask`."""
LANGCHAIN_INPUTS: Final = "langchain.inputs"
"""JSON text of the wrapped call's positional arguments (runnables: a summary of the input dict)."""
LANGCHAIN_OUTPUTS: Final = "langchain.outputs"
"""JSON text of what the wrapped call returned (runnables: a summary of the output dict)."""
LANGGRAPH_TASK: Final = "langgraph.task.name"
"""LangGraph's graph-building wrappers: the method (``add_node``, ``add_edge`` ...)."""
REQUEST_TOOLS: Final = "gen_ai.request.tools"
"""LLM client spans: the request's ``tools``, JSON text of a list whose items are JSON texts of the tool list
(``json.dumps`` applied to each, then to the list)."""
PROMPT_EVENT: Final = "gen_ai.content.prompt"
"""LLM client spans: the event holding the request's messages in :data:`PROMPT`."""
PROMPT: Final = "gen_ai.prompt"
"""Attribute of :data:`PROMPT_EVENT`: the request's messages, JSON text (Chat Completions roles; a tool message keeps
its ``tool_call_id``; an assistant message's tool calls are not kept)."""
COMPLETION_EVENT: Final = "gen_ai.content.completion"
"""LLM client spans: the event holding the response's messages in :data:`COMPLETION`."""
COMPLETION: Final = "gen_ai.completion"
"""Attribute of :data:`COMPLETION_EVENT`: the response's messages, JSON text."""
MESSAGE_TYPE: Final = "type"
"""Field of a LangChain message or result object in :data:`LANGCHAIN_OUTPUTS`."""
TOOL_CALLS: Final = "tool_calls"
"""Field of an ``AIMessage``: LangChain's calls ``{"name", "args", "id"}``."""
INVALID_TOOL_CALLS: Final = "invalid_tool_calls"
"""Field of an ``AIMessage``: the calls whose arguments did not parse."""
MESSAGE_TOOL_CALLS: Final = "tool_calls"
"""Field of a Chat Completions assistant message: its calls. Langtrace's completion event writes an answer's calls as
the message's :data:`CONTENT` instead (``extract_content`` in ``instrumentation/openai/patch.py``)."""
CALL_FUNCTION: Final = "function"
"""Field of a Chat Completions tool call: the function called, an object with :data:`CALL_FUNCTION_NAME`."""
CALL_FUNCTION_NAME: Final = "name"
"""Field of a call's function: the tool's name."""
ROLE: Final = "role"
"""Field of a Chat Completions message: who wrote it."""
TOOL_ROLE: Final = "tool"
"""The role of a message holding a call's result."""
ASSISTANT_ROLE: Final = "assistant"
"""The role of the model's message."""
TOOL_CALL_ID: Final = "tool_call_id"
"""Field of a ``tool`` message: the id of the call it answers."""
CREWAI_AGENT_ROLE: Final = "crewai.agent.role"
"""CrewAI wrappers (``instrumentation/crewai/patch.py``, ``CrewAISpanAttributes``): ``Agent.execute_task``'s agent
role; each public field of the wrapped ``Agent`` / ``Task`` / ``Crew`` is written as ``crewai.<class>.<field>``."""
CREWAI_AGENT_EXECUTOR: Final = "crewai.agent.agent_executor"
"""CrewAI wrappers: ``str()`` of the agent's executor, which holds its task's text and its crew's agents."""
CREWAI_AGENT_CREW: Final = "crewai.agent.crew"
"""CrewAI wrappers: ``str()`` of the agent's crew (every task's description, every agent's role, goal, backstory)."""
CREWAI_TASK_ID: Final = "crewai.task.id"
"""CrewAI wrappers: ``Task.execute``'s task id."""
CREWAI_CREW_ID: Final = "crewai.crew.id"
"""CrewAI wrappers: ``Crew.kickoff``'s crew id."""
DSPY_SIGNATURE_NAME: Final = "dspy.signature.name"
"""DSPy wrappers: the class of the module whose ``forward`` ran (``Predict``, ``ChainOfThought`` ...)."""
DSPY_SIGNATURE_ARGS: Final = "dspy.signature.args"
"""DSPy wrappers: ``str()`` of the keyword arguments of ``forward``, a Python dict's repr (a ReAct turn's
``{'question': ..., 'trajectory': ...}``, the trajectory in ChatAdapter ``[[ ## field ## ]]`` sections)."""
DSPY_SIGNATURE_RESULT: Final = "dspy.signature.result"
"""DSPy wrappers: JSON text of the returned Prediction's fields (a ReAct turn's ``next_thought``,
``next_tool_name``, ``next_tool_args``); written only when ``forward`` returned."""
DSPY_MODEL_CALL_SPAN: Final = "Predict.forward"
"""DSPy wrappers: the span of ``Predict.forward``, DSPy's call of its LM (named after the wrapped method, whatever the
instance's class)."""
CONTENT: Final = "content"
"""Field of an ``AIMessage``: its text (left out when empty)."""


class ServiceType(StrEnum):
    """Values of :data:`SERVICE_TYPE`."""

    LLM = "llm"
    FRAMEWORK = "framework"
    VECTORDB = "vectordb"


class LangChainTask(StrEnum):
    """Values of :data:`LANGCHAIN_TASK` (``instrumentation/langchain_core/instrumentation.py``)."""

    CHAT_MODEL = "chatmodel"
    LANGUAGE_MODEL = "language_model"
    GENERATE = "generate"
    RETRIEVER = "retriever"
    PROMPT = "prompt"
    RUNNABLE = "runnable"
    RUNNABLE_PASSTHROUGH = "runnablepassthrough"


MODEL_TASKS: Final = frozenset(
    {LangChainTask.CHAT_MODEL.value, LangChainTask.LANGUAGE_MODEL.value, LangChainTask.GENERATE.value}
)
"""Tasks of the model classes' methods (``invoke``, ``generate_prompt``, ``generate`` and helpers such as ``asdict``)."""

AI_MESSAGE: Final = "ai"
"""``type`` of an ``AIMessage`` (a chat model's ``invoke`` result)."""
LLM_RESULT: Final = "LLMResult"
"""``type`` of an ``LLMResult`` (``generate`` / ``generate_prompt`` results)."""
