"""Reader for MLflow Tracing spans (``mlflow.spanType``), as its OpenAI and LangChain autologging write them.

Pinned to ``mlflow-tracing`` 3.17.2 on ``openai-agents`` 0.24.0 / ``openai`` 3.57.0 and ``langchain-core`` 1.8.3 /
``langgraph`` 1.2.24; names in :mod:`semconv.mlflow`. Every MLflow attribute value is JSON text, decoded here. Kinds
from ``mlflow.spanType``: ``AGENT`` an agent invocation named by its span, ``TOOL`` a tool execution (arguments
``mlflow.spanInputs``, result ``mlflow.spanOutputs``; the Agents SDK's carry no call id), ``CHAT_MODEL`` / ``LLM`` a
model call, ``CHAIN`` a step (the SDK's ``Handoff`` chain, ``{"from_agent"}`` in, ``{"to_agent"}`` out, a handoff),
``RETRIEVER`` / ``EMBEDDING`` a retrieval, ``GUARDRAIL`` a guardrail. A span typed by MLflow that carries a GenAI
operation (``gen_ai.operation.name``: Strands' own spans under MLflow's Strands autolog, typed as they end) is not
claimed: its own convention reads it, from the events MLflow's inputs copy only in part; so is a span of another
tracer's scope that MLflow typed ``UNKNOWN`` and recorded nothing on (Semantic Kernel's loop span under MLflow's
Semantic Kernel autolog, whose ``chat`` spans' messages :mod:`otel_mapper.mapping.readers.mlflow_typed_genai` reads). A LangChain run's span (a ``metadata``
attribute: the run's metadata) is completed from the run's data by :mod:`otel_mapper.mapping.readers.mlflow_langchain`
(LangGraph's run metadata, agent graph runs, the tool run's call id, langgraph-supervisor's handoff, routing
exceptions). The autologs that patch a framework's classes (smolagents) name a span ``<Class>.<method>``: an agent
span's own name is then its ``name`` field, and a tool span names its tool only by its ``function`` fields; a tool
span that names none gets its name from the proposal it ran (:mod:`otel_mapper.mapping.nameless_tools`). The DSPy
autolog's spans (a Predict module's run typed ``LLM``, the ``LM.__call__`` span of message format ``dspy``, tool spans
naming their tool in ``name``) are read by :mod:`otel_mapper.mapping.readers.mlflow_dspy`. The Anthropic autolog's
``Messages.create`` span (message format ``anthropic``: the request's ``system`` and ``messages``, the response
``Message`` with its ``tool_use`` blocks and their ids) is read by :mod:`otel_mapper.mapping.anthropic_messages`; the
Bedrock autolog's ``BedrockRuntime.converse`` span (message format ``bedrock``: the Converse request's ``system`` and
``messages``, the response's ``output.message``, ``toolUse`` blocks with their ids) by
:mod:`otel_mapper.mapping.converse_messages`; the Gemini autolog's spans (message format ``gemini``: the call's
``contents`` and ``config``, the ``GenerateContentResponse``, ``function_call`` parts with their ids) by
:mod:`otel_mapper.mapping.gemini_contents`; the LlamaIndex autolog's spans (message format ``llamaindex``: LlamaIndex
``ChatMessage`` dicts, workflow steps recording call ids) by :mod:`otel_mapper.mapping.readers.mlflow_llama_index`;
the AG2 autolog's spans (message format ``ag2``: a message span per received message, typed ``AGENT``, the session's
``UNKNOWN`` root, AG2's handoff function) by :mod:`otel_mapper.mapping.readers.mlflow_ag2`; the AutoGen autolog's
spans (``<agent>.run`` / ``<agent>.on_messages`` agent spans, the ``create`` span of message format ``autogen``: AutoGen's
own message dumps and ``CreateResult``) by :mod:`otel_mapper.mapping.readers.mlflow_autogen`. That autolog records one request twice, ``Models.generate_content`` around
the ``Models._generate_content`` that sends it: a Gemini span is a layer of the model call below it
(:attr:`~otel_mapper.mapping.facts.SpanFacts.wraps_model_call`), folded into it when it holds exactly one
(:mod:`otel_mapper.mapping.wrapped_model_calls`), so the request is one node, its usage counted once and its failure
one failure.

The Agents SDK's generation span (``mlflow.message.format`` ``openai-agent``: Chat Completions message lists in and
out, the usage) holds the OpenAI client's call (format ``openai``: the request with its ``messages`` and ``tools``,
the ``ChatCompletion`` with its id). They are one request: each says so with a dedup key naming the generation span,
so the mapping merges the pair (nested spans of one call, declared) and the usage is counted once. Two client calls
under one parent that is no generation span share a key too but are not nested, so they stay apart.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

from otel_mapper.mapping.anthropic_messages import fill_anthropic_messages
from otel_mapper.mapping.converse_messages import fill_converse_messages
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.gemini_contents import fill_gemini_contents
from otel_mapper.mapping.messages import arguments_text, replayed_call_ids, result_text_digest
from otel_mapper.mapping.pydantic_ai_messages import fill_pydantic_ai_messages
from otel_mapper.mapping.readers.common import clean_name, fill_chat_completions, fill_error
from otel_mapper.mapping.readers.genai import read_tool_definitions
from otel_mapper.mapping.readers.mlflow_ag2 import ag2_kind, read_ag2_message, read_ag2_transfer
from otel_mapper.mapping.readers.mlflow_autogen import autogen_agent_span, fill_autogen_messages
from otel_mapper.mapping.readers.mlflow_crewai import read_native_tool_call, role_named
from otel_mapper.mapping.readers.mlflow_dspy import (
    completion_messages,
    dspy_module_kind,
    dspy_tool_name,
    read_dspy_lm_call,
)
from otel_mapper.mapping.readers.mlflow_langchain import read_langchain_run, run_metadata
from otel_mapper.mapping.readers.mlflow_llama_index import (
    llama_index_kind,
    read_llama_index_chat,
    read_llama_index_step,
)
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from otel_mapper.model import TokenUsage
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai
from semconv import mlflow as ml
from semconv import smolagents as smol
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "MLflowReader"]

CONVENTION: Final = "mlflow"
_KINDS: Final[dict[str, NodeKind]] = {
    ml.AGENT: NodeKind.AGENT_INVOCATION,
    ml.TOOL: NodeKind.TOOL_EXECUTION,
    ml.CHAT_MODEL: NodeKind.MODEL_CALL,
    ml.LLM: NodeKind.MODEL_CALL,
    ml.CHAIN: NodeKind.WORKFLOW_STEP,
    ml.RETRIEVER: NodeKind.RETRIEVAL,
    ml.EMBEDDING: NodeKind.RETRIEVAL,
    ml.GUARDRAIL: NodeKind.GUARDRAIL,
}
_GENERATION_KEY: Final = "mlflow-generation:"
MAX_MESSAGES: Final = 1024
"""Input messages searched for replayed results."""
_METHOD_NAME: Final = re.compile(r"[A-Z][A-Za-z0-9_]{0,127}\.[A-Za-z_][A-Za-z0-9_]{0,127}")
"""``<Class>.<method>``: the name a class-patching autolog gives a span (``ToolCallingAgent.run``,
``SimpleTool.__call__``); an agent or tool name does not look like that."""


class MLflowReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({ml.SPAN_TYPE})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset()

    def claims(self, view: SpanView) -> bool:
        # A span MLflow's processor exported but its API did not make carries a JSON null type: another
        # instrumentation's span, read by that instrumentation's reader. One that carries a GenAI operation is
        # another tracer's GenAI span that an MLflow processor typed as it ended (its Strands autolog: a type, inputs
        # and outputs copied from the span's own events, the assistant messages left out): no MLflow export writes
        # its type beside a GenAI operation (its GenAI export drops every ``mlflow.*`` key), so the span's own
        # convention reads it. So does a span of another tracer's scope typed ``UNKNOWN`` with no MLflow inputs or
        # outputs: an MLflow processor's type for a span of no operation it knows (its Semantic Kernel autolog),
        # which says nothing of the span.
        return (
            ml.SPAN_TYPE in view.attrs
            and view.str_attr(ml.SPAN_TYPE) != ml.NULL_SPAN_TYPE
            and genai.OPERATION_NAME not in view.attrs
            and not _foreign_unknown(view)
        )

    def read(self, view: SpanView) -> SpanFacts:
        span_type = _text(view, ml.SPAN_TYPE)
        kind = _KINDS.get(span_type or "", NodeKind.OTHER)
        inputs = view.json_attr(ml.SPAN_INPUTS) if ml.SPAN_INPUTS in view.attrs else None
        outputs = view.json_attr(ml.SPAN_OUTPUTS) if ml.SPAN_OUTPUTS in view.attrs else None
        if kind is NodeKind.WORKFLOW_STEP and view.span.name == ml.HANDOFF_SPAN and _has(inputs, ml.HANDOFF_FROM):
            kind = NodeKind.HANDOFF
        method_named = _METHOD_NAME.fullmatch(view.span.name) is not None
        kind = dspy_module_kind(view, kind, method_named)
        message_format = _text(view, ml.MESSAGE_FORMAT)
        kind = llama_index_kind(view, kind, message_format)
        kind = ag2_kind(view, kind, span_type, message_format)
        ag2 = message_format == ml.FORMAT_AG2
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        if kind is NodeKind.AGENT_INVOCATION:
            own = _text(view, ml.INSTANCE_NAME) if method_named else None
            # ``<agent>.<method>`` of the AutoGen autolog, which writes no instance field (smolagents' run span, named
            # ``<Class>.run`` with a ``task`` too, records the agent's fields, its ``name`` among them).
            autogen = autogen_agent_span(view.span.name, inputs) if ml.INSTANCE_NAME not in view.attrs else None
            facts.agent_name = autogen.agent if autogen is not None else clean_name(own or view.span.name)
            facts.inner_agent_method = autogen is not None and autogen.inner_method
            # The answer the run returned: a patched method's span gets its outputs only when the method returned
            # (the Agents SDK processor's agent spans copy the SDK's span data, written whether or not the run failed).
            patched = method_named or autogen is not None or role_named(view)
            facts.returned_answer = patched and outputs is not None
            tools = view.json_attr(ml.AGENT_TOOLS) if ml.AGENT_TOOLS in view.attrs else None
            if isinstance(tools, list) and all(isinstance(item, str) for item in tools):
                facts.tool_definitions = tuple(sorted({name for item in tools if (name := clean_name(str(item)))}))
        elif kind is NodeKind.TOOL_EXECUTION:
            # A span named after the patched method names no tool unless the tool's fields say which.
            facts.tool_name = (_tool_field(view) or dspy_tool_name(view)) if method_named else clean_name(view.span.name)
            returned = outputs.get(ml.RETURN_VALUE) if method_named and isinstance(outputs, dict) else None
            if isinstance(returned, str):
                facts.result_digest = result_text_digest(returned)
            if inputs is not None:
                facts.arguments = arguments_text(inputs)
                facts.arguments_visible = facts.arguments is not None
            facts.result_visible = outputs is not None
            read_native_tool_call(facts, inputs, outputs)
        elif kind is NodeKind.HANDOFF and ag2:
            read_ag2_transfer(facts, outputs)
        elif kind is NodeKind.HANDOFF:
            facts.handoff_from_agent = _field(inputs, ml.HANDOFF_FROM)
            facts.handoff_to_agent = _field(outputs, ml.HANDOFF_TO)
        elif kind is NodeKind.MODEL_CALL:
            _fill_model_call(view, facts, inputs, outputs)
        elif kind is NodeKind.WORKFLOW_STEP and ag2:
            read_ag2_message(facts, inputs, outputs)
        elif kind is NodeKind.WORKFLOW_STEP and method_named:
            read_llama_index_step(view, facts, inputs, outputs)
        fill_error(view, facts)
        metadata = run_metadata(view) if ml.RUN_METADATA in view.attrs else None
        if metadata is not None and kind is not NodeKind.MODEL_CALL:
            read_langchain_run(view, facts, metadata)
        return facts


def _fill_model_call(view: SpanView, facts: SpanFacts, inputs: Decoded, outputs: Decoded) -> None:
    facts.model = clean_name(_text(view, ml.LLM_MODEL)) or _recorded_model(outputs) or _recorded_model(inputs)
    usage = view.json_attr(ml.CHAT_TOKEN_USAGE) if ml.CHAT_TOKEN_USAGE in view.attrs else None
    if isinstance(usage, dict):
        facts.usage = TokenUsage(
            input_tokens=_count(usage.get("input_tokens")),
            output_tokens=_count(usage.get("output_tokens")),
            cached_input_tokens=min(_count(usage.get("cache_read_input_tokens")), _count(usage.get("input_tokens"))),
        )
    if ml.CHAT_TOOLS in view.attrs:
        facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(view.json_attr(ml.CHAT_TOOLS))
    if _text(view, ml.MESSAGE_FORMAT) == ml.FORMAT_AGENTS_GENERATION:
        facts.dedup_key = _GENERATION_KEY + view.span_id  # the client call inside it says the same
        input_messages = inputs
        # Recorded but no list (``null``: the request failed and answered nothing) is no message, not lost content.
        output_messages = outputs if isinstance(outputs, list) or ml.SPAN_OUTPUTS not in view.attrs else []
    else:
        if view.parent_span_id:
            facts.dedup_key = _GENERATION_KEY + view.parent_span_id
        message_format = _text(view, ml.MESSAGE_FORMAT)
        if message_format == ml.FORMAT_ANTHROPIC:  # the Anthropic client's call, request and Message
            fill_anthropic_messages(facts, inputs, outputs)
            return
        if message_format == ml.FORMAT_BEDROCK:  # a Bedrock ``converse`` call, request and response
            fill_converse_messages(facts, inputs, outputs)
            return
        if message_format == ml.FORMAT_PYDANTIC_AI:  # a Pydantic AI model request, its messages and ModelResponse
            fill_pydantic_ai_messages(facts, inputs, outputs)
            return
        if message_format == ml.FORMAT_LLAMA_INDEX:  # a LlamaIndex LLM's chat, ChatMessages and ChatResponse
            read_llama_index_chat(facts, inputs, outputs)
            return
        if message_format == ml.FORMAT_AUTOGEN:  # an AutoGen model client's create, its messages and CreateResult
            fill_autogen_messages(facts, inputs, outputs)
            return
        if message_format == ml.FORMAT_GEMINI:  # a Gemini call, arguments and GenerateContentResponse
            # A layer of the call when another Gemini span records it inside this one (``generate_content`` around
            # the ``_generate_content`` that sends the request): folded into that one, the request's.
            facts.wraps_model_call = True
            fill_gemini_contents(facts, inputs, outputs)
            return
        input_messages = _one_text_part(inputs.get("messages")) if isinstance(inputs, dict) else None
        facts.replayed_results = _replayed_results(input_messages)
        _fill_request_tools(view, facts, inputs)
        output_messages = None
        if _text(view, ml.MESSAGE_FORMAT) == ml.FORMAT_DSPY:
            output_messages = completion_messages(outputs)
            fill_chat_completions(facts, input_messages, output_messages)
            read_dspy_lm_call(facts, input_messages, output_messages)
            return
        if isinstance(outputs, dict):
            response_id = outputs.get("id")
            facts.response_id = str(response_id)[:MAX_NAME] if isinstance(response_id, str) else None
            choices = outputs.get("choices")
            if isinstance(choices, list):
                output_messages = [choice.get("message") for choice in choices if isinstance(choice, dict)]
        elif message_format == ml.FORMAT_AG2 and isinstance(outputs, str):
            output_messages = []  # a failed attempt, logged with AG2's text for a response: it answered nothing
    fill_chat_completions(facts, input_messages, output_messages)


def _recorded_model(recorded: Decoded) -> str | None:
    """The model a model call's recorded response or request names (its ``model`` field: the Chat Completions,
    Responses and Anthropic Messages objects, LiteLLM's ``completion`` arguments), where MLflow wrote no
    ``mlflow.llm.model`` (LiteLLM's ``mlflow`` callback does not); the response's first, as the model that answered."""
    model = recorded.get(ml.RECORDED_MODEL) if isinstance(recorded, dict) else None
    return clean_name(model) if isinstance(model, str) else None


def _fill_request_tools(view: SpanView, facts: SpanFacts, inputs: Decoded) -> None:
    """The offered tools from the request's own ``tools`` list in the span's inputs, where MLflow wrote no
    ``mlflow.chat.tools`` (LiteLLM's ``mlflow`` callback, the AG2 autolog, a failed OpenAI client call). Inputs that
    hold no such list leave the offer unknown: a request recorded without it may still have offered tools."""
    if ml.CHAT_TOOLS in view.attrs or not isinstance(inputs, dict):
        return
    tools = inputs.get(ml.REQUEST_TOOLS)
    if isinstance(tools, list) and tools:
        facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(tools)


def _replayed_results(messages: Decoded) -> list[tuple[str, str]]:
    """smolagents' replay of one call as text and the message after it holding its result (``Calling tools:`` then
    ``Observation:``): (call id, digest of the result text). A replay of several calls has one text for all results."""
    if not isinstance(messages, list):
        return []
    texts = [_message_text(message) for message in messages[:MAX_MESSAGES]]
    found: list[tuple[str, str]] = []
    for text, after in zip(texts, texts[1:], strict=False):
        if text is None or after is None or not after.startswith(smol.OBSERVATION_TEXT_PREFIX):
            continue
        ids = replayed_call_ids(text)
        if len(ids) == 1:
            found.append((ids[0], result_text_digest(after[len(smol.OBSERVATION_TEXT_PREFIX):])))
    return found


def _one_text_part(messages: Decoded) -> Decoded:
    """Chat Completions messages whose content is one text part (``[{"type": "text", "text": ...}]``, as smolagents
    sends every message) with that text as their content, the shape the message reader reads."""
    if not isinstance(messages, list):
        return messages
    flat: list[Decoded] = []
    for message in messages[:MAX_MESSAGES]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(message, dict) and isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) \
                and content[0].get("type") == "text" and isinstance(content[0].get("text"), str):
            message = {**message, "content": content[0]["text"]}
        flat.append(message)
    return flat


def _message_text(message: Decoded) -> str | None:
    """A Chat Completions message's string content."""
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


def _tool_field(view: SpanView) -> str | None:
    """The tool's name from its ``function`` fields (``{"name", "description"}``), when the span records them."""
    function = view.json_attr(ml.TOOL_FUNCTION) if ml.TOOL_FUNCTION in view.attrs else None
    name = function.get("name") if isinstance(function, dict) else None
    return clean_name(name) if isinstance(name, str) else None


def _foreign_unknown(view: SpanView) -> bool:
    """A span typed ``UNKNOWN`` whose instrumentation scope is not MLflow's own tracer's and on which MLflow recorded
    no inputs or outputs."""
    return (
        bool(view.scope_name)
        and view.scope_name != ml.TRACER_SCOPE
        and ml.SPAN_INPUTS not in view.attrs
        and ml.SPAN_OUTPUTS not in view.attrs
        and _text(view, ml.SPAN_TYPE) == ml.UNKNOWN
    )


def _text(view: SpanView, key: str) -> str | None:
    """A string attribute MLflow wrote as JSON text."""
    if key not in view.attrs:
        return None
    value = view.json_attr(key)
    return value if isinstance(value, str) else None


def _has(value: Decoded, key: str) -> bool:
    return isinstance(value, dict) and key in value


def _field(value: Decoded, key: str) -> str | None:
    item = value.get(key) if isinstance(value, dict) else None
    return clean_name(item) if isinstance(item, str) else None


def _count(value: object) -> int:
    return max(value, 0) if isinstance(value, int) and not isinstance(value, bool) else 0
