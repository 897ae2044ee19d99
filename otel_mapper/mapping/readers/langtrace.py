"""Reader for Langtrace's spans (``langtrace.sdk.name``): method wrappers, not framework callbacks.

Pinned to ``langtrace-python-sdk`` 3.8.21 (names and shapes in :mod:`semconv.langtrace`).

- An LLM client span (``langtrace.service.type`` ``llm``) is the request: read as a GenAI span
  (:func:`~otel_mapper.mapping.readers.genai.fill_genai_facts`: operation, model, provider, usage, error), with the
  request's messages and the response's from Langtrace's prompt / completion events (Chat Completions shapes) and the
  declared tools from ``gen_ai.request.tools`` (a JSON list of JSON texts). Langtrace writes an answer's calls as the
  completion message's ``content`` and a replayed answer's calls as ``{"id": "", "type": ""}`` placeholders: both are
  read back as Chat Completions ``tool_calls`` (the replayed ones from the ``tool`` messages that answer them).
- A span of its CrewAI wrappers (``crewai.<class>.<field>`` attributes) is an agent invocation when it names the
  agent's role (``Agent.execute_task``), a workflow step when it is a task's or a crew's run.
- A langchain-core model method (tasks ``chatmodel`` / ``language_model`` / ``generate``) whose result is a model
  answer (an ``AIMessage``, an ``LLMResult``), or that failed, is a layer of one model call: a model call marked
  :attr:`~otel_mapper.mapping.facts.SpanFacts.wraps_model_call`, which
  :mod:`otel_mapper.mapping.wrapped_model_calls` folds into the call it wraps. Its ``AIMessage`` gives the call's
  proposals (LangChain's ``tool_calls``) and usage (``gen_ai.usage.*``). Other methods of the model classes
  (``asdict``, ``model_post_init``) are ``other`` nodes.
- Any other langchain-core wrapper (a ``RunnableSequence``, a prompt template, a parser) is a workflow step, a
  retriever's a retrieval; LangGraph's graph-building wrappers and anything else are ``other`` nodes.
- A span of its DSPy wrappers (``dspy.signature.name``) is read by :mod:`otel_mapper.mapping.readers.langtrace_dspy`:
  ``Predict.forward`` a model call (DSPy's call of its LM), an agent module's ``forward`` an agent invocation, another
  module's a workflow step.
- The span ``with_langtrace_root_span`` opens around a decorated function (its scope; no attribute) is the run the
  user wrapped: a workflow step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final

from opentelemetry.proto.common.v1.common_pb2 import KeyValue

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import fill_chat_completions, fill_error, read_usage
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation, read_tool_definitions
from otel_mapper.mapping.readers.langchain_messages import chat_completions_calls
from otel_mapper.mapping.readers.langtrace_dspy import read_dspy_module
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded, to_text
from semconv import genai
from semconv import langtrace as lt
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "LangtraceReader"]

CONVENTION: Final = "langtrace"
MAX_EVENTS: Final = 64
"""Events looked at per span (Langtrace writes one prompt and one completion event)."""
MAX_CONTENT: Final = 4 << 20
"""Longest message text (an event's or a result's) parsed, in characters."""
MAX_TOOL_LISTS: Final = 64
"""Items of ``gen_ai.request.tools`` parsed (one per request: its tool list)."""
MAX_MESSAGES: Final = 4096
"""Messages of a prompt or completion event looked at."""
MAX_CALLS: Final = 128
"""Tool calls of one answer kept."""
_ANSWER_TYPES: Final = frozenset({lt.AI_MESSAGE, lt.LLM_RESULT})


class LangtraceReader:
    """Spans a Langtrace wrapper opened."""

    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({lt.SDK_NAME})
    """Attribute keys ``claims`` looks for (on every span a Langtrace wrapper opens)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({lt.ROOT_SPAN_SCOPE})
    """The root span ``with_langtrace_root_span`` opens has no attribute: its scope marks it."""

    def claims(self, view: SpanView) -> bool:
        return lt.SDK_NAME in view.attrs or view.scope_name == lt.ROOT_SPAN_SCOPE

    def read(self, view: SpanView) -> SpanFacts:
        if view.scope_name == lt.ROOT_SPAN_SCOPE:
            facts = SpanFacts(kind=NodeKind.WORKFLOW_STEP, convention=CONVENTION, name=view.name)
            fill_error(view, facts)
            return facts
        if view.str_attr(lt.SERVICE_TYPE) == lt.ServiceType.LLM.value:
            return _read_client(view)
        dspy_facts = read_dspy_module(view)
        if dspy_facts is not None:
            return dspy_facts
        crew_facts = _read_crewai(view)
        if crew_facts is not None:
            return crew_facts
        task = view.str_attr(lt.LANGCHAIN_TASK)
        if task in lt.MODEL_TASKS:
            return _read_model_method(view)
        if task == lt.LangChainTask.RETRIEVER.value:
            kind = NodeKind.RETRIEVAL
        elif task is not None:
            kind = NodeKind.WORKFLOW_STEP
        else:
            kind = NodeKind.OTHER
        facts = SpanFacts(kind=kind, convention=CONVENTION, name=view.name)
        fill_error(view, facts)
        return facts


