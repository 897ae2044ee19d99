"""Laminar's spans around other agent shapes (``lmnr`` 0.8.2): its Anthropic client instrumentation's Messages API
content blocks (:mod:`otel_mapper.mapping.readers.laminar`), its LangChain callback handler's runs
(:mod:`otel_mapper.mapping.readers.laminar_langchain`) and an app's own ``@observe`` agent loop
(:mod:`otel_mapper.mapping.observed_agents`)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

SCOPE = "lmnr.tracer"
SYSTEM = {"role": "system", "content": "be helpful"}
USER = {"role": "user", "content": "where is A-1?"}
TOOL_USE = {"id": "toolu_1", "caller": None, "input": {"order_id": "A-1"}, "name": "lookup_order", "type": "tool_use"}
TOOL_RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "shipped"}]}


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _lmnr(number: int, name: str, span_type: str, parent: int | None = None, *, error: str | None = None,
          events: Any = (), **attrs: Any) -> Any:
    values = {"lmnr.span.type": span_type, "lmnr.span.sdk_version": "0.8.2", **attrs}
    return span(number, name, parent=parent, attrs=values, error=error, events=events)


def _anthropic_chat(number: int, parent: int, inputs: list[Any], content: list[Any]) -> Any:
    """``anthropic.chat`` as Laminar's Anthropic instrumentation writes it: the request's messages (system first) and
    the response as one assistant message of its content blocks."""
    return _lmnr(number, "anthropic.chat", "LLM", parent, **{
        "lmnr.span.instrumentation_scope.name": "anthropic", "gen_ai.system": "anthropic",
        "gen_ai.request.model": "claude-haiku-4-5", "gen_ai.input.messages": _dumps(inputs),
        "gen_ai.output.messages": _dumps([{"role": "assistant", "content": content}])})


def _observed_loop() -> list[Any]:
    """An app's ``@observe`` workflow -> ``@observe`` agent -> two model calls and a ``span_type="TOOL"`` function."""
    return [
        _lmnr(1, "support_workflow", "DEFAULT", **{"lmnr.span.input": "{}"}),
        _lmnr(2, "support_agent", "DEFAULT", 1, **{"lmnr.span.input": "{}"}),
        _anthropic_chat(3, 2, [SYSTEM, USER], [TOOL_USE]),
        _lmnr(4, "lookup_order", "TOOL", 2, **{"lmnr.span.input": _dumps({"order_id": "A-1"}),
                                               "lmnr.span.output": _dumps("shipped")}),
        _anthropic_chat(5, 2, [SYSTEM, USER, {"role": "assistant", "content": [TOOL_USE]}, TOOL_RESULT],
                        [{"type": "text", "text": "It shipped.", "citations": None}]),
    ]


def test_anthropic_content_blocks_give_the_proposal_and_the_consumed_result() -> None:
    trajectory = map_spans(_observed_loop(), scope=SCOPE)
    proposal = node_id(3, "call:toolu_1")
    assert get_node(trajectory, proposal).tool_name == "lookup_order"
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, proposal)  # by name and arguments
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))  # its tool_result block of toolu_1


def test_the_observed_function_that_calls_the_model_is_the_agent_and_its_caller_a_step() -> None:
    trajectory = map_spans(_observed_loop(), scope=SCOPE)
    agent, workflow = get_node(trajectory, node_id(2)), get_node(trajectory, node_id(1))
    assert (agent.kind, agent.agent_name) == (NodeKind.AGENT_INVOCATION, "support_agent")
    assert workflow.kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(3)).invocation == node_id(2)


def test_a_handler_run_around_a_model_call_and_an_agents_sdk_turn_stay_steps() -> None:
    trajectory = map_spans([
        _lmnr(1, "pipeline", "DEFAULT"),
        _lmnr(2, "execute_task RunnableSequence", "DEFAULT", 1, **{
            "lmnr.span.instrumentation_scope.name": "langchain", "gen_ai.operation.name": "execute_task"}),
        _anthropic_chat(3, 2, [USER], [{"type": "text", "text": "hi"}]),
        _lmnr(4, "agents.turn", "DEFAULT", 1, **{"openai.agents.turn.index": 1}),
        _lmnr(5, "agents.generation", "LLM", 4, **{"gen_ai.input.messages": _dumps([USER])}),
    ], scope=SCOPE)
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP  # a handler's run: its own reader
    assert get_node(trajectory, node_id(4)).kind is NodeKind.WORKFLOW_STEP  # an Agents SDK turn


