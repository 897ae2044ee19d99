"""AG2 (formerly pyautogen) under OpenLIT (``openlit`` 1.45, ``instrumentation/ag2/``, read in its source and observed).

OpenLIT's AG2 instrumentor names its spans ``<operation> <entity>`` when the call starts and writes every attribute
when it returns. It types four of an agent's calls alike: ``execute_task <agent>`` with ``gen_ai.operation.name``
``chat`` for ``ConversableAgent.run``, ``generate_reply``, ``send`` and ``receive``, told apart only by
:data:`semconv.openlit.AG2_MESSAGE_TYPE`. None of them is a model call (OpenLIT's OpenAI instrumentor records those,
inside), and none is an agent's run: an AG2 agent has no run of its own, it takes part in a chat one reply at a time
(a tool the model asks for is run by the other agent's next reply). A ``generate_reply`` is a step of the chat, one
reply of the agent, with the reply's model calls or tool runs inside; a ``send`` or ``receive`` hands one message from
an agent to another and runs nothing of its own (the reply the receiving agent generates is inside it). The group's
``GroupChat.select_speaker`` is typed ``invoke_agent`` (``invoke_agent speaker_selection``, role ``selector``): the
group choosing its next speaker, a step too. The instrumentor's ``gen_ai.usage.*`` on a reply is an estimate from the
messages' text length, not a model's count (a step's usage is never counted).

A call that raised leaves a span with its name, status ERROR and the exception alone: its operation is read from the
first word of its name, as for OpenLIT's CrewAI spans (the scope is one of :data:`semconv.openlit.NAMED_ONLY_SCOPES`,
read by :mod:`otel_mapper.mapping.readers.openlit_crewai`). Such an
``execute_task`` span may be any of the four calls: it is read as a step here, and the ones that are no model call's
parent (a ``send`` or ``receive`` around the failed reply) are settled afterwards
(:mod:`otel_mapper.mapping.openlit_ag2_calls`).
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import WORKFLOW_STEP as _WORKFLOW_STEP
from otel_mapper.mapping.readers.openlit_crewai import named_operation
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit
from semconv.trajectory import NodeKind

__all__ = ["ag2_kind", "is_openlit_ag2", "is_unread_ag2_call", "read_ag2_step"]

_MESSAGE_PASSING = frozenset({openlit.AG2_SEND, openlit.AG2_RECEIVE})


def is_openlit_ag2(view: SpanView) -> bool:
    return view.scope_name == openlit.AG2_SCOPE


def _is_speaker_selection(view: SpanView) -> bool:
    if view.str_attr(openlit.AGENT_ROLE) == openlit.AG2_SELECTOR_ROLE:
        return True
    return not view.has(genai.AGENT_NAME) and view.name.partition(" ")[2] == openlit.AG2_SPEAKER_SELECTION


def is_unread_ag2_call(view: SpanView) -> bool:
    """An AG2 agent call's span (``execute_task <agent>``) that recorded no attribute: the call raised."""
    return is_openlit_ag2(view) and named_operation(view) == openlit.AG2_AGENT_CALL_OPERATION


def ag2_kind(view: SpanView, kind: NodeKind) -> NodeKind:
    """The node kind of an OpenLIT AG2 span (module docstring); a span of another scope keeps ``kind``."""
    if not is_openlit_ag2(view):
        return kind
    message_type = view.str_attr(openlit.AG2_MESSAGE_TYPE)
    if message_type in _MESSAGE_PASSING:
        return NodeKind.OTHER
    if message_type is not None or is_unread_ag2_call(view) or _is_speaker_selection(view):
        return _WORKFLOW_STEP
    return kind


def read_ag2_step(view: SpanView, facts: SpanFacts) -> None:
    """An AG2 step names no agent: the agent of a reply or a speaker selection is not the step's."""
    if is_openlit_ag2(view) and facts.kind is _WORKFLOW_STEP:
        facts.agent_name = None