def _read_client(view: SpanView) -> SpanFacts:
    operation = view.str_attr(genai.OPERATION_NAME)
    kind = kind_of_operation(operation) if operation else NodeKind.MODEL_CALL
    facts = SpanFacts(kind=kind, convention=CONVENTION, name=view.name)
    fill_genai_facts(view, facts)
    if kind is not NodeKind.MODEL_CALL:
        return facts
    inputs, outputs = _event_messages(view)
    fill_chat_completions(facts, _replayed_calls(inputs), _calls_as_tool_calls(outputs))
    if facts.tool_definitions is None and lt.REQUEST_TOOLS in view.attrs:
        facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(_request_tools(view))
    return facts


def _event_messages(view: SpanView) -> tuple[Decoded, Decoded]:
    """(request messages, response messages) from the prompt / completion events; ``None`` for one not recorded."""
    inputs: Decoded = None
    outputs: Decoded = None
    for event in view.span.events[:MAX_EVENTS]:
        if event.name == lt.PROMPT_EVENT:
            inputs = _event_json(event.attributes, lt.PROMPT)
        elif event.name == lt.COMPLETION_EVENT:
            outputs = _event_json(event.attributes, lt.COMPLETION)
    return inputs, outputs


def _calls_as_tool_calls(outputs: Decoded) -> Decoded:
    """The completion's messages with an answer's calls where Chat Completions keeps them: Langtrace writes an assistant
    message that made tool calls with the calls as its ``content`` (a list of ``{"id", "type", "function"}`` objects),
    which moves them to its ``tool_calls``. Other messages are kept as written."""
    if not isinstance(outputs, list):
        return outputs
    messages: list[Decoded] = []
    for message in outputs[:MAX_MESSAGES]:
        if isinstance(message, dict):
            content = message.get(lt.CONTENT)
            if isinstance(content, list) and content and all(_is_call(item) for item in content[:MAX_CALLS]):
                message = {**message, lt.CONTENT: None, lt.MESSAGE_TOOL_CALLS: content[:MAX_CALLS]}
        messages.append(message)
    return messages


def _replayed_calls(inputs: Decoded) -> Decoded:
    """The prompt's messages with each replayed answer's calls where the tool messages after it name them: Langtrace
    writes an assistant message that made tool calls as a bare list of ``{"id": "", "type": ""}`` (the calls read as
    objects from what were dicts), which loses every id; the tool messages that follow it (the API requires them to
    answer its calls) keep each call's ``tool_call_id`` and, where the client sent one, its ``name``. The list is read
    as an assistant message whose calls are those, arguments unknown."""
    if not isinstance(inputs, list):
        return inputs
    messages: list[Decoded] = []
    items = inputs[:MAX_MESSAGES]
    for index, item in enumerate(items):
        if isinstance(item, list) and item and all(_is_placeholder(call) for call in item[:MAX_CALLS]):
            calls: list[Decoded] = []
            for after in items[index + 1 : index + 1 + len(item)]:
                call_id = after.get(lt.TOOL_CALL_ID) if isinstance(after, dict) else None
                if not isinstance(after, dict) or after.get(lt.ROLE) != lt.TOOL_ROLE or not isinstance(call_id, str):
                    break
                name = after.get(lt.CALL_FUNCTION_NAME)
                calls.append(
                    {"id": call_id, lt.CALL_FUNCTION: {lt.CALL_FUNCTION_NAME: name if isinstance(name, str) else None}}
                )
            if calls:
                item = {lt.ROLE: lt.ASSISTANT_ROLE, lt.CONTENT: None, lt.MESSAGE_TOOL_CALLS: calls}
        messages.append(item)
    return messages


