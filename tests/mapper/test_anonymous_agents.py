"""Agent invocations that name no agent, around or inside a named one, are steps of its run
(:mod:`otel_mapper.mapping.anonymous_agents`); OpenLIT's handoff span is a handoff; a proposal that ran as a
handoff is no unknown tool."""

from __future__ import annotations

import json
from typing import Any

from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from semconv.trajectory import NodeKind, VerifierStatus
from tests.support.spans import get_node, map_spans, node_id, span

WORKFLOW = {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "Agent workflow"}
NAMELESS = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai"}
SUPPORT = {**NAMELESS, "gen_ai.agent.name": "support_agent",
           "gen_ai.tool.definitions": json.dumps([{"type": "function", "name": "get_weather"}])}


def _chat(call_id: str, tool: str) -> dict[str, Any]:
    return {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "tool_call", "id": call_id, "name": tool, "arguments": {"city": "Oslo"}}]}])}


def _tool(call_id: str, tool: str) -> dict[str, Any]:
    return {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "gen_ai.tool.call.id": call_id}


def _openlit_run(turns: int) -> list[Any]:
    """Workflow -> nameless task -> named agent -> one nameless turn per model call, as OpenLIT records the OpenAI
    Agents SDK."""
    spans = [span(1, "invoke_workflow Agent workflow", attrs=WORKFLOW),
             span(2, "invoke_agent", parent=1, attrs=NAMELESS),
             span(3, "invoke_agent support_agent", parent=2, attrs=SUPPORT)]
    for turn in range(turns):
        base = 10 + 10 * turn
        spans += [span(base, "invoke_agent", parent=3, attrs=NAMELESS),
                  span(base + 1, "chat gpt-4o-mini", parent=base, attrs=_chat(f"call_{turn}", "get_weather")),
                  span(base + 2, "execute_tool get_weather", parent=base, attrs=_tool(f"call_{turn}", "get_weather"))]
    return spans


def test_nameless_invocations_around_and_inside_a_named_agent_are_its_steps() -> None:
    trajectory = map_spans(_openlit_run(turns=2))
    assert get_node(trajectory, node_id(3)).kind is NodeKind.AGENT_INVOCATION
    for task_or_turn in (2, 10, 20):
        assert get_node(trajectory, node_id(task_or_turn)).kind is NodeKind.WORKFLOW_STEP
    for tool in (12, 22):  # every turn's tool runs in the named agent's invocation
        assert get_node(trajectory, node_id(tool)).invocation == node_id(3)


def test_a_loop_over_turns_is_one_agent_s_loop() -> None:
    trajectory = map_spans(_openlit_run(turns=4))
    config = Config()
    diagnosis = DetectorChain(load_detectors(config.detectors), config.detectors).run(trajectory)
    assert "tool_loop" in {finding.finding.category.value for finding in diagnosis.chain}


def test_a_lone_nameless_invocation_is_its_agent() -> None:
    trajectory = map_spans([span(1, "invoke_agent", attrs=NAMELESS),
                            span(2, "chat gpt-4o-mini", parent=1, attrs=_chat("call_1", "get_weather"))])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION


def test_a_nameless_invocation_that_calls_a_model_beside_the_agents_it_holds_stays_an_agent() -> None:
    trajectory = map_spans([span(1, "invoke_agent", attrs=NAMELESS),
                            span(2, "chat gpt-4o-mini", parent=1, attrs=_chat("call_1", "get_weather")),
                            span(3, "invoke_agent support_agent", parent=1, attrs=SUPPORT)])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(3)).kind is NodeKind.AGENT_INVOCATION


def test_an_invocation_its_span_name_names_is_kept() -> None:
    """The Agents SDK's trace span under the contrib instrumentation: ``Agent workflow``, no agent name attribute."""
    trajectory = map_spans([span(1, "Agent workflow", attrs=NAMELESS),
                            span(2, "invoke_agent support_agent", parent=1, attrs=SUPPORT)])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION


