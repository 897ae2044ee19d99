"""Reader for the OpenTelemetry GenAI semantic conventions (current and legacy shapes).

Pinned to ``semantic-conventions-genai`` @ ``f5e3733b``; also reads v1.26-v1.36 shapes: ``gen_ai.system``
instead of ``gen_ai.provider.name``, ``gen_ai.usage.prompt_tokens``/``completion_tokens``, and indexed
``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final, cast

from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.members import (
    AGENT_INVOCATION as _AGENT_INVOCATION,
)
from otel_mapper.mapping.members import (
    EXECUTION_KINDS as _EXECUTION_KINDS,
)
from otel_mapper.mapping.members import (
    HANDOFF as _HANDOFF,
)
from otel_mapper.mapping.members import (
    MODEL_CALL as _MODEL_CALL,
)
from otel_mapper.mapping.members import (
    TOOL_EXECUTION as _TOOL_EXECUTION,
)
from otel_mapper.mapping.members import (
    WORKFLOW_STEP as _WORKFLOW_STEP,
)
from otel_mapper.mapping.messages import (
    InputScan,
    arguments_text,
    read_output_messages,
    result_text_digest,
    scan_input_messages,
)
from otel_mapper.mapping.parts_messages import MAX_FINISH_REASONS, output_finish_reasons
from otel_mapper.mapping.readers.agentops_anthropic import offered_function_names
from otel_mapper.mapping.readers.common import fill_error, fill_handoff_target, fill_input_messages, read_usage
from otel_mapper.mapping.readers.langchain_middleware import middleware_hook_kind
from otel_mapper.mapping.readers.legacy_conversation import completion_records_answer, fill_legacy_conversation
from otel_mapper.mapping.readers.legacy_messages import (
    has_indexed_messages,
    read_indexed_functions,
    read_indexed_messages,
)
from otel_mapper.mapping.readers.mastra import mastra_kind, read_mastra_span
from otel_mapper.mapping.readers.model_tool_summary import summary_tool_calls
from otel_mapper.mapping.readers.openlit_ag2 import ag2_kind, read_ag2_step
from otel_mapper.mapping.readers.openlit_agno import agno_team_kind, read_agno_team
from otel_mapper.mapping.readers.openlit_crewai import is_openlit_named_only, named_operation, read_named_entity
from otel_mapper.mapping.readers.openlit_handler_errors import read_handler_error
from otel_mapper.mapping.readers.openlit_haystack import read_openlit_haystack
from otel_mapper.mapping.readers.openlit_langchain import is_openlit_langchain, read_openlit_langchain_tool
from otel_mapper.mapping.readers.openlit_pydantic_ai import pydantic_ai_kind, read_pydantic_ai_node
from otel_mapper.mapping.readers.openlit_smolagents import read_smolagents_step, smolagents_kind, tool_call_id_of
from otel_mapper.mapping.readers.span_events import has_message_events, read_event_content
from otel_mapper.mapping.spans import MAX_NAME, MAX_TEXT, SpanView
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai, langgraph, mcp, openlit, strands
from semconv import google_genai as gg
from semconv.trajectory import NodeKind

CONVENTION = "otel_genai"

_INPUT_TOKENS = (genai.USAGE_INPUT_TOKENS, genai.USAGE_PROMPT_TOKENS)
_OUTPUT_TOKENS = (genai.USAGE_OUTPUT_TOKENS, genai.USAGE_COMPLETION_TOKENS)
_CACHED_TOKENS = (genai.USAGE_CACHE_READ_INPUT_TOKENS, genai.USAGE_CACHE_READ_INPUT_TOKENS_OLD)

_NAME_PREFIXES: tuple[tuple[str, NodeKind], ...] = (
    ("chat ", NodeKind.MODEL_CALL),
    ("text_completion ", NodeKind.MODEL_CALL),
    ("generate_content ", NodeKind.MODEL_CALL),
    ("invoke_agent", NodeKind.AGENT_INVOCATION),
    ("execute_tool", NodeKind.TOOL_EXECUTION),
    ("invoke_workflow", NodeKind.WORKFLOW_STEP),
    ("embeddings ", NodeKind.RETRIEVAL),
    ("retrieval ", NodeKind.RETRIEVAL),
    ("apply_guardrail", NodeKind.GUARDRAIL),
)


def _operation_kinds() -> dict[str, NodeKind]:
    """Node kind of each known operation name, the first listed winning (as an if-chain would)."""
    kinds: dict[str, NodeKind] = {}
    for names, kind in (
        (genai.MODEL_CALL_OPERATIONS, NodeKind.MODEL_CALL),
        ((genai.Operation.INVOKE_AGENT.value,), NodeKind.AGENT_INVOCATION),
        (genai.TOOL_OPERATIONS, NodeKind.TOOL_EXECUTION),
        (genai.RETRIEVAL_OPERATIONS, NodeKind.RETRIEVAL),  # search_memory reads a memory store
        (genai.GUARDRAIL_OPERATIONS, NodeKind.GUARDRAIL),
        (genai.HANDOFF_OPERATIONS, NodeKind.HANDOFF),
        (genai.AGENT_CREATION_OPERATIONS, NodeKind.OTHER),  # builds an agent; invokes nothing
        (langgraph.ROUTING_OPERATIONS, NodeKind.OTHER),  # records a routing decision; runs nothing
        # invoke_workflow, plan (the planning model call is its child; the tools it yields are siblings under
        # invoke_agent), invoke_node, execute_task, ...: steps of the run.
        (genai.WORKFLOW_OPERATIONS, NodeKind.WORKFLOW_STEP),
        # The runtime writing to a memory store: a step, not a tool a model proposed.
        (genai.MEMORY_WRITE_OPERATIONS, NodeKind.WORKFLOW_STEP),
    ):
        for name in names:
            kinds.setdefault(str(name), kind)
    return kinds


_OPERATION_KINDS: Final = _operation_kinds()


def kind_of_operation(operation: str) -> NodeKind:
    """Node kind of a ``gen_ai.operation.name`` value; unknown custom values are steps."""
    return _OPERATION_KINDS.get(operation, _WORKFLOW_STEP)


class GenAIReader:
    """``gen_ai.operation.name`` spans, and legacy ``gen_ai.system`` model spans without an operation name."""

    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset(
        {genai.OPERATION_NAME, genai.PROVIDER_NAME, genai.SYSTEM, genai.REQUEST_MODEL, genai.WORKFLOW_NAME}
    )
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({openlit.INSTRUMENTATION_SCOPE_PREFIX})
    """OpenLIT's spans of a call that did not return carry no GenAI attribute
    (:mod:`otel_mapper.mapping.readers.openlit_crewai`); the recogniser finds a scope name's substring."""

    def claims(self, view: SpanView) -> bool:
        attrs = view.attrs
        return (
            genai.OPERATION_NAME in attrs
            or genai.PROVIDER_NAME in attrs
            or genai.SYSTEM in attrs
            or genai.REQUEST_MODEL in attrs
            or genai.WORKFLOW_NAME in attrs
            or is_openlit_named_only(view)
        )

    def classify(self, view: SpanView) -> NodeKind:
        operation = view.str_attr(genai.OPERATION_NAME) or named_operation(view)
        if operation:
            kind = mastra_kind(view, pydantic_ai_kind(view, smolagents_kind(view, ag2_kind(view, kind_of_operation(operation)))))
            kind = middleware_hook_kind(view, kind)
            if kind is _TOOL_EXECUTION and view.has(genai.TRANSFER_TARGET_NAME):
                return _HANDOFF
            if kind is _AGENT_INVOCATION and view.has(openlit.AGENT_SOURCE):
                return _HANDOFF  # OpenLIT's handoff: the receiving agent's name, and the agent handing over
            return agno_team_kind(view, kind)
        for prefix, kind in _NAME_PREFIXES:
            if view.span.name.startswith(prefix):
                return kind
        if view.has(genai.WORKFLOW_NAME):
            return _WORKFLOW_STEP  # a workflow run that did not record its operation (OpenLIT's LangGraph graph span on error)
        return _MODEL_CALL

    def read(self, view: SpanView) -> SpanFacts:
        kind = self.classify(view)
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        fill_genai_facts(view, facts)
        read_named_entity(view, facts)
        read_openlit_haystack(view, facts)
        read_handler_error(view, facts)
        read_agno_team(view, facts)
        read_ag2_step(view, facts)
        read_smolagents_step(view, facts)
        read_pydantic_ai_node(view, facts)
        read_mastra_span(view, facts)
        return facts


