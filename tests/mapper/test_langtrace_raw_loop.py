"""Langtrace on a raw Chat Completions loop (:mod:`otel_mapper.mapping.readers.langtrace`,
:mod:`otel_mapper.mapping.decorated_runs`): the OpenAI wrapper's completion event writes an answer's calls as the
message's ``content``, and the application's own workflow, agent and tool functions are spans of Langtrace's
``with_langtrace_root_span`` decorator (no attribute), as ``langtrace-python-sdk`` 3.8.21 writes them."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_scoped_spans, node_id, span

ROOT_SCOPE = "langtrace_python_sdk.utils.with_root_span"
OPENAI_SCOPE = "langtrace_python_sdk.instrumentation.openai.instrumentation"
CLIENT = {
    "langtrace.sdk.name": "langtrace-python-sdk",
    "langtrace.service.type": "llm",
    "langtrace.service.name": "OpenAI",
    "gen_ai.operation.name": "chat",
    "gen_ai.system": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
USER = [{"role": "system", "content": "be helpful"}, {"role": "user", "content": "weather in Paris?"}]
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def _request(number: int, parent: int, prompt: list[Any], completion: list[Any] | None) -> Any:
    """Langtrace's request span; ``completion`` ``None``: no completion event (the response read raw)."""
    events = [("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(prompt)})]
    if completion is not None:
        events.append(("gen_ai.content.completion", {"gen_ai.completion": json.dumps(completion)}))
    return span(
        number,
        "openai.chat.completions.create",
        parent=parent,
        attrs={**CLIENT, "gen_ai.request.tools": json.dumps([json.dumps(TOOLS)])},
        events=events,
    )


def _loop(tool_error: str | None = None) -> Any:
    """``support_workflow`` -> ``support_agent`` -> a request proposing get_weather, the decorated tool, the next
    request consuming its result."""
    second = [*USER, [{"id": "", "type": ""}], {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]
    decorated = [
        span(1, "support_workflow"),
        span(2, "support_agent", parent=1),
        span(4, "get_weather", parent=2, error=tool_error),
    ]
    requests = [
        _request(3, 2, USER, [{"role": "assistant", "content": [CALL]}]),
        _request(5, 2, second, [{"role": "assistant", "content": "It is sunny."}]),
    ]
    return map_scoped_spans([(ROOT_SCOPE, decorated), (OPENAI_SCOPE, requests)])


def test_calls_written_as_an_answer_s_content_are_the_call_s_proposals() -> None:
    trajectory = _loop()
    proposal = get_node(trajectory, node_id(3, "call:call_1"))
    assert (proposal.kind, proposal.tool_name) == (NodeKind.TOOL_PROPOSAL, "get_weather")
    assert has_edge(trajectory, node_id(3, "call:call_1"), EdgeType.CAUSED_BY, node_id(3))


def test_an_answer_s_text_content_stays_text() -> None:
    trajectory = _loop()
    assert not [node for node in trajectory.nodes if node.id.startswith(node_id(5, "call:"))]


def test_a_decorated_function_named_as_a_tool_proposed_beside_it_is_that_tool_s_run() -> None:
    trajectory = _loop()
    tool = get_node(trajectory, node_id(4))
    assert (tool.kind, tool.tool_name) == (NodeKind.TOOL_EXECUTION, "get_weather")
    assert kinds(trajectory).get("tool_execution") == 1


def test_a_decorated_tool_that_raised_is_a_failed_tool_run() -> None:
    trajectory = _loop(tool_error="ValueError: no such city")
    tool = get_node(trajectory, node_id(4))
    assert (tool.kind, tool.status) == (NodeKind.TOOL_EXECUTION, NodeStatus.FAILED)


def test_a_decorated_function_holding_model_requests_is_an_agent_and_its_caller_a_workflow() -> None:
    trajectory = _loop()
    agent = get_node(trajectory, node_id(2))
    assert agent.kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP


def test_a_decorated_function_named_as_no_proposed_tool_stays_a_workflow_step() -> None:
    decorated = [span(1, "support_agent"), span(4, "summarise", parent=1)]
    requests = [_request(3, 1, USER, [{"role": "assistant", "content": [CALL]}])]
    trajectory = map_scoped_spans([(ROOT_SCOPE, decorated), (OPENAI_SCOPE, requests)])
    assert get_node(trajectory, node_id(4)).kind is NodeKind.WORKFLOW_STEP


def test_a_replayed_answer_written_as_empty_calls_is_read_from_the_tool_messages_after_it() -> None:
    # The request's own output unread (a raw response, as CrewAI's OpenAI provider asks for): the call shows only in
    # the next prompt, its assistant message `[{"id": "", "type": ""}]`, the tool message with its id and name.
    second = [
        *USER,
        [{"id": "", "type": ""}],
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "sunny"},
    ]
    requests = [_request(3, 2, USER, None), _request(5, 2, second, None)]
    trajectory = map_scoped_spans([(ROOT_SCOPE, [span(2, "support_agent")]), (OPENAI_SCOPE, requests)])
    proposal = get_node(trajectory, node_id(3, "call:call_1"))
    assert (proposal.kind, proposal.tool_name) == (NodeKind.TOOL_PROPOSAL, "get_weather")


CREWAI = {
    "langtrace.sdk.name": "langtrace-python-sdk",
    "langtrace.service.type": "framework",
    "langtrace.service.name": "CrewAI",
}
CREWAI_SCOPE = "langtrace_python_sdk.instrumentation.crewai.instrumentation"


def test_crewai_s_agent_execution_is_an_agent_and_its_crew_and_task_workflow_steps() -> None:
    crew = [
        span(1, "Crew.kickoff", attrs={**CREWAI, "crewai.crew.id": "c-1", "crewai.crew.name": "crew"}),
        span(2, "Task.execute", parent=1, attrs={**CREWAI, "crewai.task.id": "t-1"}),
        span(3, "Agent.execute_task", parent=2, attrs={**CREWAI, "crewai.agent.role": "support_agent"}),
    ]
    requests = [_request(4, 3, USER, [{"role": "assistant", "content": "It is sunny."}])]
    trajectory = map_scoped_spans([(CREWAI_SCOPE, crew), (OPENAI_SCOPE, requests)])
    agent = get_node(trajectory, node_id(3))
    assert agent.kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
