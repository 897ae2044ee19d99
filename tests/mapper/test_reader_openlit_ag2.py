"""OpenLIT's AG2 spans (:mod:`otel_mapper.mapping.readers.openlit_ag2`, :mod:`otel_mapper.mapping.openlit_ag2_calls`).
Shapes as ``openlit`` 1.45 records ag2 0.14 (``corpus/NOTES-frameworks-ag.md``): a two-agent chat, the assistant's
reply making the model call, the user agent's reply running the tool with no span of its own."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import MappingOptions, map_trace
from otel_mapper.model import Trajectory
from semconv import openlit
from semconv.trajectory import NodeKind
from tests.support.spans import envelopes, get_node, node_id, span

AG2 = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "ag2", "gen_ai.request.model": "unknown"}
USER = {"role": "user", "parts": [{"type": "text", "content": "What's the weather in Paris?"}]}


def _map(ag2: Sequence[Span], openai: Sequence[Span], *, ag2_scope: str = openlit.AG2_SCOPE) -> Trajectory:
    items = envelopes(ag2, scope=ag2_scope) + envelopes(openai, scope="openlit.instrumentation.openai")
    return map_trace(items).trajectory


def _call(agent: str, message_type: str, **extra: Any) -> dict[str, Any]:
    """An ``execute_task <agent>`` span's attributes; a reply carries the instrumentor's estimated usage."""
    usage = {"gen_ai.usage.input_tokens": 21, "gen_ai.usage.output_tokens": 63} if message_type == "generate_reply" else {}
    return {**AG2, "gen_ai.agent.name": agent, "gen_ai.agent.message_type": message_type, **usage, **extra}


def _chat() -> dict[str, Any]:
    output = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather",
                                               "arguments": {"city": "Paris"}}]}]
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.id": "resp-1", "gen_ai.input.messages": json.dumps([USER]),
            "gen_ai.output.messages": json.dumps(output), "gen_ai.usage.input_tokens": 179,
            "gen_ai.usage.output_tokens": 27}


def _turn() -> tuple[list[Span], list[Span]]:
    """The user's send 2 -> the assistant's receive 3 -> its reply 4 (model call 5) -> its send 6 -> the user's receive
    7; the user's reply 8 (runs the tool) beside them under the app's span 1."""
    ag2 = [span(2, "execute_task user", parent=1, attrs=_call("user", "send", **{"gen_ai.output.messages": "support"})),
           span(3, "execute_task support", parent=2, attrs=_call("support", "receive", **{"gen_ai.input.messages": "user"})),
           span(4, "execute_task support", parent=3, attrs=_call("support", "generate_reply")),
           span(6, "execute_task support", parent=3, attrs=_call("support", "send")),
           span(7, "execute_task user", parent=6, attrs=_call("user", "receive")),
           span(8, "execute_task user", parent=1, attrs=_call("user", "generate_reply"))]
    openai = [span(1, "run_agent"), span(5, "chat gpt-4o-mini", parent=4, attrs=_chat())]
    return ag2, openai


def _kinds(trajectory: Trajectory) -> dict[str, NodeKind]:
    return {node.id: node.kind for node in trajectory.nodes}


def test_replies_are_steps_and_messages_between_agents_are_plain_spans() -> None:
    trajectory = _map(*_turn())
    kinds = _kinds(trajectory)
    assert [node for node, kind in kinds.items() if kind is NodeKind.MODEL_CALL] == [node_id(5)]
    assert not [node for node, kind in kinds.items() if kind is NodeKind.AGENT_INVOCATION]
    for reply in (4, 8):
        assert kinds[node_id(reply)] is NodeKind.WORKFLOW_STEP
        assert get_node(trajectory, node_id(reply)).agent_name is None
        assert get_node(trajectory, node_id(reply)).usage is None  # the instrumentor's estimate, not a count
    for message in (2, 3, 6, 7):
        assert kinds[node_id(message)] is NodeKind.OTHER


def test_the_same_spans_of_another_scope_are_read_as_they_say() -> None:
    trajectory = _map(*_turn(), ag2_scope="another.instrumentation")
    assert get_node(trajectory, node_id(4)).kind is NodeKind.MODEL_CALL


def test_the_group_s_speaker_selection_is_a_step() -> None:
    selection = {**AG2, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "speaker_selection",
                 "gen_ai.agent.role": "selector", "gen_ai.groupchat.speaker_selection": "billing_agent"}
    group = {**AG2, "gen_ai.operation.name": "invoke_workflow", "gen_ai.agent.name": "GroupChat_2_agents"}
    ag2 = [span(1, "invoke_workflow GroupChat_2_agents", attrs=group),
           span(2, "invoke_agent speaker_selection", parent=1, attrs=selection),
           span(3, "invoke_agent speaker_selection", parent=1, attrs={"error.type": "NoEligibleSpeakerError"},
                error="NoEligibleSpeakerError: no next speaker")]
    kinds = _kinds(_map(ag2, []))
    assert kinds == {node_id(1): NodeKind.WORKFLOW_STEP, node_id(2): NodeKind.WORKFLOW_STEP,
                     node_id(3): NodeKind.WORKFLOW_STEP}


def _failed_turn() -> tuple[list[Span], list[Span]]:
    """The user's send 2 -> the assistant's receive 3 -> its reply 4 -> model call 5, all raised; a failed
    ``create_agent`` 6."""
    raised = {"error.type": "InternalServerError"}
    ag2 = [span(2, "execute_task user", parent=1, attrs=raised, error="InternalServerError: Error code: 500"),
           span(3, "execute_task support", parent=2, attrs=raised, error="InternalServerError: Error code: 500"),
           span(4, "execute_task support", parent=3, attrs=raised, error="InternalServerError: Error code: 500"),
           span(6, "create_agent user", parent=1, attrs={"error.type": "AttributeError"}, error="AttributeError")]
    failed_chat = {key: value for key, value in _chat().items() if key != "gen_ai.output.messages"}
    openai = [span(1, "run_agent"), span(5, "chat gpt-4o-mini", parent=4, attrs={**failed_chat, **raised},
                                         error="Error code: 500")]
    return ag2, openai


def test_of_the_calls_that_raised_only_the_reply_that_made_the_model_call_is_a_step() -> None:
    """OpenLIT writes an AG2 span's attributes when the call returns: the failed reply and the receive and send around
    it carry only their names and the error."""
    kinds = _kinds(_map(*_failed_turn()))
    assert kinds[node_id(4)] is NodeKind.WORKFLOW_STEP
    assert kinds[node_id(2)] is NodeKind.OTHER and kinds[node_id(3)] is NodeKind.OTHER
    assert kinds[node_id(6)] is NodeKind.OTHER  # builds an agent, runs nothing
    assert not [node for node, kind in kinds.items() if kind is NodeKind.AGENT_INVOCATION]


def test_a_run_mapped_in_revisions_settles_the_calls_that_raised_as_the_whole_run_does() -> None:
    """The spans of an earlier revision are kept without their names and attributes: the later revision still tells
    the failed receive from the failed reply."""
    ag2, openai = _failed_turn()
    items = envelopes(ag2, scope=openlit.AG2_SCOPE) + envelopes(openai, scope="openlit.instrumentation.openai")
    first = [item for item in items if item.span.name != "run_agent"]
    second = [item for item in items if item.span.name == "run_agent"]
    earlier = map_trace(first, MappingOptions(revision=1, keep_run=True))
    later = map_trace(second, MappingOptions(revision=2, keep_run=True), earlier.state).trajectory
    assert _kinds(later) == _kinds(_map(ag2, openai))