def fill_genai_facts(view: SpanView, facts: SpanFacts, *, content: bool = True) -> None:
    """Read every GenAI attribute present into ``facts`` (used by other readers whose spans also carry them); with
    ``content`` false, all but the message content, for a convention that writes the GenAI message keys in another
    shape and reads them itself."""
    attrs = view.attrs
    _fill_identity(view, facts)

    if facts.kind is _MODEL_CALL:
        facts.usage = facts.usage or read_usage(view, _INPUT_TOKENS, _OUTPUT_TOKENS, _CACHED_TOKENS)
        facts.dedup_key = facts.dedup_key or (f"response:{facts.response_id}" if facts.response_id else None)
    elif genai.USAGE_INPUT_TOKENS in attrs or genai.USAGE_OUTPUT_TOKENS in attrs:
        facts.usage_is_aggregate = True

    if facts.kind in _EXECUTION_KINDS:
        _fill_tool(view, attrs, facts)
    if facts.kind is _HANDOFF:
        facts.handoff_from_agent = (
            facts.handoff_from_agent or view.str_attr(genai.HANDOFF_FROM_AGENT) or view.str_attr(openlit.AGENT_SOURCE)
        )
        facts.handoff_to_agent = facts.handoff_to_agent or view.str_attr(genai.HANDOFF_TO_AGENT)
        if facts.handoff_to_agent is None and view.has(openlit.AGENT_SOURCE):
            facts.handoff_to_agent, facts.agent_name = facts.agent_name, None  # the receiving agent, not this span's

    if content:
        _fill_messages(view, attrs, facts)
        if facts.kind is _MODEL_CALL and facts.proposals is None:
            facts.proposals = summary_tool_calls(view)
    if genai.TOOL_DEFINITIONS in attrs:
        facts.tool_definitions, facts.tool_definition_digests = read_tool_definitions(view.json_attr(genai.TOOL_DEFINITIONS))
    elif facts.kind is _AGENT_INVOCATION and strands.AGENT_TOOLS in attrs:
        names = view.str_list_attr(strands.AGENT_TOOLS)
        facts.tool_definitions = tuple(sorted({name for name in names if name})) if names is not None else None
    elif facts.kind is _MODEL_CALL and (offered := read_indexed_functions(view) or offered_function_names(view)):
        facts.tool_definitions = offered
    fill_error(view, facts)


