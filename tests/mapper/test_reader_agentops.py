"""AgentOps' spans (:mod:`otel_mapper.mapping.readers.agentops`, :mod:`otel_mapper.mapping.proposal_spans`): the OpenAI
Agents SDK's spans as ``agentops`` 0.4.21 mirrors them under its session span (typed by ``agentops.span.kind`` where it
writes one, every SDK error in attributes on an OK span), beside its OpenAI client spans, whose answers' tool calls are
child spans ``tool_call.<name>``."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

SESSION_SCOPE = "agentops"
MIRROR_SCOPE = "openai-agents"
CLIENT_SCOPE = "openai"
RECORD_SCOPE = "agentops.instrumentation.providers.openai.wrappers.chat"
MIRROR = {"instrumentation.name": "agentops", "instrumentation.version": "0.4.21"}


def _mirror(number: int, name: str, parent: int, *, error: tuple[str, dict[str, Any]] | None = None,
            **attrs: Any) -> Span:
    """An Agents SDK span as AgentOps' exporter writes it: status OK, an SDK error as attributes and an event."""
    values = {**MIRROR, **attrs}
    events: list[tuple[str, dict[str, Any]]] = []
    if error is not None:
        label, data = error
        values.update({"error.type": "AgentError", "error.message": label})
        events.append(("exception", {"exception.type": "Exception", "exception.message": label,
                                     "error.data": json.dumps(data)}))
    return span(number, name, parent=parent, attrs=values, events=events)


def _client(number: int, parent: int, *, error: str | None = None, **attrs: Any) -> Span:
    """AgentOps' ``openai.chat.completion`` span: legacy GenAI names, no tool call among the completion's."""
    values = {"gen_ai.request.type": "chat", "gen_ai.system": "OpenAI", "gen_ai.request.model": "gpt-4o-mini", **attrs}
    return span(number, "openai.chat.completion", parent=parent, attrs=values, error=error)


def _record(number: int, parent: int, call_id: str, name: str, arguments: str) -> Span:
    return span(number, f"tool_call.{name}", parent=parent, attrs={
        "tool.name": name, "tool.parameters": arguments, "tool.call.id": call_id, "tool.call.type": "function"})


def _run(*, tool_error: bool = False, clients: bool = True) -> list[tuple[str, list[Span]]]:
    """Session 1; the SDK trace 2, task 3, agent 4; turn 5 (generation 6, function 7); turn 8 (generation 9); the
    client's spans 10 and 12 under the session, 10 proposing call_1 as its child span 11."""
    mirrors = [
        _mirror(2, "Agent workflow", 1, **{"workflow.name": "Agent workflow", "workflow.step.type": "trace"}),
        _mirror(3, "Agent workflow", 2),
        _mirror(4, "support_agent", 3, **{"agentops.span.kind": "agent", "agent.name": "support_agent",
                                           "agent.tools": '["lookup_order"]', "handoffs": '["billing_agent"]'}),
        _mirror(5, "turn", 4),
        _mirror(6, "generation", 5, **{"agentops.span.kind": "llm", "gen_ai.system": "openai"}),
        _mirror(7, "lookup_order", 5, error=("Error running tool (non-fatal)", {"tool_name": "lookup_order",
                                                                               "error": "failed"}) if tool_error else None,
                **{"agentops.span.kind": "tool", "tool.name": "lookup_order", "tool.parameters": '{"order_id": "A-1"}',
                   "tool.result": "shipped", "tool.status": "succeeded"}),
        _mirror(8, "turn", 4),
        _mirror(9, "generation", 8, **{"agentops.span.kind": "llm", "gen_ai.system": "openai"}),
    ]
    scoped = [(SESSION_SCOPE, [span(1, "default.session", attrs={"agentops.span.kind": "session"})]),
              (MIRROR_SCOPE, mirrors)]
    if clients:
        scoped.append((CLIENT_SCOPE, [
            _client(10, 1, **{"gen_ai.completion.0.finish_reason": "tool_calls", "gen_ai.completion.0.role": "assistant"}),
            _client(12, 1, **{"gen_ai.prompt.0.role": "assistant", "gen_ai.prompt.0.tool_calls.0.id": "call_1",
                              "gen_ai.prompt.0.tool_calls.0.name": "lookup_order",
                              "gen_ai.prompt.1.role": "tool", "gen_ai.prompt.1.tool_call_id": "call_1",
                              "gen_ai.prompt.1.content": "shipped", "gen_ai.completion.0.content": "It shipped."}),
        ]))
        scoped.append((RECORD_SCOPE, [_record(11, 10, "call_1", "lookup_order", '{"order_id": "A-1"}')]))
    return scoped


