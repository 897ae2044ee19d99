"""Reader for Laminar's spans (scope ``lmnr.tracer``, ``lmnr.span.type``) and the OpenAI Agents SDK spans its
instrumentation makes.

Pinned to ``lmnr`` 0.8.2 (names and value formats in :mod:`semconv.laminar`). Laminar types a span only as ``LLM``,
``TOOL`` or ``DEFAULT``; what an Agents SDK span is comes from the span data the instrumentation writes:

- ``LLM``: a model call. Model, provider, usage, response id and tool definitions are GenAI attributes (read with
  :func:`~otel_mapper.mapping.readers.genai.fill_genai_facts`); ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  hold the provider's wire shape, not the GenAI parts schema, read here as Chat Completions messages (also a
  choice's ``message``, and a Responses API item as the message it stands for). A failed request records its input
  and no output: it answered nothing. Its Anthropic client instrumentation (``anthropic.chat``) records the Messages
  API's content blocks as they are: a list holding a ``tool_use`` or ``tool_result`` block is read as Messages API
  messages (:mod:`otel_mapper.mapping.anthropic_messages`). Its Google Gen AI instrumentation
  (``gemini.generate_content``) records the request's Gemini ``Content`` dicts (read by their shape, ``parts``) and the
  response's candidates, ``{"content": <Content>, "finish_reason", "index"}``: a candidate is read as its content.
- ``TOOL``: a handoff when named ``agents.handoff`` or carrying ``openai.agents.handoff.*`` (it runs the SDK's handoff
  tool, ``transfer_to_<agent>``, by which it joins the model's proposal); an MCP tool listing (it runs no tool);
  else a tool execution named by the span, its arguments from ``lmnr.span.input`` (the arguments' JSON text,
  JSON-encoded again). No call id is recorded: an execution joins its proposal by tool name and arguments.
- ``DEFAULT``: a guardrail (``openai.agents.guardrail.*``); a workflow step for task, turn and custom spans, the root
  and every other span; an agent invocation when ``lmnr.span.input`` is an agent's span data (``name`` and only the
  other keys the instrumentation writes for agents), with the tools and handoffs it offered as its tool definitions.
  Task and turn usage is a roll-up under ``openai.agents.*``, never read as model usage.

Spans of its LangChain callback handler (``lmnr.span.instrumentation_scope.name = langchain``) are read as LangChain
runs (:mod:`otel_mapper.mapping.readers.laminar_langchain`); an ``@observe`` span that runs a model loop becomes an
agent invocation after reading (:mod:`otel_mapper.mapping.observed_agents`).

Errors: the SDK's ``SpanError`` is a status label and an ``exception`` event whose message is the JSON of the error's
data; the data's ``error`` text (``Error code: 429 - ...``, ``Request timed out.``) is the error message, read before
the label, and the label joined with the data is read as the SDK renders it elsewhere (``Tool not found:
{"tool_name": ...}``) for the tool a runtime rejected as unknown. A span of another instrumentation that Laminar
re-typed keeping that convention's attributes (its Langfuse translation) is left to that convention's reader.
"""

from __future__ import annotations

from typing import ClassVar, Final, cast

from otel_mapper.mapping.anthropic_messages import anthropic_message
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import EXECUTION_KINDS
from otel_mapper.mapping.messages import MAX_MESSAGES, arguments_text, read_output_messages
from otel_mapper.mapping.readers.common import (
    GUARDRAIL_TRIGGERED_ERROR,
    MAX_ERROR_MESSAGE,
    clean_name,
    fill_chat_completions,
    fill_error,
    fill_handoff_target,
    fill_input_messages,
    http_status_in,
    json_content,
)
from otel_mapper.mapping.readers.genai import fill_genai_facts
from otel_mapper.mapping.readers.laminar_langchain import is_langchain_run, langchain_chain_kind, read_langchain_run
from otel_mapper.mapping.readers.openai_agents import handoff_tool_name
from otel_mapper.mapping.spans import MAX_TEXT, SpanView, parse_json_text
from otel_mapper.mapping.tool_names import MAX_REJECTION_TEXT, unknown_tool_named
from otel_mapper.otlp.anyvalue import Decoded, to_text
from semconv import adk, genai
from semconv import anthropic as an
from semconv import google_genai as gg
from semconv import laminar as lm
from semconv.langfuse import OBSERVATION_TYPE as LANGFUSE_OBSERVATION_TYPE
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "LaminarReader"]

