"""Reader for LangSmith's OTel spans (scope ``langsmith``, ``langsmith.span.kind``): one span per LangChain run.

Pinned to the ``langsmith`` SDK 0.15.1 (names and value formats in :mod:`semconv.langsmith`). The exporter also writes
GenAI attributes (operation, system, request model, usage, tool name and call id, tool definitions), read with
:func:`~otel_mapper.mapping.readers.genai.fill_genai_facts`; content is in the legacy ``gen_ai.prompt`` /
``gen_ai.completion`` names, each one JSON text of the run's inputs / outputs, read here.

Kinds from the run type: ``llm`` a model call, ``tool`` a tool execution (a handoff when langgraph-supervisor's
``__handoff_destination`` metadata names the agent it hands the run to), ``retriever`` / ``embedding`` a retrieval,
``chain`` a workflow step, except a chain whose name holds "agent": an agent invocation candidate, the rule by which
OpenInference's and Langfuse's LangChain handlers type a run ``agent`` (LangSmith types no run so). The LangGraph run
metadata read here (``graph_run_node``, ``sequence``) lets :mod:`otel_mapper.mapping.graph_runs` keep only the runs
that execute an agent's graph, as for those conventions.

Model calls: proposals, finish reasons, response id and model from the ``LLMResult``; consumed call ids, earlier tool
calls and message digests from the input messages (LangChain's constructor form). The ``llm`` runs of ``wrap_openai``
carry the Chat Completions request (messages with a ``role``, the offered ``tools``) and the ``ChatCompletion``
(``choices``) instead, read as they are; a ``@traceable`` run that raised has the outputs ``{"output": null}``. Tools: arguments from the input
(:func:`~otel_mapper.mapping.readers.langchain_messages.tool_input_arguments`), the call id from
``gen_ai.tool.call.id`` (else the returned ``ToolMessage``). Errors: the status, and an ``exception`` event even under
an OK status (the exporter writes a run's error as status and event together, and the status of a span made OK
stays OK); the error class is the exception repr heading the message (the event's type is always ``Exception``);
LangGraph's control-flow exceptions are no failure. Chain spans carry usage copied from the model call under them:
an aggregate.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import (
    MAX_ERROR_MESSAGE,
    clean_name,
    fill_chat_completions,
    fill_error,
    fill_handoff_target,
    json_content,
)
from otel_mapper.mapping.readers.genai import fill_genai_facts, kind_of_operation, read_tool_definitions
from otel_mapper.mapping.readers.langchain_messages import (
    chat_completions_calls,
    tool_input_arguments,
    tool_message_call_id,
)
from otel_mapper.mapping.readers.langgraph import is_control_flow, sequence_from_metadata
from otel_mapper.mapping.spans import MAX_NAME, MAX_TEXT, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai, langgraph
from semconv import langsmith as ls
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "LangSmithReader"]

CONVENTION: Final = "langsmith"
MAX_MESSAGES: Final = 10_000
"""Messages (and generations) looked at per span."""
_AGENT_NAME_MARK: Final = "agent"
_GENERIC_EXCEPTION: Final = "Exception"
_REPR_CLASS = re.compile(r"\s*([A-Za-z_][\w.]{0,200})\(")
_KINDS: Final = {
    ls.RUN_LLM: NodeKind.MODEL_CALL,
    ls.RUN_TOOL: NodeKind.TOOL_EXECUTION,
    ls.RUN_RETRIEVER: NodeKind.RETRIEVAL,
    ls.RUN_EMBEDDING: NodeKind.RETRIEVAL,
    ls.RUN_CHAIN: NodeKind.WORKFLOW_STEP,
    ls.RUN_PROMPT: NodeKind.WORKFLOW_STEP,
    ls.RUN_PARSER: NodeKind.WORKFLOW_STEP,
}


class LangSmithReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({ls.RUN_TYPE})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({ls.SCOPE_NAME})

    def claims(self, view: SpanView) -> bool:
        return view.scope_name == ls.SCOPE_NAME or ls.RUN_TYPE in view.attrs

    def read(self, view: SpanView) -> SpanFacts:
        facts = SpanFacts(kind=_kind(view), convention=self.name, name=view.name)
        if facts.kind is NodeKind.AGENT_INVOCATION:
            facts.agent_name = clean_name(view.name)
        elif facts.kind is NodeKind.MODEL_CALL:
            _read_model_call(view, facts)
        elif facts.kind is NodeKind.TOOL_EXECUTION:
            _read_tool(view, facts)
        fill_genai_facts(view, facts)  # model, provider, usage (an aggregate off model calls), tool name and call id
        if facts.kind is NodeKind.TOOL_EXECUTION:
            _read_handoff(view, facts)
        _read_langgraph(view, facts)
        _read_error(view, facts)
        return facts


def _kind(view: SpanView) -> NodeKind:
    run_type = (view.str_attr(ls.RUN_TYPE) or "").strip().lower()
    if run_type in _KINDS:
        kind = _KINDS[run_type]
    else:
        operation = view.str_attr(genai.OPERATION_NAME)
        kind = kind_of_operation(operation) if operation else NodeKind.OTHER
    if kind is NodeKind.WORKFLOW_STEP and run_type == ls.RUN_CHAIN and _AGENT_NAME_MARK in view.name.lower():
        return NodeKind.AGENT_INVOCATION
    return kind


def _metadata(view: SpanView, key: str, limit: int = MAX_NAME) -> str | None:
    return view.str_attr(f"{ls.METADATA_PREFIX}{key}", limit=limit)


def _read_model_call(view: SpanView, facts: SpanFacts) -> None:
    facts.provider = clean_name(_metadata(view, ls.METADATA_PROVIDER))
    facts.model = clean_name(_metadata(view, ls.METADATA_MODEL_NAME))
    prompt = json_content(view, ls.PROMPT)
    inputs = _input_messages(prompt)
    tools = prompt.get(ls.INPUT_TOOLS) if isinstance(prompt, dict) else None
    if isinstance(tools, list):  # wrap_openai's request; gen_ai.tool.definitions, when written, is read after
        facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(tools)
    completion = json_content(view, ls.COMPLETION)
    outputs: list[Decoded] | None = None
    if isinstance(completion, dict):
        outputs = _read_result(completion, facts)
        if outputs is None:
            outputs = _read_chat_completion(completion, facts)
        if outputs is None and inputs is not None and _returned_nothing(completion) and view.span.events:
            outputs = []  # a @traceable function that raised returns {"output": null}: the failed call answered nothing
    elif inputs is not None and ls.COMPLETION not in view.attrs and view.span.events:
        outputs = []  # the run's inputs are recorded, so content is captured: a failed call answered nothing
    fill_chat_completions(facts, inputs, outputs)


def _input_messages(value: Decoded) -> list[Decoded] | None:
    """Chat Completions messages of a chat model's input ``{"messages": [[...]]}`` (the first prompt of a batch)."""
    if not isinstance(value, dict):
        return None
    messages = value.get(ls.INPUT_MESSAGES)
    if not isinstance(messages, list):
        return None
    if messages and isinstance(messages[0], list):
        messages = messages[0]
    return [message for item in messages[:MAX_MESSAGES] if (message := _chat_message(item)) is not None]


