"""OpenLIT's CrewAI spans (:mod:`otel_mapper.mapping.readers.openlit_crewai`, :mod:`otel_mapper.mapping.openlit_crews`)
and how the hallucinated-tool check reads an agent's own tool list around CrewAI's delegation
(:mod:`processor.detectors.hallucinated_tool`). Shapes as ``openlit`` 1.45 records CrewAI 1.15
(``corpus/NOTES-frameworks-u.md``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.model import Trajectory
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from semconv import openlit
from semconv.trajectory import FindingCategory, NodeKind
from tests.support.spans import envelopes, get_node, node_id, span

CREWAI = {"gen_ai.provider.name": "crewai", "gen_ai.request.model": "gpt-4o-mini"}
USER = {"role": "user", "parts": [{"type": "text", "content": "Refund order A-1001."}]}
FLOW_METHODS = ("generate_plan", "call_llm_native_tools", "execute_native_tool", "finalize")


def _map(crewai: Sequence[Span], openai: Sequence[Span], *, crewai_scope: str = openlit.CREWAI_SCOPE) -> Trajectory:
    items = envelopes(crewai, scope=crewai_scope) + envelopes(openai, scope="openlit.instrumentation.openai")
    return map_trace(items).trajectory


def _task(role: str, tools: Sequence[str]) -> dict[str, Any]:
    definitions = [{"type": "function", "name": name, "description": name} for name in tools]
    return {**CREWAI, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": role, "gen_ai.agent.id": f"id-{role}",
            "gen_ai.tool.definitions": json.dumps(definitions)}


def _flow(name: str) -> dict[str, Any]:
    return {**CREWAI, "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": name}


def _method() -> dict[str, Any]:
    """A flow method's span: no agent name (OpenLIT reads it before the method runs), no children."""
    text = [{"type": "text", "content": "<coroutine object Flow._execute_method at 0x7f00>"}]
    return {**CREWAI, "gen_ai.operation.name": "invoke_agent",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": text}])}


def _chat(response_id: str, calls: Sequence[tuple[str, str, dict[str, str]]]) -> dict[str, Any]:
    parts = [{"type": "tool_call", "id": call_id, "name": name, "arguments": args} for call_id, name, args in calls]
    output = [{"role": "assistant", "parts": parts or [{"type": "text", "content": "Done."}]}]
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.id": response_id, "gen_ai.input.messages": json.dumps([USER]),
            "gen_ai.output.messages": json.dumps(output)}


def _crew_run() -> tuple[list[Span], list[Span]]:
    """Crew 1 -> task 2 (the agent) -> executor flow 3 -> flow methods 10.. and chats 4, 5 (OpenAI instrumentation)."""
    crewai = [span(1, "invoke_workflow crew", attrs=_flow("crew")),
              span(2, "invoke_agent support_agent", parent=1, attrs=_task("support_agent", ["get_weather"])),
              span(3, "invoke_workflow AgentExecutor", parent=2, attrs=_flow("AgentExecutor"))]
    crewai += [span(10 + n, f"invoke_agent {name}", parent=3, attrs=_method()) for n, name in enumerate(FLOW_METHODS)]
    openai = [span(4, "chat gpt-4o-mini", parent=3, attrs=_chat("resp-1", [("call_1", "get_weather", {"city": "Paris"})])),
              span(5, "chat gpt-4o-mini", parent=3, attrs=_chat("resp-2", []))]
    return crewai, openai


def _kinds(trajectory: Trajectory) -> dict[str, NodeKind]:
    return {node.id: node.kind for node in trajectory.nodes}


def test_flow_methods_are_steps_and_the_task_s_agent_is_the_one_agent() -> None:
    trajectory = _map(*_crew_run())
    kinds = _kinds(trajectory)
    assert [node for node, kind in kinds.items() if kind is NodeKind.AGENT_INVOCATION] == [node_id(2)]
    for method in range(10, 10 + len(FLOW_METHODS)):
        assert kinds[node_id(method)] is NodeKind.WORKFLOW_STEP
        assert get_node(trajectory, node_id(method)).agent_name is None
    assert kinds[node_id(1)] is NodeKind.WORKFLOW_STEP and kinds[node_id(3)] is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(4)).invocation == node_id(2)


