"""OpenInference reader: spans shaped as openinference-instrumentation-{openai,openai-agents,langchain} emit them
(conventions.md section 3, 7.2, 11; corpus-notes.md)."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import categories, get_node, has_edge, kinds, map_spans, node_id, ordered, span

KIND = "openinference.span.kind"


def _llm(number: int, parent: int, *, response_id: str, inputs: list[dict], calls: list[tuple[str, str, dict]] = (), text: str | None = None) -> object:
    attrs: dict[str, object] = {
        KIND: "LLM",
        "llm.system": "openai",
        "llm.model_name": "gpt-4o-mini-2024-07-18",
        "llm.token_count.prompt": 100,
        "llm.token_count.completion": 20,
        "output.mime_type": "application/json",
        "output.value": json.dumps({"id": response_id, "choices": []}, separators=(",", ":")),
        "llm.output_messages.0.message.role": "assistant",
    }
    for position, message in enumerate(inputs):
        prefix = f"llm.input_messages.{position}.message."
        attrs[prefix + "role"] = message["role"]
        if "content" in message:
            attrs[prefix + "content"] = message["content"]
        if "tool_call_id" in message:
            attrs[prefix + "tool_call_id"] = message["tool_call_id"]
        for index, (call_id, name, args) in enumerate(message.get("calls", ())):
            call = f"{prefix}tool_calls.{index}.tool_call."
            attrs[call + "id"] = call_id
            attrs[call + "function.name"] = name
            attrs[call + "function.arguments"] = json.dumps(args)
    for index, (call_id, name, args) in enumerate(calls):
        call = f"llm.output_messages.0.message.tool_calls.{index}.tool_call."
        attrs[call + "id"] = call_id
        attrs[call + "function.name"] = name
        attrs[call + "function.arguments"] = json.dumps(args)
    if text is not None:
        attrs["llm.output_messages.0.message.content"] = text
    return span(number, "ChatCompletion", parent=parent, attrs=attrs)


def _raw_loop() -> list:
    """CHAIN workflow -> AGENT -> LLM / TOOL siblings; tool spans carry no tool-call id (observed)."""
    question = {"role": "user", "content": "Weather in Paris?"}
    return [
        span(1, "support_workflow", attrs={KIND: "CHAIN", "input.value": "{}"}),
        span(2, "support_agent", parent=1, attrs={KIND: "AGENT"}),
        _llm(3, 2, response_id="chatcmpl-1", inputs=[question], calls=[("call_1", "get_weather", {"city": "Paris"})]),
        span(
            4,
            "get_weather",
            parent=2,
            attrs={
                KIND: "TOOL",
                "tool.name": "get_weather",
                "input.value": '{"kwargs": {"city": "Paris"}}',
                "output.value": "Sunny",
            },
        ),
        _llm(
            5,
            2,
            response_id="chatcmpl-2",
            inputs=[
                question,
                {"role": "assistant", "calls": [("call_1", "get_weather", {"city": "Paris"})]},
                {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
            ],
            text="It is sunny.",
        ),
    ]


def test_raw_loop_kinds_and_tool_flow_by_name_and_arguments() -> None:
    trajectory = map_spans(_raw_loop())
    assert kinds(trajectory) == {
        "workflow_step": 1,
        "agent_invocation": 1,
        "model_call": 2,
        "tool_execution": 1,
        "tool_proposal": 1,
    }
    proposal = node_id(3, "call:call_1")
    assert has_edge(trajectory, proposal, EdgeType.CAUSED_BY, node_id(3))
    # {"kwargs": {...}} of the @tool decorator canonicalises like the model's bare arguments.
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))
    # The second call's input holds the first call's output message (content digest, GenAI parts shape).
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(3))
    assert get_node(trajectory, proposal).status is NodeStatus.DISPATCHED
    llm = get_node(trajectory, node_id(3))
    assert llm.model == "gpt-4o-mini-2024-07-18" and llm.provider == "openai"
    assert llm.usage is not None and llm.usage.input_tokens == 100 and llm.usage.output_tokens == 20
    assert llm.tool_definitions is None
    assert get_node(trajectory, node_id(2)).agent_name == "support_agent"
    tool = get_node(trajectory, node_id(4))
    assert tool.tool_name == "get_weather" and tool.arguments == '{"city":"Paris"}' and tool.result_visible


def test_tool_span_with_tool_id_links_by_id() -> None:
    spans = _raw_loop()
    spans[3] = span(4, "get_weather", parent=2, attrs={KIND: "TOOL", "tool.name": "get_weather", "tool.id": "call_1"})
    trajectory = map_spans(spans)
    edge = next(e for e in trajectory.edges if e.from_node == node_id(4) and e.to_node == node_id(3, "call:call_1"))
    assert "call_1" in edge.evidence


def test_agents_sdk_handoff_tool_span_becomes_handoff_node() -> None:
    spans = [
        span(1, "Agent workflow", attrs={KIND: "AGENT"}),
        span(2, "triage", parent=1, attrs={KIND: "AGENT", "graph.node.id": "triage"}),
        span(3, "handoff to billing", parent=2, attrs={KIND: "TOOL", "input.value": "triage", "output.value": "billing"}),
        span(4, "billing", parent=1, attrs={KIND: "AGENT", "graph.node.id": "billing", "graph.node.parent_id": "triage"}),
        span(5, "guardrail", parent=2, attrs={KIND: "GUARDRAIL"}),
    ]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(3))
    assert handoff.kind is NodeKind.HANDOFF
    assert has_edge(trajectory, node_id(4), EdgeType.HANDOFF_FROM, node_id(3))
    assert has_edge(trajectory, node_id(4), EdgeType.HANDOFF_FROM, node_id(2))
    assert get_node(trajectory, node_id(5)).kind is NodeKind.GUARDRAIL


def test_langgraph_metadata_orders_node_spans_by_superstep_only() -> None:
    def meta(step: int, node: str, task: str) -> str:
        return json.dumps({"langgraph_step": step, "langgraph_node": node, "langgraph_checkpoint_ns": f"{node}:{task}"})

    spans = [
        span(1, "LangGraph", attrs={KIND: "CHAIN"}),
        span(2, "agent", parent=1, attrs={KIND: "CHAIN", "metadata": meta(1, "agent", "a")}),
        span(3, "ChatOpenAI", parent=2, attrs={KIND: "LLM", "metadata": meta(1, "agent", "a")}),
        # Parallel tool calls: one `tools` span each (LangGraph Send), same superstep.
        span(4, "tools", parent=1, attrs={KIND: "CHAIN", "metadata": meta(2, "tools", "b")}),
        span(5, "tools", parent=1, attrs={KIND: "CHAIN", "metadata": meta(2, "tools", "c")}),
        span(6, "agent", parent=1, attrs={KIND: "CHAIN", "metadata": meta(3, "agent", "d")}),
    ]
    trajectory = map_spans(spans)
    assert has_edge(trajectory, node_id(4), EdgeType.SEQUENCED_AFTER, node_id(2))
    assert has_edge(trajectory, node_id(5), EdgeType.SEQUENCED_AFTER, node_id(2))
    assert has_edge(trajectory, node_id(6), EdgeType.SEQUENCED_AFTER, node_id(4))
    assert ordered(trajectory, node_id(4), node_id(5)) is False  # same superstep: concurrent
    # The LLM inside the node inherits the metadata but is not the node's own span: no sequence edge.
    assert not [e for e in trajectory.edges if e.from_node == node_id(3) and e.type is EdgeType.SEQUENCED_AFTER]


def test_langgraph_control_flow_exception_is_not_a_failure() -> None:
    spans = [
        span(1, "supervisor", attrs={KIND: "CHAIN"}, error="ParentCommand(Command(goto='billing'))"),
        span(2, "transfer_to_billing", parent=1, attrs={KIND: "AGENT", "tool.name": "transfer_to_billing"}),
    ]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(1)).status is NodeStatus.COMMITTED
    transfer = get_node(trajectory, node_id(2))
    assert transfer.kind is NodeKind.HANDOFF


def test_double_instrumentation_same_response_id_is_one_node() -> None:
    """An OpenInference LLM span and an OTel GenAI chat span nested in it, same response id."""
    spans = _raw_loop()
    spans.append(
        span(
            6,
            "chat gpt-4o-mini",
            parent=3,
            attrs={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.response.id": "chatcmpl-1",
                "gen_ai.usage.input_tokens": 100,
                "gen_ai.usage.output_tokens": 20,
            },
        )
    )
    trajectory = map_spans(spans)
    assert kinds(trajectory)["model_call"] == 2
    merged = get_node(trajectory, node_id(6))  # the innermost span keeps the node
    assert [ref.span_id for ref in merged.references] == ["0000000000000003"]
    assert trajectory.node(node_id(3)) is None
    # The outer span's proposals were kept: the tool flow still links through the merged node.
    proposal = node_id(6, "call:call_1")
    assert has_edge(trajectory, proposal, EdgeType.CAUSED_BY, node_id(6))
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(2))  # hung where the outer span was
    assert "double_instrumentation" in categories(trajectory)


def test_redacted_content_is_declared() -> None:
    spans = [
        span(1, "agent", attrs={KIND: "AGENT"}),
        span(2, "tool", parent=1, attrs={KIND: "TOOL", "tool.name": "t", "input.value": "__REDACTED__"}),
    ]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(2)).arguments is None
    content = [d for d in trajectory.declarations if d.category.value == "content"]
    assert content and node_id(2) in content[0].nodes


def test_a_tool_span_google_adk_types_as_its_agent_transfer_is_a_handoff() -> None:
    # OpenInference's Google ADK instrumentation keeps ADK's gen_ai.tool.type on its TOOL spans.
    spans = [
        span(1, "agent_run [triage_agent]", attrs={"openinference.span.kind": "AGENT", "agent.name": "triage_agent"}),
        span(2, "execute_tool transfer_to_agent", parent=1, attrs={
            "openinference.span.kind": "TOOL", "tool.name": "transfer_to_agent", "gen_ai.tool.type": "TransferToAgentTool",
            "input.value": json.dumps({"agent_name": "billing_agent"}), "input.mime_type": "application/json"}),
        span(3, "execute_tool transfer_to_agent", parent=1, attrs={
            "openinference.span.kind": "TOOL", "tool.name": "transfer_to_agent", "gen_ai.tool.type": "FunctionTool",
            "input.value": json.dumps({"agent_name": "billing_agent"}), "input.mime_type": "application/json"}),
    ]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(2))
    assert handoff.kind is NodeKind.HANDOFF and handoff.handoff_to == "billing_agent"
    assert get_node(trajectory, node_id(3)).kind is NodeKind.TOOL_EXECUTION  # a tool of the app's own, so typed


def test_an_adk_transfer_whose_arguments_were_not_recorded_is_still_a_handoff() -> None:
    # Inputs hidden (OPENINFERENCE_HIDE_INPUTS) or redacted: the receiving agent is unknown, but ADK's own type says the
    # span is its agent transfer, not a tool of the app's (which a policy on tool names would judge).
    spans = [
        span(1, "agent_run [triage_agent]", attrs={"openinference.span.kind": "AGENT", "agent.name": "triage_agent"}),
        span(2, "execute_tool transfer_to_agent", parent=1, attrs={
            "openinference.span.kind": "TOOL", "tool.name": "transfer_to_agent", "gen_ai.tool.type": "TransferToAgentTool"}),
        span(3, "execute_tool transfer_to_agent", parent=1, attrs={
            "openinference.span.kind": "TOOL", "tool.name": "transfer_to_agent", "gen_ai.tool.type": "TransferToAgentTool",
            "input.value": "__REDACTED__"}),
    ]
    trajectory = map_spans(spans)
    for number in (2, 3):
        handoff = get_node(trajectory, node_id(number))
        assert handoff.kind is NodeKind.HANDOFF and handoff.handoff_to is None