def _read_result(completion: dict[str, Decoded], facts: SpanFacts) -> list[Decoded] | None:
    """The output messages of an ``LLMResult`` (first prompt's generations), and its finish reasons, response id and
    model; ``None`` when the output is no ``LLMResult``."""
    generations = completion.get(ls.OUTPUT_GENERATIONS)
    if not isinstance(generations, list):
        return None
    first = generations[0] if generations and isinstance(generations[0], list) else []
    messages: list[Decoded] = []
    reasons: list[str] = []
    for generation in first[:MAX_MESSAGES]:
        if not isinstance(generation, dict):
            continue
        message = _chat_message(generation.get(ls.GENERATION_MESSAGE))
        if message is not None:
            messages.append(message)
        info = generation.get(ls.GENERATION_INFO)
        reason = info.get(ls.FINISH_REASON) if isinstance(info, dict) else None
        if isinstance(reason, str) and reason:
            reasons.append(reason[:MAX_NAME])
    facts.finish_reasons = tuple(reasons)
    llm_output = completion.get(ls.LLM_OUTPUT)
    if isinstance(llm_output, dict):
        response_id, model = llm_output.get(ls.LLM_OUTPUT_ID), llm_output.get(ls.LLM_OUTPUT_MODEL)
        facts.response_id = clean_name(response_id) if isinstance(response_id, str) else None
        facts.model = (clean_name(model) if isinstance(model, str) else None) or facts.model
    return messages


def _read_chat_completion(completion: dict[str, Decoded], facts: SpanFacts) -> list[Decoded] | None:
    """The assistant messages of a ``ChatCompletion`` dict (``wrap_openai``'s output), and its finish reasons,
    response id and model; ``None`` when the output has no ``choices`` list."""
    choices = completion.get(ls.OUTPUT_CHOICES)
    if not isinstance(choices, list):
        return None
    messages: list[Decoded] = []
    reasons: list[str] = []
    for choice in choices[:MAX_MESSAGES]:
        if not isinstance(choice, dict):
            continue
        message = _chat_message(choice.get(ls.CHOICE_MESSAGE))
        if message is not None:
            messages.append(message)
        reason = choice.get(ls.FINISH_REASON)
        if isinstance(reason, str) and reason:
            reasons.append(reason[:MAX_NAME])
    facts.finish_reasons = tuple(reasons)
    response_id, model = completion.get(ls.RESPONSE_ID), completion.get(ls.RESPONSE_MODEL)
    facts.response_id = clean_name(response_id) if isinstance(response_id, str) else None
    facts.model = (clean_name(model) if isinstance(model, str) else None) or facts.model
    return messages


