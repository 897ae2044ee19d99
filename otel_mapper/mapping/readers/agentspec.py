"""Agent Spec tracing spans under OpenInference's Agent Spec instrumentation (names in :mod:`semconv.agentspec`).

The OpenInference reader reads these spans by their OpenInference keys; this module reads what the Agent Spec side of
the same span says where those keys alone mislead or are silent. A span is Agent Spec's when it carries an Agent Spec
tracing event (:func:`is_agentspec`).

- **Tool call id**: the instrumentation writes a tool execution's ``tool_call.id`` from its ``ToolExecutionRequest``'s
  ``request_id``, the runtime's id of the request (LangChain's run id under pyagentspec's LangGraph adapter), not the
  model's call id; that id is dropped, and the call id read from the span's description where the LangGraph adapter
  writes it (``tcid__<call id>``).
- **Tool result**: a tool execution's ``output.value`` is the Agent Spec tool's outputs object, keyed by output title;
  with one output, its value is what the tool returned (a JSON value re-serialised: the adapter parsed the returned
  text), whose digest joins the result a later model input carries.
- **Call arguments**: the LangGraph adapter writes each answered call's arguments as ``str()`` of LangChain's parsed
  dict (``{'city': 'Paris'}``); on an LLM span whose answer is an Agent Spec ``LlmGenerationResponse``, arguments that
  are no JSON but a Python dict literal are read as that literal (never executed).
- **Exceptions**: a span whose code raised records an ``ExceptionRaised`` event (type, message, traceback) and no
  status; the span is read as failed with that error, its type qualified by the module the traceback's exception line
  names (``openai.APITimeoutError: Request timed out.``), so that a model client's error is known as one.
- **Routing**: LangGraph's ``ParentCommand`` raised out of an agent's graph is recorded as an ``ExceptionRaised``
  event too; it is control flow, not a failure (the OpenInference reader clears it), and a ``Command`` that routes to
  one node by name (``goto='<node>'``, the end of its text) names the agent the run is handed to.
- **Replayed turns**: the model input messages keep role and text only, so an assistant turn that only called tools is
  an empty assistant message, followed by its results as tool messages without call id; such a message is read as the
  turn the tool messages answer (conversation-prefix evidence, :mod:`otel_mapper.mapping.prefix`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import result_text_digest
from otel_mapper.mapping.readers.common import MAX_ERROR_MESSAGE, clean_name, http_status_in
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from otel_mapper.mapping.result_texts import python_literal
from otel_mapper.mapping.spans import MAX_NAME, MAX_TEXT, SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import to_text
from semconv import agentspec, langgraph
from semconv import openinference as oi
from semconv.trajectory import NodeKind

__all__ = [
    "fill_agentspec_call_arguments",
    "is_agentspec",
    "read_agentspec_exception",
    "read_agentspec_span",
    "read_agentspec_tool",
]

MAX_EVENTS: Final = 64
"""Events looked at on one span (an Agent Spec span has two to four)."""
MAX_TRACEBACK: Final = 16 * 1024
"""Tail of a traceback searched for its exception line (the line is at the end, before any task note)."""
CALL_ID_EVIDENCE: Final = "description: tcid__<call id> (pyagentspec LangGraph adapter)"
_LONG_TEXTS: Final = frozenset({agentspec.EXCEPTION_STACKTRACE, agentspec.EXCEPTION_MESSAGE})
_GOTO = re.compile(r"goto='([^'\\]{1,256})'\)\s*$")
"""The end of LangGraph's ``Command`` repr when it routes to one node by name (``..., goto='billing_agent')``)."""


def _event_attrs(view: SpanView, name: str) -> dict[str, str] | None:
    """The text attributes of the span's first Agent Spec event named ``name`` (its ``type`` the same name)."""
    for event in view.span.events[:MAX_EVENTS]:
        if event.name != name:
            continue
        attrs: dict[str, str] = {}
        for kv in event.attributes:
            text = to_text(kv.value)
            if text is not None:
                attrs[kv.key] = text[:MAX_TEXT] if kv.key in _LONG_TEXTS else text[:MAX_NAME * 4]
        if attrs.get(agentspec.EVENT_TYPE) == name:
            return attrs
    return None


def is_agentspec(view: SpanView) -> bool:
    """Whether the span carries an Agent Spec tracing event (its name an Agent Spec event class, written again as the
    event's ``type``)."""
    events = view.span.events
    if not events:
        return False
    for event in events[:MAX_EVENTS]:
        if event.name in agentspec.EVENTS:
            for kv in event.attributes:
                if kv.key == agentspec.EVENT_TYPE:
                    return to_text(kv.value) == event.name
    return False


