"""OpenInference's JavaScript LangChain instrumentation on LangGraph.js (corpus/NOTES-frameworks-ar.md): every chain
run is a CHAIN span and every tool run a TOOL span; LangGraph's run metadata (``ls_integration`` ``langgraph``) tells
an agent's graph run and langgraph-supervisor's handoff tool apart."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, kinds, map_spans, node_id, span

KIND = "openinference.span.kind"


def _meta(**extra: object) -> str:
    return json.dumps({"ls_integration": "langgraph", **extra}, separators=(",", ":"))


def _step(step: int, node: str) -> str:
    return _meta(langgraph_step=step, langgraph_node=node, langgraph_checkpoint_ns=f"{node}:x")


def _agent_graph() -> list:
    return [
        span(1, "support_agent", attrs={KIND: "CHAIN", "metadata": _meta()}),
        span(2, "agent", parent=1, attrs={KIND: "CHAIN", "metadata": _step(1, "agent")}),
        span(3, "ChatOpenAI", parent=2, attrs={KIND: "LLM", "llm.model_name": "gpt-4o-mini",
                                                "metadata": _step(1, "agent")}),
        span(4, "tools", parent=1, attrs={KIND: "CHAIN", "metadata": _step(2, "tools")}),
        span(5, "get_weather", parent=4, attrs={KIND: "TOOL", "tool.name": "get_weather", "input.value": "Paris",
                                                 "metadata": _step(2, "tools")}),
    ]


def test_langgraph_chain_run_named_agent_is_an_agent_invocation() -> None:
    trajectory = map_spans(_agent_graph())
    agents = [n for n in trajectory.nodes if n.kind is NodeKind.AGENT_INVOCATION]
    assert [n.name for n in agents] == ["support_agent"], [(n.name, n.kind) for n in trajectory.nodes]


def test_chain_without_langgraph_metadata_stays_a_workflow_step() -> None:
    spans = [span(1, "support_agent", attrs={KIND: "CHAIN", "metadata": json.dumps({"user": "x"})})]
    assert kinds(map_spans(spans)).get("agent_invocation", 0) == 0


def test_langgraph_transfer_tool_is_a_handoff() -> None:
    spans = [
        span(1, "triage_agent", attrs={KIND: "CHAIN", "metadata": _meta()}),
        span(2, "tools", parent=1, attrs={KIND: "CHAIN", "metadata": _step(2, "tools")}),
        span(3, "transfer_to_billing_agent", parent=2,
             attrs={KIND: "TOOL", "tool.name": "transfer_to_billing_agent", "metadata": _step(2, "tools")}),
        span(4, "billing_agent", parent=1, attrs={KIND: "CHAIN", "metadata": _step(3, "billing_agent")}),
    ]
    trajectory = map_spans(spans)
    handoffs = [n for n in trajectory.nodes if n.kind is NodeKind.HANDOFF]
    assert len(handoffs) == 1, [(n.name, n.kind) for n in trajectory.nodes]
    assert not [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION]


def test_transfer_named_tool_outside_langgraph_stays_a_tool() -> None:
    spans = [span(1, "transfer_to_billing_agent", attrs={KIND: "TOOL", "tool.name": "transfer_to_billing_agent"})]
    assert kinds(map_spans(spans)).get("handoff", 0) == 0


def _ai(calls: list[tuple[str, str, dict]]) -> dict:
    return {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"],
            "kwargs": {"content": "", "tool_calls": [{"name": n, "args": a, "type": "tool_call", "id": i}
                                                     for i, n, a in calls]}}


def _tool_message(call_id: str, content: str) -> dict:
    return {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ToolMessage"],
            "kwargs": {"content": content, "tool_call_id": call_id, "name": "get_weather"}}


def _js_llm(number: int, parent: int, *, inputs: list[tuple[dict, dict]], calls: list[tuple[str, str, dict]]) -> object:
    """An LLM span as the JavaScript instrumentation writes it: flattened messages without ids, LangChain's records
    of the run in input.value / output.value."""
    attrs: dict[str, object] = {KIND: "LLM", "llm.model_name": "gpt-4o-mini",
                                "input.mime_type": "application/json", "output.mime_type": "application/json",
                                "input.value": json.dumps({"messages": [[record for _, record in inputs]]}),
                                "output.value": json.dumps({"generations": [[{"text": "", "message": _ai(calls)}]]}),
                                "llm.output_messages.0.message.role": "assistant"}
    for position, (flat, _) in enumerate(inputs):
        for key, value in flat.items():
            attrs[f"llm.input_messages.{position}.message.{key}"] = value
    for index, (_, name, args) in enumerate(calls):
        prefix = f"llm.output_messages.0.message.tool_calls.{index}.tool_call."
        attrs[prefix + "function.name"] = name
        attrs[prefix + "function.arguments"] = json.dumps(args)
    return span(number, "ChatOpenAI", parent=parent, attrs=attrs)


def test_call_ids_come_from_the_runs_recorded_messages() -> None:
    user = ({"role": "user", "content": "Weather in Oslo?"}, {"role": "user", "content": "Weather in Oslo?"})
    assistant = ({"role": "assistant", "content": "", "tool_calls.0.tool_call.function.name": "get_weather",
                  "tool_calls.0.tool_call.function.arguments": '{"city": "Oslo"}'},
                 _ai([("call_1", "get_weather", {"city": "Oslo"})]))
    result = ({"role": "tool", "content": "Oslo: rain"}, _tool_message("call_1", "Oslo: rain"))
    spans = [
        span(1, "support_agent", attrs={KIND: "CHAIN", "metadata": _meta()}),
        _js_llm(2, 1, inputs=[user], calls=[("call_1", "get_weather", {"city": "Oslo"})]),
        _js_llm(3, 1, inputs=[user, assistant, result], calls=[]),
    ]
    trajectory = map_spans(spans)
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [f"{node_id(2)}#call:call_1"], proposals
    assert has_edge(trajectory, node_id(3), EdgeType.DEPENDS_ON, f"{node_id(2)}#call:call_1")


def test_tool_call_id_from_a_run_output_wrapping_the_tool_message() -> None:
    output = json.dumps({"output": _tool_message("call_7", "Oslo: rain")})
    spans = [span(1, "get_weather", attrs={KIND: "TOOL", "tool.name": "get_weather", "input.value": "Oslo",
                                           "output.mime_type": "application/json", "output.value": output})]
    trajectory = map_spans(spans)
    tools = [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION]
    assert [n.tool_call_id for n in tools] == ["call_7"]
