"""LangGraph's prebuilt ReAct agent and langgraph-supervisor under OpenInference's LangChain instrumentation, in the
shapes the corpus capture ``openinference-langgraph`` shows (corpus/NOTES-frameworks-c.md): AGENT spans that are
graph nodes named ``agent``, supervisor node wrappers, ToolMessage outputs in LangChain's dict form, single-input
tools that record the bare argument."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

KIND = "openinference.span.kind"


def _meta(step: int, node: str, namespace: str) -> str:
    return json.dumps(
        {"ls_integration": "langgraph", "langgraph_step": step, "langgraph_node": node, "langgraph_checkpoint_ns": namespace}
    )


def _llm(number: int, parent: int, meta: str, *, calls: list[tuple[str, str, dict]] = (), results: list[str] = ()) -> object:
    attrs: dict[str, object] = {
        KIND: "LLM",
        "llm.model_name": "gpt-4o-mini-2024-07-18",
        "llm.token_count.prompt": 100,
        "llm.token_count.completion": 20,
        "metadata": meta,
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "Weather in Oslo?",
        "llm.output_messages.0.message.role": "assistant",
    }
    for position, call_id in enumerate(results, start=1):
        attrs[f"llm.input_messages.{position}.message.role"] = "tool"
        attrs[f"llm.input_messages.{position}.message.tool_call_id"] = call_id
        attrs[f"llm.input_messages.{position}.message.content"] = "Oslo: Light rain"
    for index, (call_id, name, args) in enumerate(calls):
        prefix = f"llm.output_messages.0.message.tool_calls.{index}.tool_call."
        attrs[prefix + "id"] = call_id
        attrs[prefix + "function.name"] = name
        attrs[prefix + "function.arguments"] = json.dumps(args)
    return span(number, "ChatOpenAI", parent=parent, attrs=attrs)


def _tool(number: int, parent: int, meta: str, call_id: str, argument: str) -> object:
    message = {"type": "tool", "data": {"content": "Oslo: Light rain", "type": "tool", "name": "get_weather",
                                        "id": None, "tool_call_id": call_id, "status": "success"}}
    return span(number, "get_weather", parent=parent, attrs={
        KIND: "TOOL", "tool.name": "get_weather", "input.value": argument, "metadata": meta,
        "output.value": json.dumps(message), "output.mime_type": "application/json",
    })


def _react_agent_loop() -> list:
    """support_agent (AGENT) -> agent (AGENT by name: the model node) / tools (CHAIN) per superstep; the same call
    get_weather("Oslo") twice, so only the ToolMessage's call id tells the executions apart."""
    spans = [span(1, "support_agent", attrs={KIND: "AGENT", "metadata": json.dumps({"ls_integration": "langgraph"})})]
    number = 2
    for turn, call_id in enumerate(("call_1", "call_2")):
        step = 2 * turn + 1
        agent_meta = _meta(step, "agent", f"agent:{turn}a")
        tools_meta = _meta(step + 1, "tools", f"tools:{turn}t")
        spans.append(span(number, "agent", parent=1, attrs={KIND: "AGENT", "metadata": agent_meta}))
        spans.append(span(number + 1, "call_model", parent=number, attrs={KIND: "CHAIN", "metadata": agent_meta}))
        spans.append(_llm(number + 2, number, agent_meta, calls=[(call_id, "get_weather", {"city": "Oslo"})],
                          results=["call_1"] if turn else []))
        spans.append(span(number + 3, "tools", parent=1, attrs={KIND: "CHAIN", "metadata": tools_meta}))
        spans.append(_tool(number + 4, number + 3, tools_meta, call_id, "Oslo"))
        number += 5
    return spans


def test_model_node_named_agent_is_a_step_of_the_agent_invocation() -> None:
    trajectory = map_spans(_react_agent_loop())
    counts = kinds(trajectory)
    assert counts["agent_invocation"] == 1
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.WORKFLOW_STEP
    assert node.agent_name is None


