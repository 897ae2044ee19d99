"""OpenLIT's smolagents spans (:mod:`otel_mapper.mapping.readers.openlit_smolagents`) and smolagents' replay of a
step's calls as text in a GenAI input (:func:`otel_mapper.mapping.messages.replayed_call_ids`). Shapes as ``openlit``
1.45 records smolagents 1.26 (``corpus/NOTES-frameworks-ai.md``): a run, one step per model turn with the model call
(OpenLIT's OpenAI span) and the tool calls it asked for inside."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.mapping.messages import scan_input_messages
from otel_mapper.model import Trajectory
from semconv import openlit
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import envelopes, get_node, has_edge, node_id, span

SMOL = {"gen_ai.provider.name": "smolagents", "gen_ai.request.model": "gpt-4o-mini"}
MINTED_ID = "52011054-5ee6-4be8-b32f-4ac87d9cea88"
USER = {"role": "user", "parts": [{"type": "text", "content": "New task:\nWhat's the weather in Paris?"}]}
REPLAY = ("Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'get_weather', "
          "'arguments': {'city': 'Paris'}}}]")


def _map(smol: Sequence[Span], openai: Sequence[Span], *, smol_scope: str = openlit.SMOLAGENTS_SCOPE) -> Trajectory:
    items = envelopes(smol, scope=smol_scope) + envelopes(openai, scope="openlit.instrumentation.openai")
    return map_trace(items).trajectory


def _run(**extra: Any) -> dict[str, Any]:
    return {**SMOL, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent",
            "gen_ai.tool.definitions": json.dumps([{"type": "function", "name": "get_weather"},
                                                   {"type": "function", "name": "final_answer"}]), **extra}


def _step(number: int) -> dict[str, Any]:
    return {**SMOL, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent",
            "gen_ai.smolagents.step_number": number, "gen_ai.usage.input_tokens": 1194,
            "gen_ai.usage.output_tokens": 27}


def _tool() -> dict[str, Any]:
    return {**SMOL, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": MINTED_ID, "gen_ai.tool.call.arguments": json.dumps({"city": "Paris"}),
            "gen_ai.tool.call.result": "Paris: Sunny"}


def _chat(inputs: list[dict[str, Any]], call: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    call_id, name, arguments = call
    output = [{"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": name,
                                               "arguments": arguments}]}]
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.id": f"resp-{call_id}", "gen_ai.input.messages": json.dumps(inputs),
            "gen_ai.output.messages": json.dumps(output), "gen_ai.usage.input_tokens": 1194,
            "gen_ai.usage.output_tokens": 27}


def _two_steps() -> tuple[list[Span], list[Span]]:
    """Run 1; step 2 (model call 3 asks for get_weather, tool 4 runs it); step 5 (model call 6 reads the replay of
    the call and its observation, and answers)."""
    second_input = [USER, {"role": "assistant", "parts": [{"type": "text", "content": REPLAY}]},
                    {"role": "user", "parts": [{"type": "text", "content": "Observation:\nParis: Sunny"}]}]
    smol = [span(1, "invoke_agent support_agent", attrs=_run()),
            span(2, "invoke_agent support_agent step_1", parent=1, attrs=_step(1)),
            span(4, "execute_tool get_weather", parent=2, attrs=_tool()),
            span(5, "invoke_agent support_agent step_2", parent=1, attrs=_step(2))]
    openai = [span(3, "chat gpt-4o-mini", parent=2, attrs=_chat([USER], ("call_1", "get_weather", {"city": "Paris"}))),
              span(6, "chat gpt-4o-mini", parent=5,
                   attrs=_chat(second_input, ("call_2", "final_answer", {"answer": "Sunny"})))]
    return smol, openai


def test_the_steps_of_a_run_are_steps_naming_no_agent() -> None:
    trajectory = _map(*_two_steps())
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    for step in (2, 5):
        node = get_node(trajectory, node_id(step))
        assert node.kind is NodeKind.WORKFLOW_STEP and node.agent_name is None
        assert node.usage is None  # the step's model usage, counted on the model call
    assert get_node(trajectory, node_id(3)).invocation == node_id(1)


def test_a_tool_call_is_joined_by_name_and_arguments_not_by_the_id_openlit_made_up() -> None:
    trajectory = _map(*_two_steps())
    execution = get_node(trajectory, node_id(4))
    assert execution.kind is NodeKind.TOOL_EXECUTION and execution.tool_call_id is None
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_the_replayed_call_s_result_is_consumed_by_the_next_model_call() -> None:
    trajectory = _map(*_two_steps())
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))


def test_a_replay_is_consumed_only_when_a_user_message_answers_it() -> None:
    replay = {"role": "assistant", "parts": [{"type": "text", "content": REPLAY}]}
    answered = scan_input_messages([USER, replay, {"role": "user", "parts": [{"type": "text", "content": "Obs"}]}])
    assert answered.consumed == ["call_1"]
    assert scan_input_messages([USER, replay]).consumed == []
    assert scan_input_messages([USER, {"role": "user", "parts": [{"type": "text", "content": REPLAY}]}, USER]).consumed == []


def test_a_run_or_a_tool_call_that_raised_is_read_from_its_name() -> None:
    error = {"error.type": "AgentToolExecutionError"}
    smol = [span(1, "invoke_agent support_agent", attrs={"error.type": "AgentGenerationError"}, error="failed"),
            span(2, "invoke_agent support_agent step_1", parent=1, attrs=_step(1)),
            span(4, "execute_tool fetch_invoice", parent=2, attrs=error, error="Unknown tool fetch_invoice")]
    openai = [span(3, "chat gpt-4o-mini", parent=2, attrs=_chat([USER], ("call_1", "fetch_invoice", {"id": "A"})))]
    trajectory = _map(smol, openai)
    run = get_node(trajectory, node_id(1))
    assert run.kind is NodeKind.AGENT_INVOCATION and run.agent_name == "support_agent"
    tool = get_node(trajectory, node_id(4))
    assert tool.kind is NodeKind.TOOL_EXECUTION and tool.tool_name == "fetch_invoice"


def test_the_same_spans_of_another_scope_are_read_as_they_say() -> None:
    trajectory = _map(*_two_steps(), smol_scope="another.instrumentation")
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(4)).tool_call_id == MINTED_ID
