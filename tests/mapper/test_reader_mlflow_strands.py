"""Strands Agents' own spans under MLflow's Strands autolog, shaped as ``mlflow-tracing`` 3.18.0 writes them
(``corpus/NOTES-frameworks-cq.md``): Strands' GenAI spans (``gen_ai.operation.name``, messages in span events, the tool
call's id on the tool span) with MLflow's keys written in as each ended: ``mlflow.spanType`` from the operation
(``invoke_*`` AGENT, the swarm's ``invoke_swarm`` too; ``execute_tool`` TOOL; ``chat`` CHAT_MODEL; else JSON ``null``),
``mlflow.spanInputs`` the user and tool messages only, ``mlflow.spanOutputs`` the choice's content blocks. Such a span is
read by its own convention (the GenAI reader), not by MLflow's keys."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

USE = {"toolUse": {"toolUseId": "call_1", "name": "get_weather", "input": {"city": "Paris"}}}
RESULT = {"toolResult": {"toolUseId": "call_1", "status": "success", "content": [{"text": "Paris: sunny"}]}}
USER = [{"text": "Weather in Paris?"}]


def _mlflow(span_type: str | None, **attrs: Any) -> dict[str, str]:
    """MLflow's keys as its Strands processor writes them: every value JSON text."""
    return {"mlflow.traceRequestId": json.dumps("tr-1"), "mlflow.spanType": json.dumps(span_type),
            **{key: json.dumps(value) for key, value in attrs.items()}}


def _strands(operation: str, **attrs: Any) -> dict[str, Any]:
    return {"gen_ai.operation.name": operation, "gen_ai.system": "strands-agents", **attrs}


def _chat(number: int, parent: int, replay: bool, answer: list[Any]) -> Any:
    events: list[tuple[str, dict[str, Any]]] = [("gen_ai.user.message", {"content": json.dumps(USER)})]
    inputs: list[Any] = [{"role": "user", "content": USER}]
    if replay:
        events += [("gen_ai.assistant.message", {"content": json.dumps([USE])}),
                   ("gen_ai.tool.message", {"content": json.dumps([RESULT])})]
        inputs.append({"role": "tool", "content": [RESULT]})
    events.append(("gen_ai.choice", {"finish_reason": "tool_use" if not replay else "end_turn",
                                     "message": json.dumps(answer)}))
    attrs = {**_strands("chat", **{"gen_ai.request.model": "gpt-4o-mini"}),
             **_mlflow("CHAT_MODEL", **{"mlflow.spanInputs": inputs, "mlflow.spanOutputs": answer,
                                        "mlflow.llm.model": "gpt-4o-mini"})}
    return span(number, "chat", parent=parent, attrs=attrs, events=events)


def _tool(number: int, parent: int) -> Any:
    attrs = {**_strands("execute_tool", **{"gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1",
                                           "gen_ai.tool.status": "success"}),
             **_mlflow("TOOL", **{"mlflow.spanInputs": {"city": "Paris"},
                                  "mlflow.spanOutputs": [{"text": "Paris: sunny"}]})}
    events = [("gen_ai.tool.message", {"role": "tool", "content": json.dumps({"city": "Paris"}), "id": "call_1"}),
              ("gen_ai.choice", {"message": json.dumps([{"text": "Paris: sunny"}]), "id": "call_1"})]
    return span(number, "execute_tool get_weather", parent=parent, attrs=attrs, events=events)


def _run(top: Any) -> list[Any]:
    """A swarm (or nothing) around one agent: two event-loop cycles, a call proposed, run, and consumed."""
    parent = 2 if top is not None else None
    spans = [] if top is None else [top]
    spans += [
        span(2, "invoke_agent support_agent", parent=1 if top is not None else None, attrs={
            **_strands("invoke_agent", **{"gen_ai.agent.name": "support_agent"}),
            **_mlflow("AGENT", **{"mlflow.spanInputs": [{"role": "user", "content": USER}]})}),
        span(3, "execute_event_loop_cycle", parent=parent or 2, attrs={**_strands("execute_event_loop_cycle"),
                                                                         **_mlflow(None)}),
        _chat(4, 3, False, [USE]),
        _tool(5, 3),
        span(6, "execute_event_loop_cycle", parent=2, attrs={**_strands("execute_event_loop_cycle"),
                                                             **_mlflow(None)}),
        _chat(7, 6, True, [{"text": "Sunny in Paris."}]),
    ]
    return spans


def test_a_strands_chat_span_typed_by_mlflow_proposes_the_call_its_events_hold() -> None:
    trajectory = map_spans(_run(None))
    chat = get_node(trajectory, node_id(4))
    assert chat.kind is NodeKind.MODEL_CALL and chat.convention != "mlflow"
    assert get_node(trajectory, node_id(4, "call:call_1")).kind is NodeKind.TOOL_PROPOSAL


def test_the_tool_span_is_the_named_tool_with_its_call_id_caused_by_the_proposal() -> None:
    trajectory = map_spans(_run(None))
    tool = get_node(trajectory, node_id(5))
    assert tool.kind is NodeKind.TOOL_EXECUTION
    assert (tool.tool_name, tool.tool_call_id) == ("get_weather", "call_1")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(4, "call:call_1"))


def test_the_next_chat_span_depends_on_the_tool_run_through_the_replayed_result() -> None:
    trajectory = map_spans(_run(None))
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(5))


def test_a_swarm_span_typed_agent_by_mlflow_is_the_swarm_s_step_not_a_third_agent() -> None:
    swarm = span(1, "invoke_swarm", attrs={**_strands("invoke_swarm"), **_mlflow("AGENT")})
    billing = [
        span(8, "invoke_agent billing_agent", parent=1, attrs={
            **_strands("invoke_agent", **{"gen_ai.agent.name": "billing_agent"}), **_mlflow("AGENT")}),
        span(9, "execute_event_loop_cycle", parent=8, attrs={**_strands("execute_event_loop_cycle"), **_mlflow(None)}),
        _chat(10, 9, False, [{"text": "Refunded."}]),
    ]
    trajectory = map_spans(_run(swarm) + billing)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert kinds(trajectory)["agent_invocation"] == 2


def test_a_typed_mlflow_span_without_a_genai_operation_stays_mlflow_s() -> None:
    """Guard: MLflow's own span is read by MLflow's keys even beside another GenAI attribute."""
    attrs = {"gen_ai.request.model": "gpt-4o-mini", **_mlflow("TOOL", **{"mlflow.spanInputs": {"city": "Paris"}})}
    trajectory = map_spans([span(1, "get_weather", attrs=attrs)])
    node = get_node(trajectory, node_id(1))
    assert node.kind is NodeKind.TOOL_EXECUTION and node.convention == "mlflow"