def test_tool_message_in_dict_form_gives_the_call_id() -> None:
    trajectory = map_spans(_react_agent_loop())
    first, second = get_node(trajectory, node_id(6)), get_node(trajectory, node_id(11))
    assert (first.tool_call_id, second.tool_call_id) == ("call_1", "call_2")
    assert first.arguments == "Oslo"  # a single-input tool records the bare argument
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, f"{node_id(4)}#call:call_1")
    assert has_edge(trajectory, node_id(11), EdgeType.CAUSED_BY, f"{node_id(9)}#call:call_2")


def _supervisor() -> list:
    """LangGraph -> triage_agent (node run) -> triage_agent (the agent's graph) -> agent / tools ->
    transfer_to_billing_agent; billing_agent (node run) -> call_agent -> billing_agent (graph) -> agent."""
    triage_ns = "triage_agent:t"
    billing_ns = "billing_agent:b"
    triage = _meta(1, "triage_agent", triage_ns)
    billing = _meta(2, "billing_agent", billing_ns)
    return [
        span(1, "LangGraph", attrs={KIND: "CHAIN"}),
        span(2, "triage_agent", parent=1, attrs={KIND: "AGENT", "metadata": triage}),
        span(3, "triage_agent", parent=2, attrs={KIND: "AGENT", "metadata": triage}),
        span(4, "agent", parent=3, attrs={KIND: "AGENT", "metadata": _meta(1, "agent", f"{triage_ns}|agent:1")}),
        span(5, "tools", parent=3, attrs={KIND: "CHAIN", "metadata": _meta(2, "tools", f"{triage_ns}|tools:2")}),
        span(6, "transfer_to_billing_agent", parent=5, attrs={
            KIND: "AGENT", "tool.name": "transfer_to_billing_agent", "metadata": _meta(2, "tools", f"{triage_ns}|tools:2"),
        }),
        span(7, "billing_agent", parent=1, attrs={KIND: "AGENT", "metadata": billing}),
        span(8, "call_agent", parent=7, attrs={KIND: "AGENT", "metadata": billing}),
        span(9, "billing_agent", parent=8, attrs={KIND: "AGENT", "metadata": billing}),
        span(10, "agent", parent=9, attrs={KIND: "AGENT", "metadata": _meta(1, "agent", f"{billing_ns}|agent:1")}),
    ]


def test_supervisor_node_wrappers_are_steps_and_the_agent_graphs_invocations() -> None:
    trajectory = map_spans(_supervisor())
    agents = {n.source.span_id[-2:]: n for n in trajectory.nodes if n.kind is NodeKind.AGENT_INVOCATION}
    assert sorted(agents) == ["03", "09"]  # the runs of the two agents' graphs
    for number in (2, 4, 7, 8, 10):
        assert get_node(trajectory, node_id(number)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(6)).kind is NodeKind.HANDOFF


def test_supervisor_handoff_reaches_the_one_billing_agent_invocation() -> None:
    trajectory = map_spans(_supervisor())
    assert has_edge(trajectory, node_id(9), EdgeType.HANDOFF_FROM, node_id(6))


def test_agent_span_without_langgraph_metadata_keeps_its_kind() -> None:
    spans = [span(1, "research_agent", attrs={KIND: "AGENT"}), span(2, "helper_agent", parent=1, attrs={KIND: "AGENT"})]
    trajectory = map_spans(spans)
    assert kinds(trajectory)["agent_invocation"] == 2


def test_a_redelivered_copy_of_the_spans_changes_nothing() -> None:
    spans = _react_agent_loop()
    once = map_spans(spans)
    twice = map_spans([*spans, *(copy for copy in _react_agent_loop())])  # the same spans delivered again
    assert kinds(twice)["agent_invocation"] == kinds(once)["agent_invocation"] == 1
    assert get_node(twice, node_id(2)).kind is NodeKind.WORKFLOW_STEP  # the model node, not a second agent
    assert sorted((e.from_node, e.type, e.to_node) for e in twice.edges) == sorted(
        (e.from_node, e.type, e.to_node) for e in once.edges
    )