def test_the_same_spans_of_another_scope_are_read_as_they_say() -> None:
    trajectory = _map(*_crew_run(), crewai_scope="another.instrumentation")
    assert get_node(trajectory, node_id(10)).kind is NodeKind.AGENT_INVOCATION


def test_failed_calls_are_read_from_their_span_names() -> None:
    """OpenLIT writes a CrewAI span's attributes when the call returns: a call that raised leaves only the name,
    the status and ``error.type``."""
    raised = {"error.type": "InternalServerError"}
    crewai = [span(1, "invoke_workflow crew", attrs=raised, error="InternalServerError: Error code: 500"),
              span(2, "invoke_agent support_agent", parent=1, attrs=raised, error="InternalServerError: Error code: 500"),
              span(3, "invoke_workflow AgentExecutor", parent=2, attrs=raised, error="InternalServerError: Error code: 500"),
              span(6, "execute_tool Delegate work to coworker", parent=3, attrs={"error.type": "ValueError"}, error="bad"),
              span(7, "create_agent support_agent", attrs={"error.type": "ValueError"}, error="bad")]
    openai = [span(4, "chat gpt-4o-mini", parent=3, attrs={**_chat("resp-1", []), "error.type": "InternalServerError"},
                   error="Error code: 500")]
    trajectory = _map(crewai, openai)
    agent = get_node(trajectory, node_id(2))
    assert agent.kind is NodeKind.AGENT_INVOCATION and agent.agent_name == "support_agent"
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(3)).kind is NodeKind.WORKFLOW_STEP
    tool = get_node(trajectory, node_id(6))
    assert tool.kind is NodeKind.TOOL_EXECUTION and tool.tool_name == "Delegate work to coworker"
    assert get_node(trajectory, node_id(7)).kind is NodeKind.OTHER  # builds an agent, runs nothing


def _delegation(triage_calls: Sequence[tuple[str, str, dict[str, str]]]) -> tuple[list[Span], list[Span]]:
    """Triage's task 2 lists only its own tool; its model call 4 proposes CrewAI's delegation, run as tool 6, inside
    which the coworker's executor flow 7 and model call 8 run (no agent span of the coworker's own). The chats carry
    no tool definitions."""
    arguments = {"task": "Refund A-1001", "context": "The customer asked.", "coworker": "billing_agent"}
    delegate = {**CREWAI, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Delegate work to coworker",
                "gen_ai.tool.call.arguments": json.dumps(arguments), "gen_ai.tool.call.result": "Refund opened."}
    crewai = [span(1, "invoke_workflow crew", attrs=_flow("crew")),
              span(2, "invoke_agent triage_agent", parent=1, attrs=_task("triage_agent", ["search_docs"])),
              span(3, "invoke_workflow AgentExecutor", parent=2, attrs=_flow("AgentExecutor")),
              span(6, "execute_tool Delegate work to coworker", parent=3, attrs=delegate),
              span(7, "invoke_workflow AgentExecutor", parent=6, attrs=_flow("AgentExecutor"))]
    calls = [("call_1", "delegate_work_to_coworker", arguments), *triage_calls]
    openai = [span(4, "chat gpt-4o-mini", parent=3, attrs=_chat("resp-1", calls)),
              span(8, "chat gpt-4o-mini", parent=7, attrs=_chat("resp-2", [("call_2", "lookup_order", {"order_id": "A-1001"})]))]
    return crewai, openai


def _hallucinated(trajectory: Trajectory) -> list[str]:
    config = Config()
    diagnosis = DetectorChain(load_detectors(config.detectors), config.detectors).run(trajectory)
    return [item.finding.node_id for item in diagnosis.chain if item.finding.category is FindingCategory.HALLUCINATED_TOOL]


def test_delegation_and_the_coworker_s_calls_are_not_judged_by_the_delegating_agent_s_list() -> None:
    trajectory = _map(*_delegation([]))
    assert get_node(trajectory, node_id(8)).invocation == node_id(2)  # the coworker has no agent span of its own
    assert _hallucinated(trajectory) == []


def test_the_delegating_agent_s_own_calls_are_still_judged_by_its_list() -> None:
    trajectory = _map(*_delegation([("call_3", "fetch_invoice", {"invoice": "I-1"})]))
    assert _hallucinated(trajectory) == [node_id(4, "call:call_3")]
