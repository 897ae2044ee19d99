"""Reader for OpenInference spans (Arize / Phoenix instrumentations).

Pinned to ``openinference-semantic-conventions`` 0.1.42; span shapes of ``openinference-instrumentation-openai``
0.1.66, ``-openai-agents`` 2.6.0 and ``-langchain`` 0.1.80 (names in :mod:`semconv.openinference`).

Recovers: node kind from ``openinference.span.kind`` (``handoff to X`` TOOL spans and LangGraph-supervisor
``transfer_to_X`` spans become handoffs); model, provider, token counts, response id (from the head of the JSON
``output.value``); proposals and consumed tool-call ids from the flattened ``llm.{input,output}_messages``;
message digests in the GenAI parts shape (so they join GenAI spans of a double-instrumented call); advertised
tools; tool name, call id and arguments (``input.value``) of TOOL spans; ``graph.node.*``; LangGraph steps from
``metadata``. GenAI attributes on the same span are read too. The spans of some framework instrumentations are read
further by their scope (LlamaIndex, Haystack, DSPy: :mod:`otel_mapper.mapping.readers.dspy`, BeeAI:
:mod:`otel_mapper.mapping.readers.beeai`).
"""

from __future__ import annotations

import logging
import re
from typing import ClassVar, Final

from otel_mapper.bundle.canonical import digest
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import (
    SYSTEM_ROLE,
    add_rejection,
    arguments_text,
    python_literal,
)
from otel_mapper.mapping.readers import agentspec as agent_spec
from otel_mapper.mapping.readers.beeai import beeai_kind, read_beeai_calls, read_beeai_error, read_beeai_tool_input
from otel_mapper.mapping.readers.common import clean_name, fill_error, fill_handoff_target, has_genai, read_usage
from otel_mapper.mapping.readers.dspy import dspy_kind, dspy_tool_name, read_react_turn
from otel_mapper.mapping.readers.genai import fill_genai_facts
from otel_mapper.mapping.readers.haystack import fill_haystack_call_ids, haystack_kind, read_haystack_results
from otel_mapper.mapping.readers.langchain_agents import read_openinference_langchain_run
from otel_mapper.mapping.readers.langchain_finish import langchain_stop_reason
from otel_mapper.mapping.readers.langchain_io import fill_langchain_call_ids
from otel_mapper.mapping.readers.langchain_messages import MAX_TOOL_MESSAGE, tool_message_call_id
from otel_mapper.mapping.readers.langgraph import is_control_flow, sequence_from_metadata
from otel_mapper.mapping.readers.openinference_anthropic_ids import fill_anthropic_call_ids
from otel_mapper.mapping.readers.openinference_completion_calls import fill_completion_calls
from otel_mapper.mapping.readers.openinference_frameworks import (
    LLAMA_TOOL_MESSAGE,
    llama_index_kind,
    llama_index_tool_id,
    read_smolagents_run,
    smolagents_replayed_ids,
    smolagents_response_id,
)
from otel_mapper.mapping.readers.openinference_gemini_ids import fill_gemini_call_ids
from otel_mapper.mapping.readers.openinference_handoffs import read_handoff
from otel_mapper.mapping.readers.openinference_invocation_tools import invocation_tools
from otel_mapper.mapping.readers.openinference_legacy_ids import fill_legacy_result_ids
from otel_mapper.mapping.readers.openinference_messages import (
    MAX_TOOLS,
    MERGED_RESULTS_EVIDENCE,
    FlatMessage,
    calls_of,
    group_messages,
    id_less_results,
    merge_call_runs,
    message_digest_of,
    results_of,
    unanswered_in_answered_turns,
)
from otel_mapper.mapping.readers.openinference_response_output import response_output_messages
from otel_mapper.mapping.spans import MAX_TEXT, SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import adk, beeai, dspy, genai, haystack, langgraph, llama_index, smolagents
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "OpenInferenceReader"]

logger = logging.getLogger(__name__)