def _langchain(number: int, name: str, parent: int | None, span_type: str = "DEFAULT", *,
               metadata: dict[str, Any] | None = None, error: str | None = None, events: Any = (),
               **attrs: Any) -> Any:
    values = {"lmnr.span.instrumentation_scope.name": "langchain", **attrs}
    if metadata is not None:
        values["langchain.metadata"] = _dumps({"ls_integration": "langgraph", **metadata})
    return _lmnr(number, name, span_type, parent, error=error, events=events, **values)


def _node(step: int, node: str, namespace: str) -> dict[str, Any]:
    return {"langgraph_step": step, "langgraph_node": node, "langgraph_checkpoint_ns": namespace}


def _openai_chat(number: int, parent: int, inputs: list[Any], outputs: list[Any]) -> Any:
    return _lmnr(number, "openai.chat", "LLM", parent, **{
        "lmnr.span.instrumentation_scope.name": "openai", "gen_ai.system": "openai",
        "gen_ai.input.messages": _dumps(inputs), "gen_ai.output.messages": _dumps(outputs)})


CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id":"A-1"}'}}


def test_langchain_runs_an_agent_graph_tools_by_call_id_and_control_flow() -> None:
    """A supervisor graph's root (``invoke_agent``, no "agent" in its name: a step), its node run ``triage_agent``
    around the agent's graph run ``triage_agent`` (the agent: it runs nodes of its own graph), the agent's nodes, a
    tool run with its call id, and a handoff's ``ParentCommand`` (no failure)."""
    parent_command = ("exception", {"exception.type": "ParentCommand", "exception.message": "Command(graph='x')"})
    trajectory = map_spans([
        _langchain(1, "LangGraph.workflow", None, **{"gen_ai.operation.name": "invoke_agent",
                                                     "gen_ai.agent.name": "LangGraph"}),
        _langchain(2, "execute_task triage_agent", 1, metadata=_node(1, "triage_agent", "triage_agent:1")),
        _langchain(3, "execute_task triage_agent", 2, metadata=_node(1, "triage_agent", "triage_agent:1")),
        _langchain(4, "execute_task agent", 3, metadata=_node(1, "agent", "triage_agent:1|agent:2")),
        _openai_chat(5, 4, [USER], [{"role": "assistant", "content": None, "tool_calls": [CALL]}]),
        _langchain(6, "execute_task tools", 3, metadata=_node(2, "tools", "triage_agent:1|tools:3"),
                   error="Command(graph='__parent__')", events=[parent_command]),
        _langchain(7, "execute_tool lookup_order", 6, "TOOL", **{
            "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "call_1",
            "lmnr.span.input": _dumps({"order_id": "A-1"})}),
    ], scope=SCOPE)
    kinds = {number: get_node(trajectory, node_id(number)).kind for number in (1, 2, 3, 4)}
    assert kinds == {1: NodeKind.WORKFLOW_STEP, 2: NodeKind.WORKFLOW_STEP, 3: NodeKind.AGENT_INVOCATION,
                     4: NodeKind.WORKFLOW_STEP}
    assert get_node(trajectory, node_id(3)).agent_name == "triage_agent"
    tool = get_node(trajectory, node_id(7))
    assert (tool.tool_name, tool.tool_call_id) == ("lookup_order", "call_1")
    assert has_edge(trajectory, node_id(7), EdgeType.CAUSED_BY, node_id(5, "call:call_1"))
    assert get_node(trajectory, node_id(6)).status is not NodeStatus.FAILED


def test_a_single_agent_graph_root_is_the_agent() -> None:
    trajectory = map_spans([
        _langchain(1, "support_agent.workflow", None, **{"gen_ai.operation.name": "invoke_agent",
                                                         "gen_ai.agent.name": "support_agent"}),
        _langchain(2, "execute_task agent", 1, metadata=_node(1, "agent", "agent:1")),
        _openai_chat(3, 2, [USER], [{"role": "assistant", "content": "hello"}]),
    ], scope=SCOPE)
    root = get_node(trajectory, node_id(1))
    assert (root.kind, root.agent_name) == (NodeKind.AGENT_INVOCATION, "support_agent")
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
