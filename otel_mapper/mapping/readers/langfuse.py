"""Reader for Langfuse's own spans (``langfuse.observation.type``): its SDK's observations and its LangChain handler.

Pinned to the ``langfuse`` Python SDK 5.0.4 (names and value formats in :mod:`semconv.langfuse`). Every span of the
LangChain ``CallbackHandler`` records one LangChain run, named after it; there is no ``gen_ai.*`` attribute.

Kinds from the observation type: ``generation`` a model call, ``embedding`` / ``retriever`` a retrieval, ``tool`` a
tool execution (a handoff when langgraph-supervisor's ``__handoff_destination`` metadata names the agent it hands the
run to), ``guardrail`` a guardrail, ``chain`` a workflow step, ``agent`` an agent invocation, ``span`` / ``event`` /
``evaluator`` other. The handler types a chain ``agent`` only because "agent" is in its name or class path, as
OpenInference's LangChain instrumentation does: the LangGraph run metadata read here (``graph_run_node``,
``sequence``) lets :mod:`otel_mapper.mapping.graph_runs` keep only the runs that execute an agent's graph.

Generations: model, provider (``ls_provider``), usage (``usage_details``, with the details Langfuse subtracted from
``input`` / ``output`` added back), proposals from the output message's tool calls (LangChain's ``{"name", "args",
"id"}`` or the OpenAI integration's Chat Completions calls), consumed call ids and message digests from the input
messages; the tool definitions the handler appends to the input (``{"role": "tool", "content": {...}}`` with no call
id: a tool message's content is text or a list, never an object) are read as the offered tools, not as messages.
Tools: call id from the ``tool_call_id`` metadata (else the returned ``ToolMessage``), arguments from the input (JSON,
or the Python literal of LangChain's ``input_str``; other text is plain text). Errors from the span status (level
``ERROR`` sets it), else from the level and status message attributes; LangGraph's control-flow exceptions are no
failure. Agent and chain spans carry no usage of their own: any usage there is an aggregate.
"""

from __future__ import annotations

from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import (
    MAX_ERROR_MESSAGE,
    clean_name,
    fill_chat_completions,
    fill_error,
    fill_handoff_target,
    http_status_in,
)
from otel_mapper.mapping.readers.genai import read_tool_definitions
from otel_mapper.mapping.readers.langchain_messages import (
    MAX_TOOL_MESSAGE,
    chat_completions_calls,
    tool_input_arguments,
    tool_message_call_id,
)
from otel_mapper.mapping.readers.langgraph import is_control_flow, sequence_from_metadata
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.model import TokenUsage
from otel_mapper.otlp.anyvalue import Decoded
from semconv import langfuse as lf
from semconv import langgraph
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "LangfuseReader"]

CONVENTION: Final = "langfuse"
MAX_METADATA_VALUE: Final = 4096
"""Longest metadata value parsed (characters): LangGraph keys, call ids and agent names are short; a longer value is
an application's own data, not read."""
MAX_INPUT_ENTRIES: Final = 10_000
"""Input entries looked at for messages and appended tool definitions."""
_OUTPUT_CALL_ID_EVIDENCE: Final = "tool output: ToolMessage tool_call_id"
_LANGGRAPH_KEYS: Final = (langgraph.STEP, langgraph.NODE, langgraph.CHECKPOINT_NS)
_KINDS: Final = {
    lf.TYPE_GENERATION: NodeKind.MODEL_CALL,
    lf.TYPE_EMBEDDING: NodeKind.RETRIEVAL,
    lf.TYPE_RETRIEVER: NodeKind.RETRIEVAL,
    lf.TYPE_TOOL: NodeKind.TOOL_EXECUTION,
    lf.TYPE_AGENT: NodeKind.AGENT_INVOCATION,
    lf.TYPE_CHAIN: NodeKind.WORKFLOW_STEP,
    lf.TYPE_GUARDRAIL: NodeKind.GUARDRAIL,
    lf.TYPE_SPAN: NodeKind.OTHER,
    lf.TYPE_EVENT: NodeKind.OTHER,
    lf.TYPE_EVALUATOR: NodeKind.OTHER,
}


class LangfuseReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({lf.OBSERVATION_TYPE})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset()
    """None: spans of other instrumentations exported through Langfuse's processor are not Langfuse observations."""

    def claims(self, view: SpanView) -> bool:
        return lf.OBSERVATION_TYPE in view.attrs

    def read(self, view: SpanView) -> SpanFacts:
        kind = _KINDS.get((view.str_attr(lf.OBSERVATION_TYPE) or "").strip().lower(), NodeKind.OTHER)
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        if kind is NodeKind.AGENT_INVOCATION:
            facts.agent_name = clean_name(view.name)
        elif kind is NodeKind.MODEL_CALL:
            _read_generation(view, facts)
        elif kind is NodeKind.TOOL_EXECUTION:
            _read_tool(view, facts)
        if kind is not NodeKind.MODEL_CALL and lf.OBSERVATION_USAGE_DETAILS in view.attrs:
            facts.usage_is_aggregate = True
        _read_langgraph(view, facts)
        _read_error(view, facts)
        return facts


