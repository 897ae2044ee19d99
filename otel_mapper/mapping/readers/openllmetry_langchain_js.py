"""OpenLLMetry's LangChain instrumentation for JavaScript: tool spans named after the tool's class.

``@traceloop/instrumentation-langchain`` 0.27.0 (a callback handler, ``TraceloopCallbackHandler``, that its patch of
LangChain's callback manager adds to every run; read in its ``dist/index.mjs``) names a tool span
``execute_tool <class>``, and ``traceloop.entity.name`` too, after the last part of the tool's serialized id: for a
tool made with LangChain's ``tool()`` the class ``DynamicStructuredTool``, not the tool's name. It records the input
as ``{"args": [<the input LangChain hands the callback: the arguments' JSON text>]}`` and the output as the tool's
return value in JSON: a ``ToolMessage`` in LangChain's serialized form (``{"lc": 1, "type": "constructor", "id": [...,
"ToolMessage"], "kwargs": {"tool_call_id", "name", ...}}``) or, for a tool that returns a LangGraph ``Command``
(langgraph-supervisor's transfer tools), ``{"lg_name": "Command", "update": {"messages": [..., <ToolMessage>]}, ...}``.
A failed run records no output.

Read here, on a tool span whose recorded name is such a class: the class is no tool name; the ``ToolMessage`` the run
returned names the tool and the call (in a ``Command``, the last message of its update when it is a ``ToolMessage``: a
tool that returns a ``Command`` adds the message of its own call last); the one JSON text in ``args`` is the arguments.
A failed run keeps no name: :mod:`otel_mapper.mapping.nameless_tools` may find it from the proposals beside it.

The handler names a graph's run ``workflow CompiledStateGraph``: such a span is marked, with the one agent named by
the AI messages the run added to its input's (its output is the graph's state, ``{"messages": [...]}``, its input's
messages followed by the added ones; LangGraph's prebuilt agents name their AI messages after themselves), for
:mod:`otel_mapper.mapping.langchain_graph_runs` to settle with the rest of the trace.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.langchain_messages import MAX_TOOL_MESSAGE, tool_input_arguments, tool_message_call_id
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import genai, langgraph
from semconv import openinference as oi
from semconv import openllmetry as tl
from semconv.trajectory import NodeKind

__all__ = ["read_langchain_js_graph", "read_langchain_js_tool", "serialized_class"]

_CALL_ID_EVIDENCE: Final = f"{tl.ENTITY_OUTPUT}: ToolMessage {tl.LANGCHAIN_TOOL_CALL_ID}"
MAX_GRAPH_STATE: Final = 512 * 1024
"""Longest graph input or output read for its messages (characters); a longer one is not parsed."""
_WORKFLOW: Final = "workflow"
"""``gen_ai.operation.name`` the handler writes on a chain run whose class name holds no "agent" or "executor"."""


def serialized_class(message: Decoded) -> str | None:
    """The class of a LangChain object in its serialized form (the last part of ``id``), else ``None``."""
    if not isinstance(message, dict):
        return None
    path = message.get(tl.LANGCHAIN_SERIALIZED_ID)
    if isinstance(path, list) and path and isinstance(path[-1], str):
        return path[-1]
    return None


def read_langchain_js_tool(view: SpanView, facts: SpanFacts) -> None:
    """Name, call id and arguments of a tool span whose name is a LangChain tool class (see the module)."""
    if facts.tool_name not in tl.LANGCHAIN_TOOL_CLASSES:
        return
    facts.tool_name = None
    raw = view.json_attr(tl.ENTITY_INPUT)
    if isinstance(raw, dict) and set(raw) == {tl.ARGS_KEY}:
        args = raw[tl.ARGS_KEY]
        if isinstance(args, list) and len(args) == 1 and isinstance(args[0], str):
            facts.arguments, facts.arguments_json = tool_input_arguments(args[0])
            facts.arguments_visible = True
    message = _returned_tool_message(view)
    if message is None:
        return
    fields = message.get(oi.LANGCHAIN_SERIALIZED_KWARGS)
    name = fields.get(tl.LANGCHAIN_MESSAGE_NAME) if isinstance(fields, dict) else None
    facts.tool_name = clean_name(name) if isinstance(name, str) else None
    call_id = tool_message_call_id(message)
    if call_id is not None:
        facts.tool_call_id = call_id
        facts.tool_call_id_evidence = _CALL_ID_EVIDENCE


def _returned_tool_message(view: SpanView) -> dict[str, Decoded] | None:
    head = view.str_attr(tl.ENTITY_OUTPUT, limit=MAX_TOOL_MESSAGE)
    if not head or tl.LANGCHAIN_TOOL_CALL_ID not in head or len(head) >= MAX_TOOL_MESSAGE:
        return None  # cheap: only outputs that name a call id are parsed
    payload = parse_json_text(head)
    if isinstance(payload, dict) and payload.get(tl.LANGGRAPH_COMMAND_KEY) == tl.LANGGRAPH_COMMAND:
        update = payload.get(tl.LANGGRAPH_COMMAND_UPDATE)
        messages = update.get(tl.LANGGRAPH_MESSAGES) if isinstance(update, dict) else None
        payload = messages[-1] if isinstance(messages, list) and messages else None
    if isinstance(payload, dict) and serialized_class(payload) == tl.LANGCHAIN_TOOL_MESSAGE_CLASS:
        return payload
    return None


def read_langchain_js_graph(view: SpanView, facts: SpanFacts) -> None:
    """Mark a graph run of the JavaScript handler, with the agent its added AI messages name (see the module)."""
    if (
        facts.kind is not NodeKind.WORKFLOW_STEP
        or view.scope_name != tl.LANGCHAIN_JS_SCOPE_NAME
        or view.str_attr(genai.OPERATION_NAME) != _WORKFLOW
        or view.str_attr(tl.WORKFLOW_NAME) not in langgraph.GRAPH_CLASSES
    ):
        return
    facts.class_named_graph_run = True
    facts.graph_run_agent = _agent_of_messages(view)


def _agent_of_messages(view: SpanView) -> str | None:
    """The one name on the AI messages the run added to its input's; ``""`` when they carry several names or one
    is nameless; ``None`` when the run recorded no such message."""
    before = _messages(view, tl.ENTITY_INPUT)
    after = _messages(view, tl.ENTITY_OUTPUT)
    if before is None or after is None or len(after) < len(before):
        return None
    names: set[str | None] = set()
    for message in after[len(before):]:
        if not isinstance(message, dict) or serialized_class(message) != tl.LANGCHAIN_AI_MESSAGE_CLASS:
            continue
        fields = message.get(oi.LANGCHAIN_SERIALIZED_KWARGS)
        name = fields.get(tl.LANGCHAIN_MESSAGE_NAME) if isinstance(fields, dict) else None
        names.add(clean_name(name) if isinstance(name, str) else None)
    if not names:
        return None
    if len(names) > 1 or None in names:
        return ""
    return next(iter(names))


def _messages(view: SpanView, key: str) -> list[Decoded] | None:
    text = view.str_attr(key, limit=MAX_GRAPH_STATE)
    if not text or len(text) >= MAX_GRAPH_STATE:
        return None
    state = parse_json_text(text)
    messages = state.get(tl.LANGGRAPH_MESSAGES) if isinstance(state, dict) else None
    return messages if isinstance(messages, list) else None