def read_agentspec_span(view: SpanView, facts: SpanFacts) -> bool:
    """Whether the span is Agent Spec's (:func:`is_agentspec`); if so, its ``ExceptionRaised`` error is read."""
    if not is_agentspec(view):
        return False
    read_agentspec_exception(view, facts)
    return True


def read_agentspec_tool(view: SpanView, facts: SpanFacts) -> None:
    """The model's call id and the returned value of an Agent Spec tool execution span."""
    request = _event_attrs(view, agentspec.TOOL_EXECUTION_REQUEST)
    if request is not None and facts.tool_call_id and facts.tool_call_id == request.get(agentspec.REQUEST_ID):
        facts.tool_call_id = None  # the runtime's request id, not a tool-call id
        facts.dedup_key = None
        description = view.str_attr(agentspec.DESCRIPTION) or ""
        if description.startswith(agentspec.TOOL_CALL_ID_DESCRIPTION_PREFIX):
            call_id = clean_name(description[len(agentspec.TOOL_CALL_ID_DESCRIPTION_PREFIX):])
            if call_id:
                facts.tool_call_id = call_id
                facts.tool_call_id_evidence = CALL_ID_EVIDENCE
                facts.dedup_key = f"tool_call:{call_id}"
    outputs = parse_json_text(view.text_attr(oi.OUTPUT_VALUE) or "")
    if isinstance(outputs, dict) and len(outputs) == 1:
        (value,) = outputs.values()
        if isinstance(value, str):
            facts.result_digest = result_text_digest(value)
        elif value is not None:
            facts.result_digest = result_text_digest(json.dumps(value))


def fill_agentspec_call_arguments(view: SpanView, outputs: Mapping[int, FlatMessage] | None) -> None:
    """Arguments of the answer's calls written as a Python dict's text, as the JSON of that dict."""
    if not outputs or _event_attrs(view, agentspec.LLM_GENERATION_RESPONSE) is None:
        return
    for message in outputs.values():
        for call in message.calls.values():
            text = call.get(oi.TOOL_CALL_ARGUMENTS_SUFFIX)
            if not text or isinstance(parse_json_text(text), (dict, list)):
                continue
            literal = python_literal(text)
            if isinstance(literal, dict):
                call[oi.TOOL_CALL_ARGUMENTS_SUFFIX] = json.dumps(literal)


def read_agentspec_exception(view: SpanView, facts: SpanFacts) -> None:
    """An ``ExceptionRaised`` event as the span's error (values already recorded win)."""
    raised = _event_attrs(view, agentspec.EXCEPTION_RAISED)
    if raised is None:
        return
    bare = clean_name(raised.get(agentspec.EXCEPTION_TYPE))
    full_message = raised.get(agentspec.EXCEPTION_MESSAGE) or ""
    message = full_message[:MAX_ERROR_MESSAGE] or None
    if facts.kind is NodeKind.AGENT_INVOCATION and bare in langgraph.ROUTING_COMMANDS:
        # LangGraph routing out of the agent's graph (a swarm's or a supervisor's handoff tool returns a Command to
        # the parent graph), not a failure: the node it routes to is the agent the run is handed to.
        goto = _GOTO.search(full_message)
        facts.handoff_to_agent = facts.handoff_to_agent or (clean_name(goto.group(1)) if goto else None)
    facts.failed = True
    facts.error_type = facts.error_type or _qualified(bare, raised.get(agentspec.EXCEPTION_STACKTRACE) or "")
    facts.error_message = facts.error_message or message
    if facts.http_status is None and message:
        facts.http_status = http_status_in(message)


def _qualified(bare: str | None, traceback: str) -> str | None:
    """``bare`` with the module the traceback's last exception line gives it (``<module>.<bare>: <message>``, or the
    line ``<module>.<bare>`` alone), else ``bare``."""
    if not bare:
        return None
    pattern = re.compile(rf"^((?:[A-Za-z_]\w*\.)+){re.escape(bare)}(?::|$)", re.MULTILINE)
    last = None
    for match in pattern.finditer(traceback[-MAX_TRACEBACK:]):
        last = match  # the last exception line: the one raised (earlier ones are its causes)
    return f"{last.group(1)}{bare}"[:MAX_NAME] if last is not None else bare