CONVENTION: Final = "openinference"
MAX_METADATA: Final = 64 * 1024
_RUN_OUTPUT_KEY: Final = "output"
"""The key of a LangChain tool run's outputs object (``{"output": <ToolMessage>}``)."""
_AGENT_NAME_MARK: Final = "agent"
"""A LangGraph CHAIN run whose name holds this is an agent's graph (as in mlflow_langchain)."""
"""Longer ``metadata`` JSON is not parsed: LangGraph keys are small, a huge blob is user data."""

_KINDS: Final = {
    oi.KIND_LLM: NodeKind.MODEL_CALL,
    oi.KIND_DECISION: NodeKind.MODEL_CALL,
    oi.KIND_EMBEDDING: NodeKind.RETRIEVAL,
    oi.KIND_RETRIEVER: NodeKind.RETRIEVAL,
    oi.KIND_RERANKER: NodeKind.RETRIEVAL,
    oi.KIND_TOOL: NodeKind.TOOL_EXECUTION,
    oi.KIND_AGENT: NodeKind.AGENT_INVOCATION,
    oi.KIND_CHAIN: NodeKind.WORKFLOW_STEP,
    oi.KIND_PROMPT: NodeKind.WORKFLOW_STEP,
    oi.KIND_GUARDRAIL: NodeKind.GUARDRAIL,
    oi.KIND_EVALUATOR: NodeKind.OTHER,
    oi.KIND_UNKNOWN: NodeKind.OTHER,
}
_Messages = dict[int, FlatMessage] | None
_USAGE_IN: Final = (oi.LLM_TOKEN_COUNT_PROMPT,)
_USAGE_OUT: Final = (oi.LLM_TOKEN_COUNT_COMPLETION,)
_USAGE_CACHED: Final = (oi.LLM_TOKEN_COUNT_CACHE_READ,)
_RESPONSE_ID = re.compile(r'^\s*\{\s*"id"\s*:\s*"([^"\\]{1,256})"')
"""OpenAI response bodies serialise ``id`` first; reading the head avoids decoding the whole body."""


class OpenInferenceReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({oi.SPAN_KIND})
    """Attribute keys ``claims`` looks for (one of them, or a marker scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset()

    def claims(self, view: SpanView) -> bool:
        return oi.SPAN_KIND in view.attrs

    def read(self, view: SpanView) -> SpanFacts:
        kind_value = (view.str_attr(oi.SPAN_KIND) or "").upper()
        kind = _KINDS.get(kind_value, NodeKind.OTHER)
        if view.scope_name == llama_index.SCOPE_NAME:
            kind = llama_index_kind(view, kind)
        elif view.scope_name == haystack.SCOPE_NAME:
            kind = haystack_kind(view, kind)
        elif view.scope_name == dspy.SCOPE_NAME:
            kind = dspy_kind(view, kind)
        elif view.scope_name == beeai.SCOPE_NAME:
            kind = beeai_kind(view, kind)
        tool_name = clean_name(view.str_attr(oi.TOOL_NAME))
        if tool_name is None and kind is NodeKind.TOOL_EXECUTION and view.scope_name == dspy.SCOPE_NAME:
            tool_name = dspy_tool_name(view)
        name = view.name
        if kind is NodeKind.TOOL_EXECUTION and name.startswith(oi.HANDOFF_SPAN_PREFIX):
            kind = NodeKind.HANDOFF
        elif kind is NodeKind.AGENT_INVOCATION and tool_name:
            # langgraph-supervisor's transfer tools are AGENT spans with tool.name (observed).
            kind = NodeKind.HANDOFF if tool_name.startswith(langgraph.HANDOFF_TOOL_PREFIX) else NodeKind.TOOL_EXECUTION
        facts = SpanFacts(kind=kind, convention=self.name, name=name)
        facts.graph_node_id = clean_name(view.str_attr(oi.GRAPH_NODE_ID))
        facts.graph_parent_id = clean_name(view.str_attr(oi.GRAPH_NODE_PARENT_ID))
        facts.graph_parent_evidence = oi.GRAPH_NODE_PARENT_ID
        facts.agent_name = clean_name(view.str_attr(oi.AGENT_NAME))
        if kind is NodeKind.AGENT_INVOCATION and smolagents.TOOLS_NAMES in view.attrs:
            read_smolagents_run(view, facts)
        if kind is NodeKind.AGENT_INVOCATION and facts.agent_name is None:
            # A root AGENT span that names no agent is a framework's run wrapper (the OpenAI Agents SDK trace span,
            # named after the workflow): its span name is not an agent's.
            # The GenAI agent name comes first (OpenInference's Strands processor keeps Strands' gen_ai.agent.name and
            # writes one graph.node.id, "strands_agent", for every agent).
            facts.agent_name = clean_name(view.str_attr(genai.AGENT_NAME)) or facts.graph_node_id or (
                clean_name(name) if view.parent_span_id is not None else None)
        agentspec_span = agent_spec.read_agentspec_span(view, facts)  # and its ExceptionRaised error, if any
        if kind is NodeKind.MODEL_CALL:
            inputs, outputs = _read_llm(view, facts, agentspec_span)
            if view.scope_name == haystack.SCOPE_NAME:
                read_haystack_results(view, facts)
            elif view.scope_name == dspy.SCOPE_NAME:
                read_react_turn(facts, inputs, outputs)
            elif view.scope_name == beeai.SCOPE_NAME:
                read_beeai_calls(facts)
        elif kind is NodeKind.TOOL_EXECUTION:
            _read_tool(view, facts, tool_name)
            if agentspec_span:
                agent_spec.read_agentspec_tool(view, facts)
            if view.scope_name == beeai.SCOPE_NAME:
                read_beeai_tool_input(view, facts)
            if view.str_attr(genai.TOOL_TYPE) == adk.TRANSFER_TOOL_TYPE:
                # Google ADK types the span of its agent transfer (OpenInference's ADK instrumentation 1.0.5 keeps
                # ADK's gen_ai.tool.type on its TOOL span): a handoff, as in ADK's own spans, also when its arguments
                # (the receiving agent) were not recorded.
                facts.kind = NodeKind.HANDOFF
        elif kind is NodeKind.HANDOFF:
            read_handoff(view, facts, tool_name)
        elif view.has(oi.LLM_TOKEN_COUNT_PROMPT) or view.has(oi.LLM_TOKEN_COUNT_COMPLETION):
            facts.usage_is_aggregate = True
        if kind is NodeKind.AGENT_INVOCATION:
            _read_agent_outputs(view, facts)
        if oi.METADATA in view.attrs:
            _read_metadata(view, facts)
            if kind in (NodeKind.WORKFLOW_STEP, NodeKind.TOOL_EXECUTION):
                _read_langgraph_kind(view, facts, tool_name)
        if view.scope_name == llama_index.SCOPE_NAME and kind is NodeKind.WORKFLOW_STEP:
            if view.name.endswith(llama_index.CALL_TOOL_SUFFIX):
                facts.child_tool_call_id = llama_index_tool_id(view)
            elif view.name.endswith(llama_index.RUN_AGENT_STEP_SUFFIX):
                # The step is given the conversation, tool results included, before its model turn runs.
                text = view.str_attr(oi.INPUT_VALUE, limit=MAX_TOOL_MESSAGE) or ""
                facts.consumed_call_ids.extend(dict.fromkeys(LLAMA_TOOL_MESSAGE.findall(text)))
        if has_genai(view):
            fill_genai_facts(view, facts)
        else:
            fill_error(view, facts)
        if view.scope_name == beeai.SCOPE_NAME:
            read_beeai_error(view, facts)
        elif view.scope_name == oi.LANGCHAIN_SCOPE_NAME:
            read_openinference_langchain_run(view, facts)
        if facts.failed and is_control_flow(facts.error_type, facts.error_message):
            facts.failed = False
        return facts


def _read_llm(view: SpanView, facts: SpanFacts, agentspec_span: bool = False) -> tuple[_Messages, _Messages]:
    """The LLM span's facts; returns its input and output messages, regrouped (an Agent Spec span's: see agentspec)."""
    facts.model = (
        clean_name(view.str_attr(oi.LLM_RESPONSE_MODEL_NAME))
        or clean_name(view.str_attr(oi.LLM_MODEL_NAME))
        or clean_name(view.str_attr(oi.LLM_REQUEST_MODEL_NAME))
    )
    facts.provider = clean_name(view.str_attr(oi.LLM_PROVIDER)) or clean_name(view.str_attr(oi.LLM_SYSTEM))
    facts.usage = read_usage(view, _USAGE_IN, _USAGE_OUT, _USAGE_CACHED)
    finish = clean_name(view.str_attr(oi.LLM_FINISH_REASON)) or langchain_stop_reason(view)
    if finish:
        facts.finish_reasons = (finish,)
    if view.str_attr(oi.OUTPUT_MIME_TYPE) == oi.MIME_JSON:
        head = view.str_attr(oi.OUTPUT_VALUE, limit=512)
        match = _RESPONSE_ID.match(head) if head else None
        if match:
            facts.response_id = match.group(1)
            facts.dedup_key = f"response:{facts.response_id}"
    inputs, outputs, tools = group_messages(view)
    tools = tools or invocation_tools(view)
    if outputs is None:  # the Agents SDK's streamed generation: a response object, no flattened output messages
        outputs = response_output_messages(view)
    fill_completion_calls(view, outputs)
    fill_langchain_call_ids(view, inputs, outputs)
    fill_gemini_call_ids(view, outputs)
    fill_anthropic_call_ids(view, outputs)
    fill_legacy_result_ids(view, inputs)
    if agentspec_span:
        agent_spec.fill_agentspec_call_arguments(view, outputs)
    if outputs is not None and view.scope_name == haystack.SCOPE_NAME:
        fill_haystack_call_ids(view, outputs)
    if outputs is not None:
        facts.proposals = []
        for position in sorted(outputs):  # index order inside one message list is content order, not time
            message = outputs[position]
            facts.proposals.extend(calls_of(message))
            facts.messages.outputs.append(message_digest_of(message))
    if inputs is not None:
        facts.input_content_captured = True
        last_calls: tuple[int, FlatMessage] | None = None
        results: list[tuple[int, str, Decoded]] = []
        ordered = merge_call_runs([inputs[index] for index in sorted(inputs)])
        for position, message in enumerate(ordered):
            call_id = clean_name(message.fields.get(oi.MESSAGE_TOOL_CALL_ID)) or smolagents_response_id(message)
            if call_id:
                facts.consumed_call_ids.append(call_id)
                results.append((position, call_id, message.fields.get(oi.MESSAGE_CONTENT)))
            for result_id, content in results_of(message):
                facts.consumed_call_ids.append(result_id)
                results.append((position, result_id, content))
            answered = position + 1 < len(ordered) and ordered[position + 1].fields.get(oi.MESSAGE_ROLE) == smolagents.ROLE_TOOL_RESPONSE
            if answered:
                facts.consumed_call_ids.extend(smolagents_replayed_ids(message))
            if message.calls:
                last_calls = (position, message)
            if message.fields.get(oi.MESSAGE_ROLE) == SYSTEM_ROLE:
                facts.messages.system_inputs.append(position)
            facts.messages.inputs.append(message_digest_of(message))
        for call_id in unanswered_in_answered_turns(ordered):
            if call_id not in facts.consumed_call_ids:
                facts.consumed_call_ids.append(call_id)
                facts.consumed_evidence[call_id] = MERGED_RESULTS_EVIDENCE
        after = last_calls[0] if last_calls is not None else -1
        for result_position, result_id, content in results:
            if result_position > after:  # results new to this call (earlier ones were read where they were new)
                add_rejection(facts.rejected_results, result_id, content)
        if last_calls is not None:  # conversation-prefix evidence (otel_mapper.mapping.prefix)
            position, message = last_calls
            facts.input_tool_calls.extend((position, call) for call in calls_of(message))
            facts.id_less_results.extend(id_less_results(ordered))
        elif agentspec_span:
            facts.id_less_results.extend(id_less_results(ordered, empty_turns=True))
    if tools:
        names: list[str] = []
        for position in sorted(tools):
            schema_text = tools[position]
            schema = parse_json_text(schema_text)
            if not isinstance(schema, dict):
                continue
            function = schema.get("function")
            tool = clean_name(str(schema.get("name") or (function.get("name") if isinstance(function, dict) else "") or ""))
            if tool:
                names.append(tool)
                facts.tool_definition_digests[tool] = digest(schema)
        if _complete(tools) and names:  # schemas none of which names a tool: a shape not read, not "no tools"
            facts.tool_definitions = tuple(sorted(set(names)))
    return inputs, outputs


def _read_agent_outputs(view: SpanView, facts: SpanFacts) -> None:
    """Tool calls in an AGENT span's own flattened ``llm.output_messages`` (the Claude Agent SDK's ``query()`` span
    writes every assistant message of the run there; its model requests are sent by the CLI process, which no span
    records): they are the run's proposals. Calls a model call of the trace also proposes are left to that model call
    (:mod:`otel_mapper.mapping.agent_outputs`). Such a span's model, provider and token counts are its model calls'
    (read on the node: ``processor.detectors.failures.model_call_stand_ins``)."""
    _, outputs, _ = group_messages(view)
    if not outputs:
        return
    proposals = [call for position in sorted(outputs) for call in calls_of(outputs[position])]
    if proposals:
        facts.proposals = proposals
    # The run's token counts are then the only record of its model calls' usage, not a repetition of theirs.
    facts.model = clean_name(view.str_attr(oi.LLM_MODEL_NAME))
    facts.provider = clean_name(view.str_attr(oi.LLM_PROVIDER)) or clean_name(view.str_attr(oi.LLM_SYSTEM))
    facts.usage = read_usage(view, _USAGE_IN, _USAGE_OUT, _USAGE_CACHED)
    facts.usage_is_aggregate = False


def _complete(tools: dict[int, str]) -> bool:
    """Whether the advertised tools are all there: indices 0..n-1 with none missing. OpenInference's AutoGen AgentChat
    instrumentor (0.1.22, ``_get_llm_tool_attributes``) writes only the tools passed as ``Tool`` objects under their
    position: the workbench's tools, passed as schemas, leave their indices empty (a triage agent's ``llm.tools.1``
    holds its handoff tool alone). Such a list is not the set the model was offered (``tool_definitions`` stays
    unknown); the schemas present are still bound."""
    return len(tools) <= MAX_TOOLS and max(tools) == len(tools) - 1


def _read_tool(view: SpanView, facts: SpanFacts, tool_name: str | None) -> None:
    facts.tool_name = tool_name or clean_name(view.str_attr(oi.TOOL_CALL_FUNCTION_NAME)) or clean_name(view.name)
    facts.tool_call_id = clean_name(view.str_attr(oi.TOOL_ID)) or clean_name(view.str_attr(oi.TOOL_CALL_ID))
    if oi.INPUT_VALUE in view.attrs:
        raw = view.text_attr(oi.INPUT_VALUE)
        facts.arguments, facts.arguments_json = _tool_input(raw, view.str_attr(oi.INPUT_MIME_TYPE))
        facts.arguments_visible = facts.arguments is not None
    elif oi.TOOL_CALL_FUNCTION_ARGUMENTS in view.attrs:
        facts.arguments = arguments_text(view.text_attr(oi.TOOL_CALL_FUNCTION_ARGUMENTS))
        facts.arguments_visible = facts.arguments is not None
    facts.result_visible = oi.OUTPUT_VALUE in view.attrs
    fill_handoff_target(facts)
    if facts.tool_call_id is None and facts.result_visible:
        facts.tool_call_id = _tool_message_call_id(view)
        if facts.tool_call_id:
            facts.tool_call_id_evidence = "tool output: ToolMessage tool_call_id"
    if facts.tool_call_id:
        facts.dedup_key = f"tool_call:{facts.tool_call_id}"


def _tool_input(raw: str | None, mime_type: str | None) -> tuple[str | None, bool]:
    """(argument text, recorded as JSON). ``input.value`` is JSON only when ``input.mime_type`` says so; LangChain
    then may still hold the Python text of a dict (its ``str(tool_input)``), read as a literal (never executed)."""
    if raw is None:
        return None, True
    if mime_type != oi.MIME_JSON:
        parsed = parse_json_text(raw)
        if isinstance(parsed, (dict, list)):  # structured all the same (smolagents records no mime type)
            return arguments_text(parsed), False
        return raw[:MAX_TEXT], False
    parsed = parse_json_text(raw)
    if isinstance(parsed, str) and raw.strip()[:1] in ("{", "["):
        literal = python_literal(raw)
        if isinstance(literal, (dict, list)):
            return arguments_text(literal), True
    return arguments_text(raw), True


def _tool_message_call_id(view: SpanView) -> str | None:
    """The ``tool_call_id`` of the LangChain ``ToolMessage`` a tool span returned (``output.value``)."""
    head = view.str_attr(oi.OUTPUT_VALUE, limit=MAX_TOOL_MESSAGE)
    if not head or oi.LANGCHAIN_TOOL_CALL_ID not in head or len(head) >= MAX_TOOL_MESSAGE:
        return None
    value = parse_json_text(head)
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get(_RUN_OUTPUT_KEY), dict):
        # The JavaScript instrumentation records a run's outputs object as it is: a tool run's `{"output": <message>}`.
        value = value[_RUN_OUTPUT_KEY]
    return tool_message_call_id(value)


def _read_metadata(view: SpanView, facts: SpanFacts) -> None:
    text = view.str_attr(oi.METADATA, limit=MAX_METADATA + 1)
    if text is None or len(text) > MAX_METADATA or langgraph.STEP not in text:
        return  # cheap: most spans have no LangGraph metadata, so nothing is parsed
    metadata = parse_json_text(text)
    if isinstance(metadata, dict):
        facts.sequence = sequence_from_metadata(view, metadata)
        node = metadata.get(langgraph.NODE)
        facts.graph_run_node = clean_name(node) if isinstance(node, str) else None


def _read_langgraph_kind(view: SpanView, facts: SpanFacts, tool_name: str | None) -> None:
    """A LangGraph run the instrumentation typed by LangChain's run type alone (OpenInference's JavaScript LangChain
    instrumentation types every chain CHAIN and every tool TOOL): a CHAIN run of a LangGraph graph (``ls_integration``
    ``langgraph``) whose name holds "agent" is an agent's graph, as MLflow's LangChain runs are read (node runs of the
    same name are told apart by :mod:`otel_mapper.mapping.graph_runs`); a TOOL run in a LangGraph graph named by
    langgraph-supervisor's handoff prefix is its handoff tool (the Python instrumentation types it AGENT)."""
    text = view.str_attr(oi.METADATA, limit=MAX_METADATA + 1)
    if text is None or len(text) > MAX_METADATA or langgraph.INTEGRATION not in text:
        return
    metadata = parse_json_text(text)
    if not isinstance(metadata, dict) or metadata.get(langgraph.INTEGRATION) != langgraph.INTEGRATION_LANGGRAPH:
        return
    if facts.kind is NodeKind.WORKFLOW_STEP and _AGENT_NAME_MARK in view.name.lower():
        facts.kind = NodeKind.AGENT_INVOCATION
        facts.agent_name = clean_name(view.name)
    elif facts.kind is NodeKind.TOOL_EXECUTION and tool_name and tool_name.startswith(langgraph.HANDOFF_TOOL_PREFIX) \
            and len(tool_name) > len(langgraph.HANDOFF_TOOL_PREFIX):
        read_as_tool = facts.tool_call_id  # from the tool span's output, when it holds a ToolMessage
        facts.kind = NodeKind.HANDOFF
        read_handoff(view, facts, tool_name)
        facts.tool_call_id = facts.tool_call_id or read_as_tool
