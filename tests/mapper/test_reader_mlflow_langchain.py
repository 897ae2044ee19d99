"""MLflow Tracing spans of LangChain runs (:mod:`otel_mapper.mapping.readers.mlflow_langchain`): the run's metadata
(LangGraph's among it) and the tool run's call id, written by ``mlflow.langchain.autolog()``'s tracer as JSON text."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}}
MESSAGES = [{"role": "system", "content": "be helpful"}, {"role": "user", "content": "where is A-1?"}]
GRAPH = {"ls_integration": "langgraph"}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _node(node: str, step: int, namespace: str = "") -> dict[str, Any]:
    """LangGraph's run metadata of a run inside node ``node``."""
    return {**GRAPH, "langgraph_step": step, "langgraph_node": node,
            "langgraph_checkpoint_ns": f"{namespace}{node}:0a1b"}


def _chain(number: int, name: str, parent: int | None, metadata: dict[str, Any], **extra: Any) -> Any:
    return span(number, name, parent=parent, attrs=_mlflow("CHAIN", metadata=metadata), **extra)


def _react_agent(first: int, parent: int, namespace: str = "") -> list[Any]:
    """A prebuilt ReAct agent's graph body: its model node (named ``agent``) with the chat model, its tools node."""
    return [
        _chain(first, "agent", parent, _node("agent", 1, namespace)),
        span(first + 1, "ChatOpenAI", parent=first, attrs=_mlflow("CHAT_MODEL", **{
            "mlflow.message.format": "langchain", "mlflow.spanInputs": {"messages": MESSAGES},
            "mlflow.spanOutputs": {"choices": [{"message": {"role": "assistant", "content": None,
                                                             "tool_calls": [CALL]}}]},
            "metadata": {**_node("agent", 1, namespace), "ls_integration": "langchain_chat_model"}})),
        _chain(first + 2, "tools", parent, _node("tools", 2, namespace)),
        span(first + 3, "lookup_order", parent=first + 2, attrs=_mlflow("TOOL", **{
            "mlflow.spanInputs": {"order_id": "A-1"}, "mlflow.spanOutputs": "shipped", "tool_call_id": "call_1",
            "metadata": _node("tools", 2, namespace)})),
    ]


def test_the_run_of_an_agent_s_graph_is_its_invocation_and_its_model_node_a_step() -> None:
    trajectory = map_spans([_chain(1, "support_agent", None, GRAPH), *_react_agent(2, 1)])
    agent = get_node(trajectory, node_id(1))
    assert (agent.kind, agent.agent_name) == (NodeKind.AGENT_INVOCATION, "support_agent")
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP  # the node named "agent"
    assert get_node(trajectory, node_id(5)).invocation == node_id(1)


def test_a_chain_named_agent_outside_a_langgraph_graph_stays_a_step() -> None:
    trajectory = map_spans([span(1, "Agent workflow", attrs=_mlflow("CHAIN", metadata={"user": "u"})),
                            span(2, "Agent workflow", parent=1, attrs=_mlflow("CHAIN"))])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP


def test_a_supervisor_s_node_run_is_a_step_and_the_agent_graph_inside_it_the_invocation() -> None:
    """The supervisor graph runs each agent as a node named after it, around the agent graph's own run."""
    trajectory = map_spans([
        _chain(1, "LangGraph", None, GRAPH),
        _chain(2, "billing_agent", 1, _node("billing_agent", 1)),
        _chain(3, "billing_agent", 2, _node("billing_agent", 1)),
        *_react_agent(4, 3, namespace="billing_agent:0a1b|"),
    ])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(3)).kind is NodeKind.AGENT_INVOCATION


def test_the_tool_run_s_call_id_joins_it_to_the_model_s_proposal() -> None:
    trajectory = map_spans([_chain(1, "support_agent", None, GRAPH), *_react_agent(2, 1)])
    tool = get_node(trajectory, node_id(5))
    assert (tool.kind, tool.tool_call_id) == (NodeKind.TOOL_EXECUTION, "call_1")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_a_tool_whose_metadata_names_a_handoff_destination_is_the_handoff() -> None:
    metadata = {**_node("tools", 2), "__handoff_destination": "billing_agent"}
    trajectory = map_spans([span(1, "transfer_to_billing_agent", attrs=_mlflow("TOOL", **{
        "mlflow.spanInputs": {}, "tool_call_id": "call_h", "metadata": metadata}))])
    handoff = get_node(trajectory, node_id(1))
    assert (handoff.kind, handoff.handoff_to) == (NodeKind.HANDOFF, "billing_agent")


def test_a_run_langgraph_ended_with_a_routing_exception_did_not_fail() -> None:
    exception = ("exception", {"exception.type": "ParentCommand", "exception.message": "Command(graph='__parent__')"})
    trajectory = map_spans([
        _chain(1, "tools", None, _node("tools", 2), error="Command(graph='__parent__')", events=[exception]),
        _chain(2, "tools", None, _node("tools", 2), error="ValueError('boom')",
               events=[("exception", {"exception.type": "ValueError", "exception.message": "boom"})]),
    ])
    assert get_node(trajectory, node_id(1)).status is not NodeStatus.FAILED
    assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED
