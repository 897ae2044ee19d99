"""Agno under OpenLLMetry (``opentelemetry-instrumentation-agno`` 0.62.4): a team's run is an agent invocation, a
tool run Agno caught an exception of is failed although its span is OK, and Agno's answer to a call of a tool that
does not exist is a rejection (:mod:`otel_mapper.mapping.readers.openllmetry_agno`)."""

from __future__ import annotations

import json

from otel_mapper.mapping.tool_names import rejection
from semconv.trajectory import NodeKind, NodeStatus
from tests.support.spans import get_node, map_spans, node_id, span

SCOPE = "opentelemetry.instrumentation.agno"


def _team() -> object:
    return span(1, "triage_agent.team", attrs={
        "gen_ai.system": "agno", "traceloop.span.kind": "workflow", "agno.team.name": "triage_agent",
        "traceloop.entity.input": "I want a refund."})


def _tool(number: int, output: str) -> object:
    return span(number, "lookup_order.tool", parent=1, attrs={
        "gen_ai.system": "agno", "traceloop.span.kind": "tool", "traceloop.entity.name": "lookup_order",
        "gen_ai.tool.name": "lookup_order", "traceloop.entity.input": json.dumps({"order_id": "A-1"}),
        "traceloop.entity.output": output})


def test_a_team_run_is_an_agent_invocation_named_after_the_team() -> None:
    team = get_node(map_spans([_team()], scope=SCOPE), node_id(1))
    assert (team.kind, team.agent_name) == (NodeKind.AGENT_INVOCATION, "triage_agent")


def test_a_workflow_span_without_a_team_stays_a_step() -> None:
    step = span(1, "pipeline.workflow", attrs={"gen_ai.system": "agno", "traceloop.span.kind": "workflow"})
    assert get_node(map_spans([step], scope=SCOPE), node_id(1)).kind is NodeKind.WORKFLOW_STEP


def test_a_failure_result_fails_the_tool_run_with_its_error() -> None:
    failed = _tool(2, "status='failure' result=None error=\"order 'A-1' not found\" updated_session_state=None")
    done = _tool(3, "status='success' result='{\"order_id\": \"A-1\"}' error=None updated_session_state=None")
    trajectory = map_spans([_team(), failed, done], scope=SCOPE)
    node = get_node(trajectory, node_id(2))
    assert node.status is NodeStatus.FAILED and node.error_message == "order 'A-1' not found"
    assert get_node(trajectory, node_id(3)).status is NodeStatus.COMMITTED


def test_the_failure_text_outside_agno_is_an_ordinary_result() -> None:
    failed = _tool(2, "status='failure' result=None error=\"order 'A-1' not found\"")
    assert get_node(map_spans([_team(), failed], scope="tests"), node_id(2)).status is NodeStatus.COMMITTED


def test_agnos_answer_to_a_tool_that_does_not_exist_is_a_rejection() -> None:
    assert rejection("Error: The requested tool does not exist or is not available.") == (True, None)
    assert rejection("The requested tool does not exist in our catalogue, see the docs.") == (False, None)
