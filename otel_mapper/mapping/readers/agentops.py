"""Reader for AgentOps' spans: its session span, the OpenAI Agents SDK spans its instrumentation mirrors, and the
``tool_call.<name>`` spans its OpenAI client instrumentation opens under a model call.

Pinned to ``agentops`` 0.4.21 (names and value formats in :mod:`semconv.agentops`). What a span is:

- ``agentops.span.kind``: ``agent`` an agent invocation (its name, and the tools and handoffs it offered as its tool
  definitions: a JSON list of names, or of objects naming one each, as its CrewAI agent spans write them), ``tool`` a
  tool execution (named by ``tool.name``, arguments in ``tool.parameters``; no call id: an execution joins its
  proposal by tool name and arguments; its SDK's ``@tool`` decorator names it only in ``operation.name`` and records
  the call as ``agentops.tool.input``, :mod:`otel_mapper.mapping.readers.agentops_decorators`), ``llm`` a model call (the SDK generation's input, the
  Chat Completions messages as one JSON text), ``session`` and the run-structure kinds a workflow step (``workflow``,
  ``workflow.step``: its CrewAI task spans, ``task``, ``operation``, ``chain``), ``guardrail`` a guardrail;
- an Agents SDK mirror with no kind (scope ``openai-agents``, ``instrumentation.name`` ``agentops``): a handoff when
  it names its agents
  (``from_agent`` / ``to_agent``; it runs the SDK's handoff tool, ``transfer_to_<agent>``), else a workflow step (the
  SDK trace's span, task, turn and custom spans);
- a ``workflow`` span naming a team (``team.name``, its Agno instrumentation's ``Team.run``): the team leader's agent
  invocation, named after the team (the leader decides with a model of its own and hands work to a member through a
  tool), as the other instrumentations of Agno read it;
- a span holding ``tool.call.id`` that is no mirror (``tool_call.<name>``): the record of one call a model proposed,
  ``other``, its call kept as the span's one proposal for :mod:`otel_mapper.mapping.proposal_spans` to give to the
  model call above it.

Errors: a tool span whose run failed may end OK with the error's text in ``tool.error`` (its Agno tool spans): that
text fails it, as its message. A mirror's status stays OK; its SDK error is ``error.type`` (written only for an error)
with the SDK's label in ``error.message`` and the error's data as JSON on the ``exception`` event (``error.data``): the
data's ``error`` text (``Error code: 500 - ...``, ``Request timed out.``) is the message, read before the label, and
the label joined with the data (``Tool not found: {"tool_name": ...}``) names the tool a runtime rejected as unknown.
"""

from __future__ import annotations

from typing import ClassVar, Final

from otel_mapper.mapping.facts import SpanFacts, ToolCallFact
from otel_mapper.mapping.members import EXECUTION_KINDS
from otel_mapper.mapping.messages import MAX_MESSAGES, arguments_text
from otel_mapper.mapping.readers.agentops_decorators import decorated_unit_name, read_decorated_tool
from otel_mapper.mapping.readers.agentops_records import read_unnamed_run, recorded_kind
from otel_mapper.mapping.readers.common import (
    MAX_ERROR_MESSAGE,
    clean_name,
    fill_chat_completions,
    fill_error,
    http_status_in,
    json_content,
)
from otel_mapper.mapping.readers.genai import fill_genai_facts
from otel_mapper.mapping.readers.openai_agents import handoff_tool_name
from otel_mapper.mapping.spans import MAX_TEXT, SpanView, parse_json_text
from otel_mapper.mapping.tool_names import MAX_REJECTION_TEXT, unknown_tool_named
from otel_mapper.otlp.anyvalue import Decoded, to_text
from semconv import agentops as ao
from semconv import genai
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "AgentOpsReader", "is_call_record"]

CONVENTION: Final = "agentops"
_MAX_OFFERED: Final = 1_000
"""Tool and handoff names read from one agent span."""
_KINDS: Final = {
    ao.SPAN_KIND_AGENT: NodeKind.AGENT_INVOCATION,
    ao.SPAN_KIND_TOOL: NodeKind.TOOL_EXECUTION,
    ao.SPAN_KIND_LLM: NodeKind.MODEL_CALL,
    ao.SPAN_KIND_SESSION: NodeKind.WORKFLOW_STEP,
    ao.SPAN_KIND_GUARDRAIL: NodeKind.GUARDRAIL,
    **{kind: NodeKind.WORKFLOW_STEP for kind in ao.SPAN_KIND_STEPS},
}