def _fill_identity(view: SpanView, facts: SpanFacts) -> None:
    facts.agent_name = facts.agent_name or view.str_attr(genai.AGENT_NAME)
    facts.model = facts.model or view.str_attr(genai.RESPONSE_MODEL) or view.str_attr(genai.REQUEST_MODEL)
    facts.provider = facts.provider or view.str_attr(genai.PROVIDER_NAME) or view.str_attr(genai.SYSTEM)
    facts.response_id = facts.response_id or view.str_attr(genai.RESPONSE_ID)
    facts.previous_response_id = facts.previous_response_id or view.str_attr(genai.REQUEST_PREVIOUS_RESPONSE_ID)
    facts.finish_reasons = facts.finish_reasons or view.str_list_attr(genai.RESPONSE_FINISH_REASONS) or ()
    facts.workflow_run = facts.workflow_run or view.str_attr(genai.OPERATION_NAME) == genai.Operation.INVOKE_WORKFLOW.value


def _fill_tool(view: SpanView, attrs: Mapping[str, AnyValue], facts: SpanFacts) -> None:
    facts.tool_name = facts.tool_name or view.str_attr(genai.TOOL_NAME)
    facts.tool_call_id = facts.tool_call_id or tool_call_id_of(view)
    if genai.TOOL_CALL_ARGUMENTS in attrs:
        facts.arguments = arguments_text(view.json_attr(genai.TOOL_CALL_ARGUMENTS))
        facts.arguments_visible = True
    if genai.TOOL_CALL_RESULT in attrs:
        facts.result_visible = True
        result = view.str_attr(genai.TOOL_CALL_RESULT, limit=MAX_TEXT)
        if result:
            facts.result_digest = result_text_digest(result)
    if is_openlit_langchain(view):
        read_openlit_langchain_tool(view, facts)
    if facts.tool_call_id:
        facts.dedup_key = facts.dedup_key or f"tool_call:{facts.tool_call_id}"
    elif mcp.JSONRPC_REQUEST_ID in attrs and view.str_attr(mcp.METHOD_NAME) == mcp.METHOD_TOOLS_CALL:
        # An MCP tool call is a client span and, nested in it, the server's span: one call, one node (the request id
        # is per session; sessions are told apart by their id, and by nesting when there is none).
        request = view.str_attr(mcp.JSONRPC_REQUEST_ID)
        facts.dedup_key = facts.dedup_key or f"mcp:{view.str_attr(mcp.SESSION_ID) or ''}:{request}:{facts.tool_name or ''}"
    if facts.kind is _HANDOFF:
        facts.handoff_to_agent = facts.handoff_to_agent or view.str_attr(genai.TRANSFER_TARGET_NAME)
    elif facts.kind is _TOOL_EXECUTION:
        fill_handoff_target(facts)