def _metadata(view: SpanView, key: str) -> Decoded:
    """One flattened metadata value, decoded from its JSON text (a bare string, as other SDK versions may write it,
    stays itself); ``None`` when absent or too long."""
    text = view.str_attr(f"{lf.OBSERVATION_METADATA}.{key}", limit=MAX_METADATA_VALUE + 1)
    if text is None or len(text) > MAX_METADATA_VALUE:
        return None
    return parse_json_text(text)


def _metadata_name(view: SpanView, key: str) -> str | None:
    value = _metadata(view, key)
    return clean_name(value) if isinstance(value, str) else None


def _read_generation(view: SpanView, facts: SpanFacts) -> None:
    attrs = view.attrs
    facts.model = clean_name(view.str_attr(lf.OBSERVATION_MODEL))
    facts.provider = _metadata_name(view, lf.METADATA_PROVIDER)
    if lf.OBSERVATION_USAGE_DETAILS in attrs:
        facts.usage = _usage(view.json_attr(lf.OBSERVATION_USAGE_DETAILS))
    messages: list[Decoded] | None = None
    if lf.OBSERVATION_INPUT in attrs:
        messages, definitions = _split_input(view.json_attr(lf.OBSERVATION_INPUT))
        if definitions:
            facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(definitions)
    outputs: list[Decoded] | None = None
    if lf.OBSERVATION_OUTPUT in attrs:
        output = view.json_attr(lf.OBSERVATION_OUTPUT)
        outputs = output if isinstance(output, list) else [output]
    elif messages is not None and view.str_attr(lf.OBSERVATION_LEVEL) == lf.LEVEL_ERROR:
        outputs = []  # the handler records input, so content is captured: a failed call answered nothing
    fill_chat_completions(facts, _chat_messages(messages), _chat_messages(outputs))


def _split_input(value: Decoded) -> tuple[list[Decoded] | None, list[Decoded]]:
    """(messages, offered tool definitions) of a generation's input."""
    if isinstance(value, dict):  # the OpenAI integration, when tools were offered
        messages, tools = value.get(lf.INPUT_MESSAGES), value.get(lf.INPUT_TOOLS)
        return (messages if isinstance(messages, list) else None), (tools if isinstance(tools, list) else [])
    if not isinstance(value, list):
        return None, []
    messages = []
    definitions: list[Decoded] = []
    for item in value[:MAX_INPUT_ENTRIES]:
        if (
            isinstance(item, dict)
            and item.get(lf.MESSAGE_ROLE) == lf.ROLE_TOOL
            and lf.MESSAGE_TOOL_CALL_ID not in item
            and isinstance(content := item.get(lf.MESSAGE_CONTENT), dict)
        ):
            definitions.append(content)
        else:
            messages.append(item)
    return messages, definitions


def _chat_messages(value: list[Decoded] | None) -> list[Decoded] | None:
    """Message dicts in the Chat Completions shape :func:`fill_chat_completions` reads: LangChain's tool calls (and
    the calls that did not parse) as ``{"id", "function": {"name", "arguments"}}``."""
    if value is None:
        return None
    converted: list[Decoded] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        calls, invalid = item.get(lf.MESSAGE_TOOL_CALLS), item.get(lf.MESSAGE_INVALID_TOOL_CALLS)
        if isinstance(calls, list) or isinstance(invalid, list):
            item = {**item, lf.MESSAGE_TOOL_CALLS: chat_completions_calls(calls, invalid)}
        converted.append(item)
    return converted