def _mirror(view: SpanView) -> bool:
    return view.str_attr(ao.INSTRUMENTATION_NAME) == ao.INSTRUMENTATION_AGENTOPS


def is_call_record(view: SpanView) -> bool:
    """A span recording one call a model proposed (``tool_call.<name>``): a call id and a tool name, on no mirror."""
    attrs = view.attrs
    return ao.TOOL_CALL_ID in attrs and ao.TOOL_NAME in attrs and ao.SPAN_KIND not in attrs and not _mirror(view)


class AgentOpsReader:
    name = CONVENTION
    marker_keys: ClassVar[frozenset[str]] = frozenset({ao.SPAN_KIND})
    """Attribute keys ``claims`` looks for (one of them, or an AgentOps scope, is needed for a claim)."""
    marker_scopes: ClassVar[frozenset[str]] = frozenset({ao.SESSION_SCOPE, ao.MIRROR_SCOPE, ao.CHAT_WRAPPER_SCOPE})
    """Its session's, its Agents SDK mirrors' (every mirror, those with no AgentOps kind included) and its OpenAI
    wrapper's; any other scope under ``agentops.`` holds the session scope's name, which the recogniser matches."""

    def claims(self, view: SpanView) -> bool:
        scope = view.scope_name
        if scope in (ao.SESSION_SCOPE, ao.MIRROR_SCOPE) or scope.startswith(ao.SCOPE_PREFIX):
            return True
        return ao.SPAN_KIND in view.attrs

    def read(self, view: SpanView) -> SpanFacts:
        facts = SpanFacts(kind=_kind(view), convention=self.name, name=view.name)
        _read_sdk_error(view, facts)  # before any reading takes the label as the message
        kind = facts.kind
        if kind is NodeKind.MODEL_CALL and ao.SPAN_KIND not in view.attrs:
            facts.wraps_model_call = True  # a framework's model method around the client's request span, if any
            fill_genai_facts(view, facts, content=False)
        elif kind is NodeKind.MODEL_CALL:
            fill_genai_facts(view, facts, content=False)
            messages = json_content(view, ao.GENERATION_INPUT, limit=MAX_TEXT)
            fill_chat_completions(facts, messages if isinstance(messages, list) else None, None)
        elif kind is NodeKind.TOOL_EXECUTION:
            _read_tool(view, facts)
        elif kind is NodeKind.AGENT_INVOCATION:
            _read_agent(view, facts)
        elif kind is NodeKind.HANDOFF:
            facts.handoff_from_agent = clean_name(view.str_attr(ao.HANDOFF_FROM))
            facts.handoff_to_agent = clean_name(view.str_attr(ao.HANDOFF_TO))
            if facts.handoff_to_agent:
                facts.tool_name = clean_name(handoff_tool_name(facts.handoff_to_agent))
        elif is_call_record(view):
            name = clean_name(view.str_attr(ao.TOOL_NAME))
            if name:
                parameters = view.str_attr(ao.TOOL_PARAMETERS, limit=MAX_TEXT)
                arguments = arguments_text(parameters) if parameters is not None else None
                call_id = view.str_attr(ao.TOOL_CALL_ID)
                evidence = f"child span {view.name} records the call"  # named on the proposal's edge
                facts.proposals = [ToolCallFact(call_id=call_id, name=name, arguments=arguments, evidence=evidence)]
        fill_error(view, facts)
        return facts


def _kind(view: SpanView) -> NodeKind:
    kind = view.str_attr(ao.SPAN_KIND)
    if kind is not None:
        if kind == ao.SPAN_KIND_WORKFLOW and ao.TEAM_NAME in view.attrs:
            return NodeKind.AGENT_INVOCATION  # a team's run: its leader's
        return _KINDS.get(kind, NodeKind.OTHER)
    recorded = recorded_kind(view)
    if recorded is not None:
        return recorded
    if _mirror(view):
        attrs = view.attrs
        if ao.HANDOFF_TO in attrs or ao.HANDOFF_FROM in attrs:
            return NodeKind.HANDOFF
        return NodeKind.WORKFLOW_STEP
    return NodeKind.OTHER  # a call record, or a span of an AgentOps instrumentation this reader does not type