def test_openlit_handoff_span_hands_over_and_its_proposal_is_no_unknown_tool() -> None:
    triage = {**NAMELESS, "gen_ai.agent.name": "triage_agent",
              "gen_ai.tool.definitions": json.dumps([{"type": "function", "name": "search_docs"}])}
    spans = [span(1, "invoke_agent", attrs=NAMELESS),
             span(2, "invoke_agent triage_agent", parent=1, attrs=triage),
             span(3, "invoke_agent", parent=2, attrs=NAMELESS),
             span(4, "chat gpt-4o-mini", parent=3, attrs=_chat("call_h", "transfer_to_billing_agent")),
             span(5, "invoke_agent billing_agent", parent=3,
                  attrs={**NAMELESS, "gen_ai.agent.name": "billing_agent", "gen_ai.agent.source": "triage_agent"}),
             span(6, "invoke_agent billing_agent", parent=1, attrs={**NAMELESS, "gen_ai.agent.name": "billing_agent"})]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(5))
    assert handoff.kind is NodeKind.HANDOFF
    assert (handoff.handoff_from, handoff.handoff_to) == ("triage_agent", "billing_agent")
    config = Config()
    diagnosis = DetectorChain(load_detectors(config.detectors), config.detectors).run(trajectory)
    result = next(item for item in diagnosis.verifier_results if item.verifier == "hallucinated_tool")
    assert result.status is VerifierStatus.PASS  # transfer_to_billing_agent is not among triage's tool definitions


def _graph_agent(number: int, parent: int | None, name: str, call_id: str | None = None) -> list[Any]:
    """``invoke_agent <name>`` running a model call (and the tool it proposed, if ``call_id``)."""
    attrs = {**NAMELESS, "gen_ai.agent.name": name}
    spans = [span(number, f"invoke_agent {name}", parent=parent, attrs=attrs),
             span(number + 1, "chat gpt-4o-mini", parent=number, attrs=_chat(call_id or f"call_{number}", "lookup_order"))]
    if call_id:
        spans.append(span(number + 2, "execute_tool lookup_order", parent=number, attrs=_tool(call_id, "lookup_order")))
    return spans


def test_a_named_invocation_that_only_runs_another_agent_is_a_step() -> None:
    """langgraph-supervisor's node function under the OpenTelemetry LangChain instrumentation: ``invoke_agent
    call_agent`` around the billing agent's graph."""
    wrapper = span(1, "invoke_agent call_agent", attrs={**NAMELESS, "gen_ai.agent.name": "call_agent"})
    trajectory = map_spans([wrapper, *_graph_agent(2, 1, "billing_agent", "call_b")])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION


def test_an_agent_that_works_itself_or_runs_only_its_turn_stays_an_agent() -> None:
    supervisor = _graph_agent(1, None, "supervisor")  # calls a model itself, then runs one agent
    trajectory = map_spans([*supervisor, *_graph_agent(5, 1, "billing_agent", "call_b")])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    one_turn = map_spans(_openlit_run(turns=1))  # the named agent's one child is a nameless turn
    assert get_node(one_turn, node_id(3)).kind is NodeKind.AGENT_INVOCATION


def test_tool_calls_an_agent_span_reports_that_its_own_models_never_proposed_are_no_proposals() -> None:
    """langgraph-supervisor appends ``transfer_back_to_<supervisor>`` to what an agent's node returns; the
    instrumentation records it in that span's output, though no model proposed it."""
    synthetic = {"role": "assistant", "parts": [
        {"type": "tool_call", "id": "4f1c0c52-9b2e", "name": "transfer_back_to_triage_agent", "arguments": {}}]}
    wrapper = span(1, "invoke_agent call_agent", attrs={**NAMELESS, "gen_ai.agent.name": "call_agent",
                                                      "gen_ai.output.messages": json.dumps([synthetic])})
    trajectory = map_spans([wrapper, *_graph_agent(2, 1, "billing_agent", "call_b")])
    assert [node.tool_name for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL] == ["lookup_order"]
    remote = map_spans([span(1, "invoke_agent remote_agent", attrs={**NAMELESS, "gen_ai.agent.name": "remote_agent",
                                                                    "gen_ai.output.messages": json.dumps([synthetic])})])
    assert [node.tool_name for node in remote.nodes if node.kind is NodeKind.TOOL_PROPOSAL] == [
        "transfer_back_to_triage_agent"  # no model call traced under it: what it reports is all there is
    ]
