"""Agno under OpenLIT (``openlit`` 1.45): a team's ``invoke_workflow`` run is the leader's agent invocation
(:mod:`otel_mapper.mapping.readers.openlit_agno`), and an agent run whose recorded answer is the error of a call that
failed under it ended in that failure (:mod:`otel_mapper.mapping.failed_answers`)."""

from __future__ import annotations

import json

from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from semconv.trajectory import NodeKind, NodeStatus, TerminalStatus
from tests.detectors.support import config
from tests.support.spans import get_node, map_spans, node_id, span

SCOPE = "openlit.instrumentation.agno"
TIMEOUT_ERROR = "APITimeoutError: Request timed out."


def _answer(text: str) -> str:
    return json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])


def _agent(answer: str | None) -> object:
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "agno",
             "gen_ai.agent.name": "support_agent", "gen_ai.usage.input_tokens": 117}
    if answer is not None:
        attrs["gen_ai.output.messages"] = answer
    return span(1, "invoke_agent support_agent", attrs=attrs)


def _chat(number: int, *, error: str | None = None, call: str | None = None) -> object:
    attrs: dict[str, object] = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                                "gen_ai.request.model": "gpt-4o-mini"}
    if call is not None:
        attrs["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": [
            {"type": "tool_call", "id": call, "name": "lookup_order", "arguments": {"order_id": "B-2"}}]}])
    if error is not None:
        attrs["error.type"] = error.partition(":")[0]
    return span(number, "chat gpt-4o-mini", parent=1, attrs=attrs, error=error)


def _tool(number: int, call: str) -> object:
    return span(number, "execute_tool lookup_order", parent=1, attrs={
        "gen_ai.operation.name": "execute_tool", "gen_ai.provider.name": "agno", "gen_ai.tool.name": "lookup_order",
        "gen_ai.tool.call.id": call, "gen_ai.tool.call.arguments": json.dumps({"order_id": "B-2"}),
        "gen_ai.tool.call.result": "{\"status\": \"processing\"}"})


def _run(answer: str | None) -> list[object]:
    return [_agent(answer), _chat(2, call="call_1"), _tool(3, "call_1"), _chat(4, error=TIMEOUT_ERROR)]


def test_a_team_run_is_an_agent_invocation_named_after_the_team() -> None:
    team = span(1, "invoke_workflow triage_agent", attrs={
        "gen_ai.operation.name": "invoke_workflow", "gen_ai.provider.name": "agno",
        "gen_ai.workflow.name": "triage_agent", "gen_ai.agno.team.agents": json.dumps(["billing_agent"])})
    node = get_node(map_spans([team], scope=SCOPE), node_id(1))
    assert (node.kind, node.agent_name) == (NodeKind.AGENT_INVOCATION, "triage_agent")


def test_a_workflow_run_without_team_members_stays_a_step() -> None:
    flow = span(1, "invoke_workflow refunds", attrs={
        "gen_ai.operation.name": "invoke_workflow", "gen_ai.provider.name": "agno", "gen_ai.workflow.name": "refunds"})
    node = get_node(map_spans([flow], scope=SCOPE), node_id(1))
    assert (node.kind, node.agent_name) == (NodeKind.WORKFLOW_STEP, None)


def test_an_agent_run_that_answered_with_a_failures_message_ended_in_it() -> None:
    trajectory = map_spans(_run(_answer("Request timed out.")), scope=SCOPE)
    agent = get_node(trajectory, node_id(1))
    assert agent.status is NodeStatus.FAILED
    assert (agent.error_type, agent.error_message) == ("APITimeoutError", "Request timed out.")

    diagnosis = DetectorChain(load_detectors(config()), config()).run(trajectory)
    assert diagnosis.terminal_status is TerminalStatus.INFRA_TIMEOUT


def test_an_answer_of_its_own_or_a_short_one_leaves_the_run_committed() -> None:
    for answer in (_answer("The order could not be read: Request timed out."), _answer("timed"), None,
                   json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Request timed out."},
                                                               {"type": "tool_call", "id": "c", "name": "x"}]}])):
        trajectory = map_spans(_run(answer), scope=SCOPE)
        assert get_node(trajectory, node_id(1)).status is NodeStatus.COMMITTED
        diagnosis = DetectorChain(load_detectors(config()), config()).run(trajectory)
        assert diagnosis.terminal_status is TerminalStatus.SUCCESS


def test_a_failure_outside_the_agent_run_does_not_end_it() -> None:
    elsewhere = span(5, "invoke_workflow other", attrs={"gen_ai.operation.name": "invoke_workflow",
                                                        "gen_ai.workflow.name": "other"})
    failed = span(6, "chat gpt-4o-mini", parent=5, error=TIMEOUT_ERROR, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"})
    trajectory = map_spans([_agent(_answer("Request timed out.")), elsewhere, failed], scope=SCOPE)
    assert get_node(trajectory, node_id(1)).status is NodeStatus.COMMITTED


def test_an_answer_a_model_call_gave_is_the_models_though_it_repeats_an_error() -> None:
    failed_tool = span(3, "execute_tool lookup_order", parent=1, error="order 'B-2' not found", attrs={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "call_1"})
    answer = _answer("order 'B-2' not found")
    final = span(4, "chat gpt-4o-mini", parent=1, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.output.messages": answer})
    trajectory = map_spans([_agent(answer), _chat(2, call="call_1"), failed_tool, final], scope=SCOPE)
    assert get_node(trajectory, node_id(3)).status is NodeStatus.FAILED
    assert get_node(trajectory, node_id(1)).status is NodeStatus.COMMITTED