def _names(value: Decoded) -> list[str]:
    """Names from a JSON list of names, or of objects naming one each (``{"name": ..., "description": ...}``: its
    CrewAI agent spans' ``agent.tools``)."""
    if not isinstance(value, list):
        return []
    names: list[str] = []
    for item in value[:_MAX_OFFERED]:
        text = item.get(ao.OFFERED_NAME) if isinstance(item, dict) else item
        if isinstance(text, str) and (name := clean_name(text)):
            names.append(name)
    return names


def _read_agent(view: SpanView, facts: SpanFacts) -> None:
    facts.agent_name = (clean_name(view.str_attr(ao.AGENT_NAME)) or clean_name(view.str_attr(ao.TEAM_NAME))
                        or decorated_unit_name(view))
    attrs = view.attrs
    if ao.AGENT_TOOLS not in attrs and ao.AGENT_HANDOFFS not in attrs:
        return  # neither written: none offered
    managed = view.str_attr(ao.AGENT_MANAGED_AGENTS)
    if managed is not None and managed.strip() != ao.NO_MANAGED_AGENTS:
        return  # the model is also offered managed agents the tool list leaves out: what was offered is unknown
    offered, targets = _offered(view, ao.AGENT_TOOLS), _offered(view, ao.AGENT_HANDOFFS)
    if offered is None or targets is None:
        return  # a list written in a shape not read: what was offered is unknown, not nothing
    offered += [name for target in targets if (name := clean_name(handoff_tool_name(target)))]
    facts.tool_definitions = tuple(sorted(set(offered)))


def _offered(view: SpanView, key: str) -> list[str] | None:
    """The names the list under ``key`` gives: none when it is not written or empty; ``None`` when it is written but
    not read (too long, not a list, or no entry that gives a name), as for any convention's list of offered tools."""
    if key not in view.attrs:
        return []
    value = json_content(view, key)
    names = _names(value)
    return names if names or value == [] else None


def _read_tool(view: SpanView, facts: SpanFacts) -> None:
    if view.str_attr(ao.TOOL_NAME) == ao.TOOL_NAME_UNKNOWN:
        read_unnamed_run(view, facts)  # the placeholder: no name, and the arguments its default
    elif not read_decorated_tool(view, facts):  # else a user's function under its SDK's @tool decorator
        facts.tool_name = clean_name(view.str_attr(ao.TOOL_NAME)) or clean_name(view.name)
        parameters = view.str_attr(ao.TOOL_PARAMETERS, limit=MAX_TEXT)
        if parameters is not None:
            facts.arguments = arguments_text(parameters)
            facts.arguments_visible = facts.arguments is not None
    facts.result_visible = facts.result_visible or ao.TOOL_RESULT in view.attrs
    error = view.str_attr(ao.TOOL_ERROR, limit=MAX_ERROR_MESSAGE)
    if error is not None and error.strip():
        facts.failed = True
        facts.error_message = facts.error_message or error.strip()


def _read_sdk_error(view: SpanView, facts: SpanFacts) -> None:
    """A mirror's SDK error (status OK): ``error.type`` marks it; the data's error text is the message (with the HTTP
    status it names), and, off tool spans, the tool the label and data together reject as unknown."""
    if not _mirror(view) or genai.ERROR_TYPE not in view.attrs:
        return
    facts.failed = True
    label = view.str_attr(ao.ERROR_MESSAGE, limit=MAX_ERROR_MESSAGE)
    details = None
    for event in view.span.events[:MAX_MESSAGES]:
        if event.name != genai.EXCEPTION_EVENT:
            continue
        for kv in event.attributes:
            if kv.key == ao.ERROR_DATA:
                details = (to_text(kv.value) or "")[:MAX_TEXT]
        break
    data = parse_json_text(details) if details else None
    detail = data.get(ao.ERROR_DATA_ERROR) if isinstance(data, dict) else None
    if isinstance(detail, str) and detail.strip():
        facts.error_message = detail[:MAX_ERROR_MESSAGE]
        facts.http_status = http_status_in(facts.error_message)
    elif label:
        facts.error_message = label
    if label and details and facts.kind not in EXECUTION_KINDS:
        facts.unknown_tool = unknown_tool_named(f"{label}: {details[:MAX_REJECTION_TEXT]}")
