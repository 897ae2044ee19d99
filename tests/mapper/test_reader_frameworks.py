"""Vercel AI SDK legacy, pydantic-ai / Logfire, Google ADK and the OpenAI Agents contrib instrumentation
(conventions.md sections 5, 6, 7.3, 8; corpus-notes.md)."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import categories, get_node, has_edge, kinds, map_spans, node_id, span

# --- Vercel AI SDK legacy ai.* spans ---------------------------------------------------------------------


def test_vercel_tool_call_id_joins_response_tool_calls() -> None:
    spans = [
        span(1, "ai.generateText", attrs={"ai.operationId": "ai.generateText", "ai.telemetry.functionId": "support", "ai.usage.inputTokens": 30, "ai.usage.outputTokens": 9}),
        span(2, "ai.generateText.doGenerate", parent=1, attrs={
            "ai.operationId": "ai.generateText.doGenerate",
            "ai.model.id": "gpt-4o-mini",
            "ai.model.provider": "openai.chat",
            "ai.response.id": "resp-1",
            "ai.usage.promptTokens": 10,
            "ai.usage.completionTokens": 4,
            "ai.prompt.messages": json.dumps([{"role": "user", "content": [{"type": "text", "text": "weather?"}]}]),
            "ai.response.toolCalls": json.dumps([{"toolCallId": "tc1", "toolName": "weather", "input": {"city": "Paris"}}]),
            "gen_ai.system": "openai.chat",
            "gen_ai.response.finish_reasons": ["tool-calls"],
        }),
        span(3, "ai.toolCall", parent=1, attrs={"ai.operationId": "ai.toolCall", "ai.toolCall.name": "weather", "ai.toolCall.id": "tc1", "ai.toolCall.args": '{"city":"Paris"}', "ai.toolCall.result": '"sunny"'}),
        span(4, "ai.generateText.doGenerate", parent=1, attrs={
            "ai.operationId": "ai.generateText.doGenerate",
            "ai.response.text": "Sunny.",
            "ai.usage.promptTokens": 20,
            "ai.usage.completionTokens": 5,
            "ai.prompt.messages": json.dumps([
                {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
                {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "tc1", "toolName": "weather", "input": {"city": "Paris"}}]},
                {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "tc1", "toolName": "weather", "output": "sunny"}]},
            ]),
        }),
    ]
    trajectory = map_spans(spans)
    assert kinds(trajectory) == {"agent_invocation": 1, "model_call": 2, "tool_execution": 1, "tool_proposal": 1}
    proposal = node_id(2, "call:tc1")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(2))  # assistant message digest
    assert get_node(trajectory, node_id(1)).usage is None  # run totals are an aggregate
    assert get_node(trajectory, node_id(2)).usage is not None
    assert "usage_aggregation" in categories(trajectory)


# --- pydantic-ai / Logfire -------------------------------------------------------------------------------


def test_pending_span_dropped_and_children_hung_on_real_parent() -> None:
    spans = [
        span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support", "gen_ai.agent.call.id": "run-1", "gen_ai.aggregated_usage.input_tokens": 50, "gen_ai.aggregated_usage.output_tokens": 10}),
        span(2, "chat gpt-4o-mini", parent=1, attrs={"logfire.span_type": "pending_span", "logfire.pending_parent_id": "0000000000000001"}),
        span(3, "execute_tool lookup", parent=2, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "pyd_1", "gen_ai.tool.call.arguments": '{"id": 1}', "gen_ai.agent.call.id": "run-1", "logfire.msg": "running tool: lookup"}),
    ]
    result_trajectory = map_spans(spans)
    assert result_trajectory.node(node_id(2)) is None
    assert has_edge(result_trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(1))
    assert not result_trajectory.external_parents
    agent = get_node(result_trajectory, node_id(1))
    assert agent.usage is None and agent.convention == "pydantic_ai"
    assert "usage_aggregation" in categories(result_trajectory)


def test_pydantic_ai_v2_spans_and_logfire_error_level() -> None:
    spans = [
        span(1, "agent run", attrs={"agent_name": "support", "model_name": "gpt-4o"}),
        span(2, "running tool", parent=1, attrs={"gen_ai.tool.name": "lookup", "tool_arguments": '{"id": 1}', "tool_response": "x", "logfire.level_num": 17}),
    ]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(1)).agent_name == "support"
    tool = get_node(trajectory, node_id(2))
    assert tool.kind is NodeKind.TOOL_EXECUTION and tool.arguments == '{"id":1}' and tool.status is NodeStatus.FAILED


# --- Google ADK ------------------------------------------------------------------------------------------


def test_adk_legacy_function_call_ids() -> None:
    request_1 = {"model": "gemini-2.0-flash", "contents": [{"role": "user", "parts": [{"text": "weather?"}]}]}
    response_1 = {"content": {"role": "model", "parts": [{"function_call": {"id": "adk-1", "name": "get_weather", "args": {"city": "Paris"}}}]}}
    request_2 = {"contents": [
        {"role": "user", "parts": [{"text": "weather?"}]},
        {"role": "model", "parts": [{"function_call": {"id": "adk-1", "name": "get_weather", "args": {"city": "Paris"}}}]},
        {"role": "user", "parts": [{"function_response": {"id": "adk-1", "name": "get_weather", "response": {"result": "sunny"}}}]},
    ]}
    spans = [
        span(1, "invocation", attrs={"gcp.vertex.agent.invocation_id": "inv-1"}),
        span(2, "invoke_agent root", parent=1, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "root"}),
        span(3, "call_llm", parent=2, attrs={"gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "gemini-2.0-flash", "gcp.vertex.agent.llm_request": json.dumps(request_1), "gcp.vertex.agent.llm_response": json.dumps(response_1)}),
        span(4, "execute_tool get_weather", parent=3, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "adk-1", "gcp.vertex.agent.tool_call_args": '{"city": "Paris"}'}),
        span(5, "call_llm", parent=2, attrs={"gen_ai.system": "gcp.vertex.agent", "gcp.vertex.agent.llm_request": json.dumps(request_2), "gcp.vertex.agent.llm_response": "{}"}),
    ]
    trajectory = map_spans(spans, scope="gcp.vertex.agent")
    assert kinds(trajectory) == {"workflow_step": 1, "agent_invocation": 1, "model_call": 2, "tool_execution": 1, "tool_proposal": 1}
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:adk-1"))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(3))
    assert get_node(trajectory, node_id(4)).arguments == '{"city":"Paris"}'


def test_adk_v2_merged_tool_batch_is_neither_a_call_nor_a_step() -> None:
    """ADK's ``execute_tool (merged)`` wraps one turn's parallel calls and executes nothing (corpus adk-native:
    the ground truth counts no node for it)."""
    spans = [
        span(1, "invoke_workflow app", attrs={"gen_ai.operation.name": "invoke_workflow"}),
        span(2, "invoke_node plan", parent=1, attrs={"gen_ai.operation.name": "invoke_node"}),
        span(3, "execute_tool (merged)", parent=2, attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "(merged tools)"}),
    ]
    trajectory = map_spans(spans, scope="gcp.vertex.agent")
    assert get_node(trajectory, node_id(3)).kind is NodeKind.OTHER
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP


def test_adk_transfer_to_agent_is_a_handoff_to_the_agent_it_names() -> None:
    spans = [
        span(1, "invoke_workflow triage", attrs={"gen_ai.operation.name": "invoke_workflow"}),
        span(2, "invoke_agent triage_agent", parent=1, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage_agent"}),
        span(3, "execute_tool transfer_to_agent", parent=2, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "transfer_to_agent", "gen_ai.tool.type": "TransferToAgentTool",
            "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.arguments": '{"agent_name": "billing_agent"}'}),
        span(4, "invoke_agent billing_agent", parent=1, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing_agent"}),
    ]
    trajectory = map_spans(spans, scope="gcp.vertex.agent")
    handoff = get_node(trajectory, node_id(3))
    assert handoff.kind is NodeKind.HANDOFF and handoff.handoff_to == "billing_agent"
    assert has_edge(trajectory, node_id(4), EdgeType.HANDOFF_FROM, node_id(3))


def test_framework_handoff_tools_join_the_agent_they_name() -> None:
    """Strands Swarm's ``handoff_to_agent`` stays a tool execution; the agent its arguments name receives the run."""
    strands = {"gen_ai.system": "strands-agents"}
    spans = [
        span(1, "invoke_swarm", attrs={**strands, "gen_ai.operation.name": "invoke_swarm"}),
        span(2, "invoke_agent triage_agent", parent=1, attrs={**strands, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage_agent"}),
        span(3, "execute_tool handoff_to_agent", parent=2, attrs={**strands, "gen_ai.operation.name": "execute_tool",
             "gen_ai.tool.name": "handoff_to_agent", "gen_ai.tool.call.id": "t1"},
             events=[("gen_ai.tool.message", {"content": '{"agent_name": "billing_agent", "message": "refund"}', "id": "t1"})]),
        span(4, "invoke_agent billing_agent", parent=1, attrs={**strands, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing_agent"}),
    ]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(3)).kind is NodeKind.TOOL_EXECUTION
    (edge,) = [e for e in trajectory.edges if e.type is EdgeType.HANDOFF_FROM]
    assert (edge.from_node, edge.to_node) == (node_id(4), node_id(3)) and "handoff tool handoff_to_agent" in edge.evidence


def _autogen_swarm(tool: str, receiver: str) -> list:
    """AutoGen AgentChat's Swarm as observed: the transfer runs as a plain ``execute_tool`` span inside the triage
    agent, and the receiving agent's ``invoke_agent`` span is its sibling under the app's run span."""
    autogen = {"gen_ai.system": "autogen"}
    return [
        span(1, "run_team"),
        span(2, "invoke_agent triage_agent", parent=1, attrs={**autogen, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage_agent"}),
        span(3, f"execute_tool {tool}", parent=2, attrs={**autogen, "gen_ai.operation.name": "execute_tool",
             "gen_ai.tool.name": tool, "gen_ai.tool.call.id": "call_1"}),
        span(4, f"invoke_agent {receiver}", parent=1, attrs={**autogen, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": receiver}),
    ]


def test_a_transfer_to_tool_naming_an_agent_of_the_trace_is_a_handoff_to_it() -> None:
    trajectory = map_spans(_autogen_swarm("transfer_to_billing_agent", "billing_agent"))
    handoff = get_node(trajectory, node_id(3))
    assert handoff.kind is NodeKind.HANDOFF and handoff.handoff_to == "billing_agent"
    assert has_edge(trajectory, node_id(4), EdgeType.HANDOFF_FROM, node_id(3))
    # The agent's name is compared in function style, as the SDKs build the tool name from it.
    spelled = map_spans(_autogen_swarm("transfer_to_billing_agent", "Billing Agent"))
    assert get_node(spelled, node_id(3)).handoff_to == "Billing Agent"


def test_a_transfer_to_tool_naming_no_agent_of_the_trace_stays_a_tool() -> None:
    trajectory = map_spans(_autogen_swarm("transfer_to_savings", "billing_agent"))
    tool = get_node(trajectory, node_id(3))
    assert tool.kind is NodeKind.TOOL_EXECUTION and tool.tool_name == "transfer_to_savings"
    assert not [edge for edge in trajectory.edges if edge.type is EdgeType.HANDOFF_FROM]


# --- OpenAI Agents SDK, OTel contrib instrumentation ----------------------------------------------------


def test_contrib_agent_handoff_and_guardrail_check() -> None:
    spans = [
        span(1, "invoke_agent triage", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage"}),
        span(2, "agent_handoff OpenAI Agent", parent=1, attrs={"gen_ai.operation.name": "agent_handoff", "gen_ai.agent.name": "OpenAI Agent", "gen_ai.handoff.from_agent": "triage", "gen_ai.handoff.to_agent": "billing"}),
        span(3, "invoke_agent billing", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing"}),
        span(4, "guardrail_check pii", parent=1, attrs={"gen_ai.operation.name": "guardrail_check", "gen_ai.guardrail.name": "pii", "gen_ai.guardrail.triggered": True}),
    ]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(2))
    assert handoff.kind is NodeKind.HANDOFF and handoff.agent_name is None and handoff.convention == "openai_agents"
    assert has_edge(trajectory, node_id(3), EdgeType.HANDOFF_FROM, node_id(2))
    guardrail = get_node(trajectory, node_id(4))
    assert guardrail.kind is NodeKind.GUARDRAIL and guardrail.error_type == "guardrail_triggered"


def test_unknown_convention_gives_other_nodes_with_parent_edges() -> None:
    spans = [span(1, "GET /"), span(2, "db query", parent=1, attrs={"db.system": "postgresql"})]
    trajectory = map_spans(spans)
    assert kinds(trajectory) == {"other": 2}
    assert has_edge(trajectory, node_id(2), EdgeType.CAUSED_BY, node_id(1))