def _is_placeholder(item: Decoded) -> bool:
    """Langtrace's text of a replayed call: an object with an empty ``id`` and nothing of the function."""
    return isinstance(item, dict) and item.get("id") == "" and lt.CALL_FUNCTION not in item


def _read_crewai(view: SpanView) -> SpanFacts | None:
    """A span of Langtrace's CrewAI wrappers (``Crew.kickoff``, ``Task.execute``, ``Agent.execute_task``): the agent's
    execution of a task is an agent invocation named by its role, the crew's run and a task's run workflow steps."""
    role = view.str_attr(lt.CREWAI_AGENT_ROLE)
    if role is not None:
        facts = SpanFacts(kind=NodeKind.AGENT_INVOCATION, convention=CONVENTION, name=view.name, agent_name=role)
    elif lt.CREWAI_TASK_ID in view.attrs or lt.CREWAI_CREW_ID in view.attrs:
        facts = SpanFacts(kind=NodeKind.WORKFLOW_STEP, convention=CONVENTION, name=view.name)
    else:
        return None
    fill_error(view, facts)
    return facts


def _is_call(item: Decoded) -> bool:
    """A Chat Completions tool call: an object whose ``function`` is an object naming the function."""
    function = item.get(lt.CALL_FUNCTION) if isinstance(item, dict) else None
    return isinstance(function, dict) and isinstance(function.get(lt.CALL_FUNCTION_NAME), str)


def _event_json(attributes: Iterable[KeyValue], key: str) -> Decoded:
    for kv in attributes:
        if kv.key != key:
            continue
        text = to_text(kv.value)
        if text is None or len(text) > MAX_CONTENT:
            return None
        return parse_json_text(text)
    return None


def _request_tools(view: SpanView) -> list[Decoded]:
    """The request's tool definitions: each item of the outer list is itself JSON text of a tool list."""
    outer = view.json_attr(lt.REQUEST_TOOLS)
    if not isinstance(outer, list):
        return []
    tools: list[Decoded] = []
    for item in outer[:MAX_TOOL_LISTS]:
        value = parse_json_text(item) if isinstance(item, str) and len(item) <= MAX_CONTENT else item
        if isinstance(value, list):
            tools.extend(value)
        elif isinstance(value, dict):
            tools.append(value)
    return tools


def _read_model_method(view: SpanView) -> SpanFacts:
    answer = _answer(view)
    facts = SpanFacts(kind=NodeKind.OTHER, convention=CONVENTION, name=view.name)
    fill_error(view, facts)
    if answer is None and not facts.failed:
        return facts  # a helper of the model class (``asdict``, ``model_post_init``): no call
    facts.kind = NodeKind.MODEL_CALL
    facts.wraps_model_call = True
    facts.model = view.str_attr(genai.REQUEST_MODEL)
    facts.usage = read_usage(view, (genai.USAGE_INPUT_TOKENS,), (genai.USAGE_OUTPUT_TOKENS,))
    if answer is not None and answer.get(lt.MESSAGE_TYPE) == lt.AI_MESSAGE:
        calls = chat_completions_calls(answer.get(lt.TOOL_CALLS), answer.get(lt.INVALID_TOOL_CALLS))
        message: dict[str, Decoded] = {"role": "assistant", "content": answer.get(lt.CONTENT)}
        if calls:
            message["tool_calls"] = calls
        fill_chat_completions(facts, None, [message])
    return facts


def _answer(view: SpanView) -> dict[str, Decoded] | None:
    """The method's result when it is a model answer (an ``AIMessage`` or ``LLMResult`` object), else ``None``."""
    text = view.str_attr(lt.LANGCHAIN_OUTPUTS, limit=MAX_CONTENT + 1)
    if text is None or len(text) > MAX_CONTENT:
        return None
    value = parse_json_text(text)
    if isinstance(value, dict) and value.get(lt.MESSAGE_TYPE) in _ANSWER_TYPES:
        return value
    return None