def _fill_messages(view: SpanView, attrs: Mapping[str, AnyValue], facts: SpanFacts) -> None:
    left_out = False
    if genai.OUTPUT_MESSAGES in attrs:
        outputs = view.json_attr(genai.OUTPUT_MESSAGES)
        proposals, digests = read_output_messages(outputs)
        left_out = _calls_left_out(outputs, facts.provider)
        if not left_out:
            facts.proposals = proposals
            facts.messages.outputs = digests
        if facts.kind is _MODEL_CALL and not facts.finish_reasons:
            # A streamed call's span can lack gen_ai.response.finish_reasons while each output message names its own
            # (opentelemetry-instrumentation-openai-v2 fills only the messages from the chunks).
            facts.finish_reasons = output_finish_reasons(outputs)
    if genai.INPUT_MESSAGES in attrs:
        model = facts.kind is _MODEL_CALL
        consumed, digests = _input_scan(view).facts(
            facts.input_tool_calls if model else None,
            facts.messages.system_inputs if model else None,
            facts.rejected_results if model else None,
            facts.failed_results if model else None,
            facts.id_less_results if model else None,
            facts.turn_result_ids if model else None,
        )
        facts.consumed_call_ids.extend(consumed)
        facts.messages.inputs = digests
        facts.input_content_captured = True
    if view.span.events and (facts.kind is _MODEL_CALL or facts.kind in _EXECUTION_KINDS):
        _fill_from_events(view, attrs, facts)
    if facts.kind is _MODEL_CALL and (facts.proposals is None or not facts.input_content_captured):
        legacy_out, legacy_in = has_indexed_messages(view)
        if legacy_out or legacy_in:
            indexed = read_indexed_messages(view)
            recorded = indexed.proposals or completion_records_answer(view)
            if legacy_out and facts.proposals is None and (indexed.proposals or not left_out) and recorded:
                facts.proposals = indexed.proposals
            facts.consumed_call_ids.extend(indexed.consumed_call_ids)
            if indexed.input_captured and not facts.input_content_captured:
                fill_legacy_conversation(view, facts)
            facts.input_content_captured = facts.input_content_captured or indexed.input_captured


def _input_scan(view: SpanView) -> InputScan:
    """``gen_ai.input.messages`` scanned; a JSON text through the trace's conversation memo, which reads only what
    an earlier call's input did not already hold."""
    memo = view.conversations
    value = view.attrs.get(genai.INPUT_MESSAGES)
    if memo is not None and value is not None and value.WhichOneof("value") == "string_value":
        scan = memo.read(value.string_value)
        if scan is not None:
            return scan
    return scan_input_messages(view.json_attr(genai.INPUT_MESSAGES))