def _usage(value: Decoded) -> TokenUsage | None:
    """Token usage from ``usage_details``: the input and output counts with the details Langfuse subtracted from them
    added back (cached input stays part of the input), or an OpenAI usage object it passed through."""
    if not isinstance(value, dict):
        return None
    if lf.USAGE_INPUT in value or lf.USAGE_OUTPUT in value:
        inputs, outputs = _count(value.get(lf.USAGE_INPUT)), _count(value.get(lf.USAGE_OUTPUT))
        for key, count in value.items():
            if _subtracted(key, lf.USAGE_INPUT_DETAIL_PREFIX):
                inputs += _count(count)
            elif _subtracted(key, lf.USAGE_OUTPUT_DETAIL_PREFIX):
                outputs += _count(count)
        cached = max(_count(value.get(key)) for key in lf.USAGE_CACHE_READ)
    elif lf.USAGE_OPENAI_INPUT in value or lf.USAGE_OPENAI_OUTPUT in value:
        inputs, outputs = _count(value.get(lf.USAGE_OPENAI_INPUT)), _count(value.get(lf.USAGE_OPENAI_OUTPUT))
        details = value.get(lf.USAGE_OPENAI_INPUT_DETAILS)
        cached = _count(details.get(lf.USAGE_OPENAI_CACHED)) if isinstance(details, dict) else 0
    else:
        return None
    return TokenUsage(input_tokens=inputs, output_tokens=outputs, cached_input_tokens=min(cached, inputs))


def _subtracted(key: str, prefix: str) -> bool:
    """Whether ``key`` is a detail Langfuse subtracted from the count ``prefix`` names."""
    return key.startswith(prefix) and not key[len(prefix):].startswith(lf.USAGE_NOT_SUBTRACTED)


def _count(value: Decoded) -> int:
    return max(value, 0) if isinstance(value, int) and not isinstance(value, bool) else 0


def _read_tool(view: SpanView, facts: SpanFacts) -> None:
    facts.tool_name = clean_name(view.name)  # the handler names the span after the run: the tool
    facts.tool_call_id = _metadata_name(view, lf.METADATA_TOOL_CALL_ID)
    if lf.OBSERVATION_INPUT in view.attrs:
        facts.arguments, facts.arguments_json = _tool_input(view.text_attr(lf.OBSERVATION_INPUT))
        facts.arguments_visible = facts.arguments is not None
    facts.result_visible = lf.OBSERVATION_OUTPUT in view.attrs
    if facts.tool_call_id is None and facts.result_visible:
        facts.tool_call_id = _tool_message_call_id(view)
        if facts.tool_call_id:
            facts.tool_call_id_evidence = _OUTPUT_CALL_ID_EVIDENCE
    if facts.tool_call_id:
        facts.dedup_key = f"tool_call:{facts.tool_call_id}"
    destination = _metadata_name(view, langgraph.HANDOFF_DESTINATION)
    if destination:
        # langgraph-supervisor's handoff tool: its execution is the handoff, joined to the proposal by its call id.
        facts.kind = NodeKind.HANDOFF
        facts.handoff_to_agent = destination
    else:
        fill_handoff_target(facts)


def _tool_input(raw: str | None) -> tuple[str | None, bool]:
    """(argument text, recorded as JSON). The handler records the call's structured input as JSON; without one,
    LangChain's ``input_str`` (:func:`~otel_mapper.mapping.readers.langchain_messages.tool_input_arguments`)."""
    return (None, True) if raw is None else tool_input_arguments(raw)


def _tool_message_call_id(view: SpanView) -> str | None:
    """The ``tool_call_id`` of the ``ToolMessage`` a tool run returned (its output)."""
    head = view.str_attr(lf.OBSERVATION_OUTPUT, limit=MAX_TOOL_MESSAGE)
    if not head or lf.MESSAGE_TOOL_CALL_ID not in head or len(head) >= MAX_TOOL_MESSAGE:
        return None  # cheap: only outputs that name a call id are parsed
    return tool_message_call_id(parse_json_text(head))


def _read_langgraph(view: SpanView, facts: SpanFacts) -> None:
    if f"{lf.OBSERVATION_METADATA}.{langgraph.STEP}" not in view.attrs:
        return  # cheap: most spans of other frameworks have no LangGraph metadata
    metadata: dict[str, Decoded] = {}
    for key in _LANGGRAPH_KEYS:
        value = _metadata(view, key)
        if value is not None:
            metadata[key] = value
    facts.sequence = sequence_from_metadata(view, metadata)  # the span is named after its run
    node = metadata.get(langgraph.NODE)
    facts.graph_run_node = clean_name(node) if isinstance(node, str) else None


def _read_error(view: SpanView, facts: SpanFacts) -> None:
    fill_error(view, facts)
    if not facts.failed and view.str_attr(lf.OBSERVATION_LEVEL) == lf.LEVEL_ERROR:
        # The level alone (an SDK that did not set the span status): the status message attribute says why.
        facts.failed = True
        message = view.str_attr(lf.OBSERVATION_STATUS_MESSAGE, limit=MAX_ERROR_MESSAGE)
        if message and facts.error_message is None:
            facts.error_message = message
            facts.http_status = facts.http_status or http_status_in(message)
    if facts.failed and is_control_flow(facts.error_type, facts.error_message):
        facts.failed = False
