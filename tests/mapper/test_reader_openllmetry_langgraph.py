"""LangGraph under OpenLLMetry's LangChain instrumentation (``opentelemetry-instrumentation-langchain`` 0.62.4), in
the shapes it records: a tool run's ``ToolMessage`` inside ``traceloop.entity.output`` (its call id the only id on
the tool span), and langgraph-supervisor's handoff tool, which names its destination in the run metadata."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

PROPS = "traceloop.association.properties."


def _tool_output(call_id: str, content: str = "Oslo: Light rain") -> str:
    message = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
               "kwargs": {"content": content, "type": "tool", "name": "get_weather", "tool_call_id": call_id,
                          "status": "success"}}
    return json.dumps({"output": message, "kwargs": {"tags": ["seq:step:1"], "name": "get_weather"}})


def _chat(number: int, parent: int, call_id: str) -> object:
    return span(number, "ChatOpenAI.chat", parent=parent, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.provider.name": "openai",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
            {"type": "tool_call", "id": call_id, "name": "get_weather", "arguments": {"city": "Oslo"}}]}]),
    })


def _tool(number: int, parent: int, name: str, output: str, **props: str) -> object:
    attrs: dict[str, object] = {
        "traceloop.span.kind": "tool", "traceloop.entity.name": name, "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name, "traceloop.entity.input": json.dumps({"input_str": "{'city': 'Oslo'}"}),
        "traceloop.entity.output": output, PROPS + "langgraph_step": 2, PROPS + "langgraph_node": "tools",
    }
    attrs.update({PROPS + key: value for key, value in props.items()})
    return span(number, f"execute_tool {name}", parent=parent, attrs=attrs)


def _agent() -> object:
    return span(1, "support_agent.workflow", attrs={
        "traceloop.span.kind": "workflow", "traceloop.entity.name": "support_agent",
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent",
    })


def test_the_tool_message_in_the_entity_output_gives_the_call_id() -> None:
    # Two identical calls: only the ToolMessage's call id says which proposal each execution answers.
    spans = [_agent(), _chat(2, 1, "call_1"), _tool(3, 1, "get_weather", _tool_output("call_1")),
             _chat(4, 1, "call_2"), _tool(5, 1, "get_weather", _tool_output("call_2"))]
    trajectory = map_spans(spans)
    assert (get_node(trajectory, node_id(3)).tool_call_id, get_node(trajectory, node_id(5)).tool_call_id) == ("call_1", "call_2")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, f"{node_id(2)}#call:call_1")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, f"{node_id(4)}#call:call_2")


def test_an_output_that_is_not_a_tool_message_gives_no_call_id() -> None:
    trajectory = map_spans([_agent(), _tool(2, 1, "get_weather", json.dumps({"output": "Oslo: Light rain"}))])
    assert get_node(trajectory, node_id(2)).tool_call_id is None


def test_a_tool_that_names_its_handoff_destination_is_a_handoff() -> None:
    output = json.dumps({"output": {"graph": "__parent__", "goto": "billing_agent"}})
    spans = [_agent(), _tool(2, 1, "transfer_to_billing_agent", output, __handoff_destination="billing_agent"),
             _tool(3, 1, "transfer_to_billing_agent", output)]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(2))
    assert handoff.kind is NodeKind.HANDOFF and handoff.handoff_to == "billing_agent"
    assert get_node(trajectory, node_id(3)).kind is NodeKind.TOOL_EXECUTION  # the name alone says nothing