def _returned_nothing(completion: dict[str, Decoded]) -> bool:
    """Whether a run's outputs are ``@traceable``'s record of a function that returned no value."""
    return len(completion) == 1 and ls.TOOL_OUTPUT in completion and completion[ls.TOOL_OUTPUT] is None


def _chat_message(value: Decoded) -> Decoded | None:
    """A message as a Chat Completions message dict: one that already is (a string ``role``: ``wrap_openai``'s
    request and response), or a LangChain message in its constructor form (tool calls, and calls that did not parse,
    as ``{"id", "function": {"name", "arguments"}}``); ``None`` for anything else."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get(ls.MESSAGE_ROLE), str):
        return value
    path, body = value.get(ls.LC_ID), value.get(ls.LC_KWARGS)
    if not isinstance(path, list) or not path or not isinstance(path[-1], str) or not isinstance(body, dict):
        return None
    role = ls.MESSAGE_ROLES.get(path[-1])
    if role is None:
        return None
    message: dict[str, Decoded] = {"role": role, "content": body.get(ls.MESSAGE_CONTENT)}
    call_id = body.get(ls.MESSAGE_TOOL_CALL_ID)
    if isinstance(call_id, str):
        message["tool_call_id"] = call_id
    calls = chat_completions_calls(body.get(ls.MESSAGE_TOOL_CALLS), body.get(ls.MESSAGE_INVALID_TOOL_CALLS))
    if calls:
        message["tool_calls"] = calls
    return message


def _read_tool(view: SpanView, facts: SpanFacts) -> None:
    facts.tool_name = clean_name(view.str_attr(genai.TOOL_NAME)) or clean_name(view.name)
    raw = view.str_attr(ls.PROMPT, limit=MAX_TEXT + 1)
    if raw is not None and len(raw) <= MAX_TEXT:
        facts.arguments, facts.arguments_json = tool_input_arguments(raw)
        facts.arguments_visible = facts.arguments is not None
    output = json_content(view, ls.COMPLETION)
    result = output.get(ls.TOOL_OUTPUT) if isinstance(output, dict) else None
    facts.result_visible = isinstance(output, dict) and ls.TOOL_OUTPUT in output
    if not view.has(genai.TOOL_CALL_ID) and result is not None:
        facts.tool_call_id = tool_message_call_id(result)
        if facts.tool_call_id:
            facts.tool_call_id_evidence = f"{ls.COMPLETION}: ToolMessage {ls.MESSAGE_TOOL_CALL_ID}"


def _read_handoff(view: SpanView, facts: SpanFacts) -> None:
    destination = clean_name(_metadata(view, langgraph.HANDOFF_DESTINATION))
    if destination:
        # langgraph-supervisor's handoff tool: its execution is the handoff, joined to the proposal by its call id.
        facts.kind = NodeKind.HANDOFF
        facts.handoff_to_agent = destination
    else:
        fill_handoff_target(facts)


def _read_langgraph(view: SpanView, facts: SpanFacts) -> None:
    step_key = f"{ls.METADATA_PREFIX}{langgraph.STEP}"
    if step_key not in view.attrs:
        return  # cheap: runs outside a LangGraph graph have no LangGraph metadata
    metadata: dict[str, Decoded] = {langgraph.STEP: view.int_attr(step_key)}
    node = clean_name(_metadata(view, langgraph.NODE))
    namespace = _metadata(view, langgraph.CHECKPOINT_NS, limit=4 * MAX_NAME)
    if node is not None:
        metadata[langgraph.NODE] = node
    if namespace is not None:
        metadata[langgraph.CHECKPOINT_NS] = namespace
    facts.sequence = sequence_from_metadata(view, metadata)  # the span is named after its run
    facts.graph_run_node = node


def _read_error(view: SpanView, facts: SpanFacts) -> None:
    fill_error(view, facts)
    if not facts.failed and facts.error_message is not None and _has_exception_event(view):
        facts.failed = True  # the run's error, written under a status already final OK
    if facts.error_type in (None, _GENERIC_EXCEPTION) and facts.error_message:
        match = _REPR_CLASS.match(facts.error_message[:MAX_ERROR_MESSAGE])
        if match:
            facts.error_type = match.group(1)[:MAX_NAME]
    if facts.failed and is_control_flow(facts.error_type, facts.error_message):
        facts.failed = False


def _has_exception_event(view: SpanView) -> bool:
    return any(event.name == genai.EXCEPTION_EVENT for event in view.span.events)