CONVENTION: Final = "laminar"
_MAX_OFFERED: Final = 1_000
"""Tool and handoff names read from one agent span."""
_ROLE: Final = "role"
_CONTENT: Final = "content"
_ANTHROPIC_TOOL_BLOCKS: Final = frozenset({an.BLOCK_TOOL_USE, an.BLOCK_TOOL_RESULT})


class LaminarReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({lm.SPAN_TYPE})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({lm.SCOPE_NAME})

    def claims(self, view: SpanView) -> bool:
        if view.scope_name == lm.SCOPE_NAME:
            return True
        attrs = view.attrs
        return lm.SPAN_TYPE in attrs and LANGFUSE_OBSERVATION_TYPE not in attrs

    def read(self, view: SpanView) -> SpanFacts:
        agent = _agent_data(view)
        facts = SpanFacts(kind=_kind(view, agent), convention=self.name, name=view.name)
        _read_sdk_error(view, facts)  # before any reading takes the status label as the message
        kind = facts.kind
        if kind is NodeKind.MODEL_CALL:
            _read_model_call(view, facts)  # the GenAI attributes, errors included
        else:
            if kind is NodeKind.TOOL_EXECUTION:
                _read_tool(view, facts)
            elif kind is NodeKind.HANDOFF:
                _read_handoff(view, facts)
            elif agent is not None:
                _read_agent(agent, facts)
            elif kind is NodeKind.GUARDRAIL and view.bool_attr(lm.GUARDRAIL_TRIGGERED):
                facts.error_type = GUARDRAIL_TRIGGERED_ERROR
            fill_error(view, facts)
        if is_langchain_run(view):
            read_langchain_run(view, facts)
        elif kind is NodeKind.WORKFLOW_STEP and agent is None:
            facts.observed_function = _observed_function(view)
        return facts


def _span_type(view: SpanView) -> str:
    """The span's Laminar type; none written is Laminar's default (``Laminar.start_span(span_type="DEFAULT")``)."""
    return view.str_attr(lm.SPAN_TYPE) or lm.SPAN_TYPE_DEFAULT


def _kind(view: SpanView, agent: dict[str, Decoded] | None) -> NodeKind:
    span_type = _span_type(view)
    attrs = view.attrs
    if span_type == lm.SPAN_TYPE_LLM:
        return NodeKind.MODEL_CALL
    if span_type == lm.SPAN_TYPE_TOOL:
        if view.span.name == lm.HANDOFF_SPAN or lm.HANDOFF_TO in attrs or lm.HANDOFF_FROM in attrs:
            return NodeKind.HANDOFF
        if view.span.name in lm.MCP_LISTING_SPANS or lm.MCP_SERVER in attrs or lm.MCP_RESULT in attrs:
            return NodeKind.OTHER  # lists a server's tools; runs none
        return NodeKind.TOOL_EXECUTION
    if span_type != lm.SPAN_TYPE_DEFAULT:
        return NodeKind.OTHER  # Laminar's evaluation spans, and types newer than this reader
    if lm.GUARDRAIL_NAME in attrs or lm.GUARDRAIL_TRIGGERED in attrs:
        return NodeKind.GUARDRAIL
    if is_langchain_run(view):
        return langchain_chain_kind(view)
    return NodeKind.AGENT_INVOCATION if agent is not None else NodeKind.WORKFLOW_STEP


def _observed_function(view: SpanView) -> bool:
    """A ``DEFAULT`` span of the SDK's own (``@observe``, ``Laminar.start_span``): no instrumentation of Laminar's opened
    it, and it is no Agents SDK task, turn or custom span."""
    attrs = view.attrs
    return (
        view.scope_name == lm.SCOPE_NAME
        and lm.INSTRUMENTATION_SCOPE not in attrs
        and attrs.keys().isdisjoint(lm.STEP_MARKERS)
        and lm.CUSTOM_NAME not in attrs
    )


