"""The spans Langtrace's ``with_langtrace_root_span`` decorator opens around a user's own functions: what they ran.

Langtrace (``langtrace-python-sdk`` 3.8.21, ``utils/with_root_span.py``) has no agent or tool decorator; its way to
give an application's own unit of work a span is ``@with_langtrace_root_span(name)``: a current INTERNAL span of that
name, scope ``langtrace_python_sdk.utils.with_root_span``, no attribute, each nested one a child of the one around it.
The reader takes each for a workflow step (the user's run: :mod:`otel_mapper.mapping.readers.langtrace`). An
application that decorates its agent loop and its tool functions, as a raw tool loop does, says what they are only
by where they sit and what they are named:

- a decorated span named as a tool that a model call beside it (same parent span) proposed ran that tool: a tool
  execution of that name (joined to its proposal as any named execution, :mod:`otel_mapper.mapping.tool_edges`). A
  call counts as proposed beside it also when a model call beside it replays the call in its input (an assistant
  message's calls in the request's messages): the loop's model proposed it, though the span of the request that did
  records no answer, or not that call (Langtrace's Anthropic wrapper writes only an answer's first content block);
- a decorated span that holds a model request directly (a child span that is a model call and no layer wrapped
  around another one) runs the loop that asks the model: an agent invocation, named by its span. A model call that is
  a framework module's own run (``SpanFacts.module_call``: DSPy's ``Predict.forward`` under Langtrace, one turn of the
  framework's agent module) says that the framework's module runs the loop, not the decorated function around it.

Anything else stays a workflow step (the run around the agents; a decorated function around LangChain's runnables,
whose model calls are deeper). Parent links, names and proposals only; nothing here reads an order.
"""

from __future__ import annotations

from itertools import chain
from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.spans import MAX_NAME
from semconv import langtrace as lt
from semconv.trajectory import NodeKind

__all__ = ["settle_decorated_runs"]

MAX_PROPOSALS_SEEN: Final = 4096
"""Proposals indexed per trace (beyond it no decorated span is read as a tool's run)."""


def settle_decorated_runs(entries: list[SpanEntry]) -> None:
    """Read each decorated function's span as the tool execution or agent invocation its place says it is."""
    decorated = [
        entry
        for entry in entries
        if entry.primary and entry.view.scope_name == lt.ROOT_SPAN_SCOPE and entry.facts.kind is NodeKind.WORKFLOW_STEP
    ]
    if not decorated:
        return
    proposed: set[tuple[str, str]] = set()  # (parent span of the proposing call, tool name)
    asking: set[str] = set()  # span ids holding a model request directly
    seen = 0
    for entry in entries:
        facts = entry.facts
        parent = entry.view.parent_span_id
        if not entry.primary or facts.kind is not NodeKind.MODEL_CALL or parent is None:
            continue
        if not facts.wraps_model_call and not facts.module_call:
            asking.add(parent)
        replayed = (call for _, call in facts.input_tool_calls)
        for call in chain(facts.proposals or (), replayed):
            seen += 1
            if seen > MAX_PROPOSALS_SEEN:
                proposed.clear()
                break
            if call.name:
                proposed.add((parent, call.name))
    for entry in decorated:
        name = entry.facts.name[:MAX_NAME]  # the span's name as read (an earlier revision's span is kept without it)
        parent = entry.view.parent_span_id
        if parent is not None and name and (parent, name) in proposed:
            entry.facts = _as(entry.facts, NodeKind.TOOL_EXECUTION)
            entry.facts.tool_name = name
        elif entry.view.span_id in asking and name:
            entry.facts = _as(entry.facts, NodeKind.AGENT_INVOCATION)
            entry.facts.agent_name = name


def _as(facts: SpanFacts, kind: NodeKind) -> SpanFacts:
    copied = copy_facts(facts)  # the read facts may be kept for the run: never changed
    copied.kind = kind
    return copied