def test_kinds_come_from_the_agentops_kind_and_the_mirrored_sdk_span() -> None:
    trajectory = map_scoped_spans(_run())
    kinds = {number: get_node(trajectory, node_id(number)).kind for number in (1, 2, 3, 4, 5, 7, 8)}
    assert kinds == {1: NodeKind.WORKFLOW_STEP, 2: NodeKind.WORKFLOW_STEP, 3: NodeKind.WORKFLOW_STEP,
                     4: NodeKind.AGENT_INVOCATION, 5: NodeKind.WORKFLOW_STEP, 7: NodeKind.TOOL_EXECUTION,
                     8: NodeKind.WORKFLOW_STEP}
    agent = get_node(trajectory, node_id(4))
    assert (agent.convention, agent.agent_name, agent.tool_definitions) == (
        "agentops", "support_agent", ("lookup_order", "transfer_to_billing_agent"))
    run = get_node(trajectory, node_id(7))
    assert (run.tool_name, run.tool_call_id, run.arguments, run.result_visible) == (
        "lookup_order", None, '{"order_id":"A-1"}', True)


def test_a_handoff_mirror_runs_the_transfer_tool() -> None:
    scoped = [(MIRROR_SCOPE, [_mirror(2, "Agent workflow", 1), _mirror(3, "handoff", 2, from_agent="triage_agent",
                                                                      to_agent="billing_agent")])]
    handoff = get_node(map_scoped_spans(scoped), node_id(3))
    assert (handoff.kind, handoff.tool_name, handoff.handoff_to) == (
        NodeKind.HANDOFF, "transfer_to_billing_agent", "billing_agent")


def test_an_sdk_error_on_an_ok_mirror_fails_it_with_the_datas_error_text() -> None:
    scoped = [(MIRROR_SCOPE, [
        _mirror(2, "Agent workflow", 1),
        _mirror(3, "support_agent", 2, error=("Error in agent run", {"error": "Error code: 500 - boom"}),
                **{"agentops.span.kind": "agent", "agent.name": "support_agent"}),
        _mirror(4, "turn", 3, error=("Tool not found", {"tool_name": "fetch_invoice"})),
        _mirror(5, "lookup_order", 3, error=("Error running tool (non-fatal)", {"tool_name": "lookup_order"}),
                **{"agentops.span.kind": "tool", "tool.name": "lookup_order"}),
    ])]
    trajectory = map_scoped_spans(scoped)
    agent, turn, run = (get_node(trajectory, node_id(number)) for number in (3, 4, 5))
    assert (agent.error_message, agent.http_status) == ("Error code: 500 - boom", 500)
    assert (turn.error_message, turn.unknown_tools) == ("Tool not found", ("fetch_invoice",))
    assert run.error_message == "Error running tool (non-fatal)"
    assert all(node.status.value == "failed" for node in (agent, turn, run))


def test_a_call_record_span_is_a_proposal_of_the_model_call_above_it() -> None:
    trajectory = map_scoped_spans(_run())
    proposal = node_id(10, "call:call_1")
    assert get_node(trajectory, proposal).tool_name == "lookup_order"
    assert has_edge(trajectory, proposal, EdgeType.CAUSED_BY, node_id(10))
    assert get_node(trajectory, node_id(11)).kind is NodeKind.OTHER
    assert trajectory.node(node_id(11, "call:call_1")) is None
    assert has_edge(trajectory, node_id(7), EdgeType.CAUSED_BY, proposal)  # by tool name and arguments
    assert has_edge(trajectory, node_id(12), EdgeType.DEPENDS_ON, node_id(7))