def _agent_data(view: SpanView) -> dict[str, Decoded] | None:
    """An Agents SDK agent span's data in ``lmnr.span.input`` (a ``DEFAULT`` span with no task, turn or custom
    attribute); ``None`` for any other span."""
    attrs = view.attrs
    if lm.SPAN_INPUT not in attrs or _span_type(view) != lm.SPAN_TYPE_DEFAULT:
        return None
    if not attrs.keys().isdisjoint(lm.STEP_MARKERS) or lm.CUSTOM_NAME in attrs or lm.GUARDRAIL_NAME in attrs:
        return None
    value = json_content(view, lm.SPAN_INPUT, limit=MAX_TEXT)
    if not isinstance(value, dict) or not isinstance(value.get(lm.AGENT_NAME), str):
        return None
    if len(value) < 2 or not value.keys() <= lm.AGENT_KEYS:
        return None  # an app's own span whose input happens to hold a name
    return value


def _read_agent(agent: dict[str, Decoded], facts: SpanFacts) -> None:
    name = agent.get(lm.AGENT_NAME)
    facts.agent_name = clean_name(name) if isinstance(name, str) else None
    tools, handoffs = agent.get(lm.AGENT_TOOLS), agent.get(lm.AGENT_HANDOFFS)
    if not isinstance(tools, list) and not isinstance(handoffs, list):
        return  # neither written: none offered, or not known yet
    offered = [
        clean_name(item) for item in (tools if isinstance(tools, list) else [])[:_MAX_OFFERED] if isinstance(item, str)
    ]
    for item in (handoffs if isinstance(handoffs, list) else [])[:_MAX_OFFERED]:
        target = clean_name(item) if isinstance(item, str) else None
        if target:
            offered.append(clean_name(handoff_tool_name(target)))
    facts.tool_definitions = tuple(sorted({name for name in offered if name}))


def _read_model_call(view: SpanView, facts: SpanFacts) -> None:
    fill_genai_facts(view, facts, content=False)
    raw_inputs = json_content(view, genai.INPUT_MESSAGES)
    raw_outputs = json_content(view, genai.OUTPUT_MESSAGES)
    inputs, outputs = _chat_messages(raw_inputs), _chat_messages(raw_outputs)
    if outputs is None and inputs is not None and facts.failed and genai.OUTPUT_MESSAGES not in view.attrs:
        outputs = []  # content is always recorded: a failed request answered nothing
    anthropic_outputs = _anthropic_messages(raw_outputs)
    if anthropic_outputs is not None:
        facts.proposals, facts.messages.outputs = read_output_messages(anthropic_outputs)
    anthropic_inputs = _anthropic_messages(raw_inputs)
    if anthropic_inputs is not None:
        fill_input_messages(facts, anthropic_inputs)
    fill_chat_completions(facts, inputs, outputs)  # the sides not read above


def _anthropic_messages(value: Decoded) -> Decoded:
    """A message list in the Messages API's shape (its client instrumentation records the request's ``messages`` and
    the response as they are: ``tool_use`` / ``tool_result`` content blocks) in the GenAI parts schema; ``None`` for a
    list with no such block (read as Chat Completions messages: text blocks read alike either way) or no list."""
    if not isinstance(value, list):
        return None
    messages = [item for item in value[:MAX_MESSAGES] if isinstance(item, dict)]
    if not any(_has_tool_block(message.get(an.CONTENT)) for message in messages):
        return None
    return cast(Decoded, [anthropic_message(message) for message in messages])


def _has_tool_block(content: Decoded) -> bool:
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get(an.MESSAGE_TYPE) in _ANTHROPIC_TOOL_BLOCKS
        for block in content[:MAX_MESSAGES]
    )


def _chat_messages(value: Decoded) -> list[Decoded] | None:
    """A message list as Chat Completions messages; ``None`` when no list was recorded."""
    if not isinstance(value, list):
        return None
    messages: list[Decoded] = []
    for item in value[:MAX_MESSAGES]:
        message = _chat_message(item) if isinstance(item, dict) else None
        if message is not None:
            messages.append(message)
    return messages