def _fill_from_events(view: SpanView, attrs: Mapping[str, AnyValue], facts: SpanFacts) -> None:
    """Content the span carries only in events (Strands Agents; GenAI <= v1.36 per-message span events)."""
    if facts.kind is _MODEL_CALL and genai.OUTPUT_MESSAGES in attrs and genai.INPUT_MESSAGES in attrs:
        return
    if not has_message_events(view):
        return
    tool_span = facts.kind in _EXECUTION_KINDS
    events = read_event_content(view, tool_span=tool_span)
    if events is None:
        return
    if tool_span:
        if events.call_id and not facts.tool_call_id:
            facts.tool_call_id = events.call_id
            facts.tool_call_id_evidence = events.evidence
            facts.dedup_key = facts.dedup_key or f"tool_call:{facts.tool_call_id}"
        if events.arguments_seen and not facts.arguments_visible:
            facts.arguments = arguments_text(events.arguments)
            facts.arguments_visible = facts.arguments is not None
            if facts.kind is _TOOL_EXECUTION:
                fill_handoff_target(facts)
        facts.result_visible = facts.result_visible or events.result_seen
        return
    if events.outputs is not None and facts.proposals is None:
        facts.proposals, facts.messages.outputs = read_output_messages(cast(Decoded, events.outputs))
        facts.message_evidence = events.evidence
        facts.finish_reasons = facts.finish_reasons or tuple(events.finish_reasons)
    if events.inputs is not None and not facts.input_content_captured:
        fill_input_messages(facts, cast(Decoded, events.inputs))
        facts.message_evidence = events.evidence


def _calls_left_out(value: Decoded, provider: str | None) -> bool:
    """Output messages that stopped for tool calls and hold no part at all (LiteLLM's OpenTelemetry integration
    writes ``{"role": "assistant", "parts": [], "finish_reason": "tool_calls"}``): the calls were made but not
    recorded, so the output is read as not recorded (its proposals unknown, not none), as when the attribute is
    absent. Under a provider whose finish reason never says so (:data:`semconv.genai.UNTOLD_CALL_FINISH_PROVIDERS`)
    no part at all is read the same way."""
    messages = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
    if not messages or len(messages) > MAX_FINISH_REASONS:
        return False
    for message in messages:
        if not isinstance(message, dict) or message.get("parts") != []:
            return False
    return provider in genai.UNTOLD_CALL_FINISH_PROVIDERS or _TOOL_CALLS_FINISH in output_finish_reasons(value)


_TOOL_CALLS_FINISH: Final = "tool_calls"



def read_tool_definitions(value: object) -> tuple[tuple[str, ...] | None, dict[str, str]]:
    """Names of declared tools (``FunctionToolDefinition`` or OpenAI ``{"type":"function","function":{...}}``; a
    bare name, as Mastra's exporter writes an agent's tools, declares that name without a definition; a Gemini
    ``Tool``, ``{"function_declarations": [...]}``, declares each of its functions). A recorded list of which no entry
    names a tool is a shape not read, not a declaration of nothing: ``None`` (undecidable), never ``()``, which an
    empty list alone means."""
    from otel_mapper.bundle.canonical import digest

    if not isinstance(value, list):
        return None, {}
    names: list[str] = []
    digests: dict[str, str] = {}
    for definition in _flat_definitions(value):
        if isinstance(definition, str):
            if definition:
                names.append(definition[:MAX_NAME])
            continue
        if not isinstance(definition, dict):
            continue
        name = definition.get("name")
        function = definition.get("function")
        if not name and isinstance(function, dict):
            name = function.get("name")
        if isinstance(name, str) and name:
            names.append(name[:MAX_NAME])
            try:
                digests[name[:MAX_NAME]] = digest(definition)
            except TypeError:
                pass
    if value and not names:
        return None, {}
    return tuple(sorted(set(names))), digests


def _flat_definitions(value: list[object]) -> list[object]:
    """The entries of a recorded tool list, each Gemini ``Tool``'s function declarations in its place (one level;
    OpenLLMetry's Google Gen AI instrumentation records a request's ``config.tools`` as they are)."""
    flat: list[object] = []
    for entry in value[:_MAX_DEFINITIONS]:
        nested = next((entry[key] for key in gg.TOOL_FUNCTION_DECLARATIONS if isinstance(entry, dict)
                       and "name" not in entry and isinstance(entry.get(key), list)), None)
        flat.extend(nested[:_MAX_DEFINITIONS] if nested is not None else [entry])
    return flat[:_MAX_DEFINITIONS]


_MAX_DEFINITIONS: Final = 1024
"""Tool definitions read from one recorded list (a Gemini tool's declarations counted in)."""


__all__ = ["CONVENTION", "GenAIReader", "ToolCallFact", "fill_genai_facts", "kind_of_operation", "read_tool_definitions"]