def test_call_records_under_one_model_call_are_taken_in_call_id_order() -> None:
    records = [_record(13, 10, "call_b", "lookup_order", '{"order_id": "B"}'),
               _record(11, 10, "call_a", "lookup_order", '{"order_id": "A"}')]
    forward = map_scoped_spans([(CLIENT_SCOPE, [_client(10, 1)]), (RECORD_SCOPE, records)])
    backward = map_scoped_spans([(CLIENT_SCOPE, [_client(10, 1)]), (RECORD_SCOPE, records[::-1])])
    ids = [node.id for node in forward.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert ids == [node_id(10, "call:call_a"), node_id(10, "call:call_b")]
    assert forward == backward


def test_generation_mirrors_are_other_when_the_clients_spans_record_every_request() -> None:
    with_clients = map_scoped_spans(_run())
    assert {get_node(with_clients, node_id(n)).kind for n in (6, 9)} == {NodeKind.OTHER}
    assert {node.id for node in with_clients.nodes if node.kind is NodeKind.MODEL_CALL} == {node_id(10), node_id(12)}
    alone = map_scoped_spans(_run(clients=False))
    assert {get_node(alone, node_id(n)).kind for n in (6, 9)} == {NodeKind.MODEL_CALL}


def test_a_failed_generation_mirror_stays_a_model_call_when_no_client_span_failed() -> None:
    scoped = _run()
    mirrors = scoped[1][1]
    mirrors[7] = _mirror(9, "generation", 8, error=("Error getting response", {"error": "Request timed out."}),
                         **{"agentops.span.kind": "llm", "gen_ai.system": "openai"})
    trajectory = map_scoped_spans(scoped)
    failed = get_node(trajectory, node_id(9))
    assert (failed.kind, failed.error_message) == (NodeKind.MODEL_CALL, "Request timed out.")


AGNO_SCOPE = "agentops.instrumentation.agno"


def _agno_team_run(*, tool_error: str | None = None) -> list[tuple[str, list[Span]]]:
    """Session 1; AgentOps' Agno spans: the team's run 2 (``workflow``, the team named), its delegation tool run 3,
    the member agent's run 4 and the member's tool run 5; the team's own request 6 under the team's run."""
    agno = "agno"
    tool_status = {"tool.status": "success", "tool.result": "failure"} if tool_error else {"tool.status": "success"}
    spans = [
        span(2, "triage_agent.agno.team.run.workflow", parent=1, attrs={
            "agentops.span.kind": "workflow", "gen_ai.system": agno, "workflow.type": "team_run",
            "team.name": "triage_agent", "team.members": '[{"name": "billing_agent"}]'}),
        span(3, "agno.tool.execute.tool_usage", parent=2, attrs={
            "agentops.span.kind": "tool", "gen_ai.system": agno, "tool.name": "delegate_task_to_member",
            "tool.parameters": '{"member_id": "billing_agent"}', "tool.status": "success"}),
        span(4, "billing_agent.agno.agent.run.agent", parent=2, attrs={
            "agentops.span.kind": "agent", "gen_ai.system": agno, "agent.name": "billing_agent",
            "agent.tools": '["lookup_order"]'}),
        span(5, "agno.tool.execute.tool_usage", parent=4, attrs={
            "agentops.span.kind": "tool", "gen_ai.system": agno, "tool.name": "lookup_order",
            "tool.parameters": '{"order_id": "A-1"}', **tool_status,
            **({"tool.error": tool_error} if tool_error else {})}),
    ]
    return [(SESSION_SCOPE, [span(1, "default.session", attrs={"agentops.span.kind": "session"})]),
            (AGNO_SCOPE, spans), (CLIENT_SCOPE, [_client(6, 2)])]


def test_a_workflow_span_naming_a_team_is_the_leaders_agent_invocation() -> None:
    trajectory = map_scoped_spans(_agno_team_run())
    team, member = get_node(trajectory, node_id(2)), get_node(trajectory, node_id(4))
    assert (team.kind, team.agent_name) == (NodeKind.AGENT_INVOCATION, "triage_agent")
    assert (member.kind, member.agent_name) == (NodeKind.AGENT_INVOCATION, "billing_agent")
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    # A workflow span naming no team stays a step.
    plain = map_scoped_spans([(AGNO_SCOPE, [span(2, "agno.workflow.run.workflow", attrs={
        "agentops.span.kind": "workflow", "workflow.type": "agno_workflow"})])])
    assert get_node(plain, node_id(2)).kind is NodeKind.WORKFLOW_STEP


def test_a_tool_span_ending_ok_with_an_error_text_is_a_failed_run() -> None:
    trajectory = map_scoped_spans(_agno_team_run(tool_error="order 'A-1' not found"))
    run = get_node(trajectory, node_id(5))
    assert (run.kind, run.status.value, run.error_message) == (
        NodeKind.TOOL_EXECUTION, "failed", "order 'A-1' not found")
    ok = get_node(map_scoped_spans(_agno_team_run()), node_id(5))
    assert (ok.status.value, ok.error_message) == ("committed", None)


CREWAI_SCOPE = "crewai"
"""Its CrewAI instrumentation's scope: the library's name (with the instrumentation's version, 0.36.0)."""


def _crew_run() -> list[tuple[str, list[Span]]]:
    """Session 1; AgentOps' CrewAI spans: the crew's kickoff 2 (``workflow``), the task 3 (``workflow.step``), the
    agent 4 (``agent``, its tools as objects); the client's request 5 under the agent, proposing call_1 as span 6."""
    crewai = "crewai"
    spans = [
        span(2, "crewai.workflow", parent=1, attrs={
            "agentops.span.kind": "workflow", "gen_ai.system": crewai, "crewai.crew.type": "crewai.crew"}),
        span(3, "Look up order A-1..task", parent=2, attrs={
            "agentops.span.kind": "workflow.step", "gen_ai.system": crewai, "crewai.task.type": "task"}),
        span(4, "support_agent.agent", parent=3, attrs={
            "agentops.span.kind": "agent", "gen_ai.system": crewai, "agent.role": "support_agent",
            "agent.tools": json.dumps([{"name": "lookup_order", "description": "Look up an order."},
                                       {"name": "search_docs", "description": "Search the docs."}])}),
    ]
    return [(SESSION_SCOPE, [span(1, "default.session", attrs={"agentops.span.kind": "session"})]),
            (CREWAI_SCOPE, spans), (CLIENT_SCOPE, [_client(5, 4)]),
            (RECORD_SCOPE, [_record(6, 5, "call_1", "lookup_order", '{"order_id": "A-1"}')])]


def test_a_workflow_step_span_is_a_workflow_step() -> None:
    trajectory = map_scoped_spans(_crew_run())
    assert [get_node(trajectory, node_id(n)).kind for n in (1, 2, 3, 4)] == [
        NodeKind.WORKFLOW_STEP, NodeKind.WORKFLOW_STEP, NodeKind.WORKFLOW_STEP, NodeKind.AGENT_INVOCATION]


def test_an_agents_tools_written_as_objects_are_its_tool_definitions() -> None:
    agent = get_node(map_scoped_spans(_crew_run()), node_id(4))
    assert agent.tool_definitions == ("lookup_order", "search_docs")
    # Objects without a name, and items of no known shape, name nothing: what was offered is unknown, not nothing
    # (no tool a model proposes is then judged undeclared); an empty list offers none.
    scoped = _crew_run()
    scoped[1][1][2].attributes[-1].value.string_value = json.dumps([{"description": "x"}, 7, {"name": ""}])
    assert get_node(map_scoped_spans(scoped), node_id(4)).tool_definitions is None
    scoped[1][1][2].attributes[-1].value.string_value = "[]"
    assert get_node(map_scoped_spans(scoped), node_id(4)).tool_definitions == ()