def _chat_message(item: dict[str, Decoded]) -> dict[str, Decoded] | None:
    """A Chat Completions message as it is (its content blocks as their text), a choice's ``message``, a Gemini
    candidate's ``content``, or the message a Responses item stands for (a function call: an assistant tool call; its
    output: a tool result); other Responses items (reasoning, ...) are left out."""
    item_type = item.get(lm.RESPONSES_TYPE)
    if item_type == lm.RESPONSES_FUNCTION_CALL:
        call = {
            "id": item.get(lm.RESPONSES_CALL_ID),
            "function": {"name": item.get(lm.RESPONSES_NAME), "arguments": item.get(lm.RESPONSES_ARGUMENTS)},
        }
        return {_ROLE: "assistant", _CONTENT: None, "tool_calls": [call]}
    if item_type == lm.RESPONSES_FUNCTION_CALL_OUTPUT:
        return {_ROLE: "tool", "tool_call_id": item.get(lm.RESPONSES_CALL_ID), _CONTENT: item.get(lm.RESPONSES_OUTPUT)}
    if item_type is not None and item_type != lm.RESPONSES_MESSAGE:
        return None
    if _ROLE not in item and isinstance(choice := item.get(lm.CHOICE_MESSAGE), dict):
        item = choice
    elif _ROLE not in item and isinstance(candidate := item.get(gg.CANDIDATE_CONTENT), dict):
        # A Gemini response candidate: its content is the answer (a ``Content``, read by its ``parts``); a role-less
        # item whose content is no ``Content`` is of no known shape.
        return candidate if isinstance(candidate.get(adk.PARTS), list) else None
    content = item.get(_CONTENT)
    if isinstance(content, list) and all(_text_block(block) for block in content[:MAX_MESSAGES]):
        return {**item, _CONTENT: _block_text(content)}
    return item  # blocks of other kinds are read by their shape (:func:`fill_chat_completions`)


def _text_block(block: Decoded) -> bool:
    return isinstance(block, dict) and isinstance(block.get(lm.RESPONSES_TEXT), str)


def _block_text(blocks: list[Decoded]) -> str:
    """The text of a content-block list (``input_text`` / ``output_text`` / ``text`` blocks)."""
    texts = [
        text
        for block in blocks[:MAX_MESSAGES]
        if isinstance(block, dict) and isinstance(text := block.get(lm.RESPONSES_TEXT), str)
    ]
    return "".join(texts)


def _read_tool(view: SpanView, facts: SpanFacts) -> None:
    facts.tool_name = clean_name(view.name)
    if lm.SPAN_INPUT in view.attrs:
        arguments = json_content(view, lm.SPAN_INPUT, limit=MAX_TEXT)  # both JSON layers
        facts.arguments = arguments_text(arguments) if arguments is not None else None
        facts.arguments_visible = facts.arguments is not None
    facts.result_visible = lm.SPAN_OUTPUT in view.attrs
    fill_handoff_target(facts)


def _read_handoff(view: SpanView, facts: SpanFacts) -> None:
    facts.handoff_from_agent = clean_name(view.str_attr(lm.HANDOFF_FROM))
    facts.handoff_to_agent = clean_name(view.str_attr(lm.HANDOFF_TO))
    if facts.handoff_to_agent:
        # The span executes the SDK's handoff tool; its default name joins it to the model's proposal.
        facts.tool_name = clean_name(handoff_tool_name(facts.handoff_to_agent))


def _read_sdk_error(view: SpanView, facts: SpanFacts) -> None:
    """The SDK's ``SpanError`` from the first ``exception`` event: its data's error text as the message (with the HTTP
    status it names), and, off tool spans, the tool the label and data together reject as unknown."""
    label = details = None
    for event in view.span.events:
        if event.name != genai.EXCEPTION_EVENT:
            continue
        for kv in event.attributes:
            if kv.key == genai.EXCEPTION_TYPE:
                label = (to_text(kv.value) or "")[:MAX_ERROR_MESSAGE]
            elif kv.key == genai.EXCEPTION_MESSAGE:
                details = (to_text(kv.value) or "")[:MAX_TEXT]
        break
    if not details:
        return
    data = parse_json_text(details)
    detail = data.get(lm.ERROR_DETAIL) if isinstance(data, dict) else None
    if isinstance(detail, str) and detail.strip():
        facts.error_message = detail[:MAX_ERROR_MESSAGE]
        facts.http_status = http_status_in(detail[:MAX_ERROR_MESSAGE])
    label = label or view.span.status.message[:MAX_ERROR_MESSAGE]
    if label and facts.kind not in EXECUTION_KINDS:  # a tool span's rejection must name its own tool (fill_error)
        facts.unknown_tool = unknown_tool_named(f"{label}: {details[:MAX_REJECTION_TEXT]}")
