"""OpenInference's Strands processor (openinference-instrumentation-strands-agents 0.1.12, corpus/NOTES-frameworks-bl.md):
Strands' spans rewritten in place. Several results of one turn become one tool message naming the last call; every
agent span has graph.node.id "strands_agent" and no agent.name, only Strands' gen_ai.agent.name."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
CALLS = [("call_1", "lookup_order", '{"order_id": "A-1"}'), ("call_2", "get_weather", '{"city": "Paris"}'),
         ("call_3", "search_docs", '{"query": "delays"}')]


def _calls(prefix: str) -> dict[str, str]:
    attrs: dict[str, str] = {f"{prefix}role": "assistant"}
    for index, (call_id, name, arguments) in enumerate(CALLS):
        attrs[f"{prefix}tool_calls.{index}.tool_call.id"] = call_id
        attrs[f"{prefix}tool_calls.{index}.tool_call.function.name"] = name
        attrs[f"{prefix}tool_calls.{index}.tool_call.function.arguments"] = arguments
    return attrs


def _turn_spans(answered: bool) -> list[Span]:
    user = {"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Delayed?"}
    first = span(2, "chat", parent=1, attrs={KIND: "LLM", **user, **_calls("llm.output_messages.0.message.")})
    second_attrs: dict[str, str] = {KIND: "LLM", **user, **_calls("llm.input_messages.1.message.")}
    if answered:  # the three results in one message, named by the last call's id
        second_attrs.update({"llm.input_messages.2.message.role": "tool",
                             "llm.input_messages.2.message.tool_call_id": "call_3",
                             "llm.input_messages.2.message.content": "shipped Sunny no hits"})
    tools = [span(3 + index, f"execute_tool {name}", parent=1,
                  attrs={KIND: "TOOL", "tool.name": name, "tool.call_id": call_id, "input.value": arguments,
                         "input.mime_type": "application/json"})
             for index, (call_id, name, arguments) in enumerate(CALLS)]
    return [span(1, "invoke_agent support_agent", attrs={KIND: "AGENT"}), first, *tools,
            span(6, "chat", parent=1, attrs=second_attrs)]


def test_one_tool_message_for_a_turn_of_calls_consumes_every_call_of_the_turn() -> None:
    trajectory = map_spans(_turn_spans(answered=True))
    for number, (call_id, _, _) in zip((3, 4, 5), CALLS, strict=True):
        (edge,) = [e for e in trajectory.edges if e.from_node == node_id(6) and e.type is EdgeType.DEPENDS_ON
                   and e.to_node == node_id(number)]
        if call_id != "call_3":
            assert "answered with the turn's other calls" in edge.evidence, edge.evidence


def test_a_turn_no_tool_message_answers_is_not_read_as_consumed() -> None:
    trajectory = map_spans(_turn_spans(answered=False))
    for number in (3, 4, 5):
        assert not has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(number))


def test_agent_named_by_gen_ai_agent_name_before_a_shared_graph_node_id() -> None:
    def agent(number: int, name: str) -> Span:
        return span(number, f"invoke_agent {name}", parent=1,
                    attrs={KIND: "AGENT", "gen_ai.agent.name": name, "gen_ai.operation.name": "invoke_agent",
                           "graph.node.id": "strands_agent"})

    arguments = json.dumps({"agent_name": "billing_agent", "message": "refund"})
    spans = [span(1, "invoke_swarm", attrs={KIND: "CHAIN"}), agent(2, "triage_agent"),
             span(3, "execute_tool handoff_to_agent", parent=2,
                  attrs={KIND: "TOOL", "tool.name": "handoff_to_agent", "tool.call_id": "call_h",
                         "input.value": arguments, "input.mime_type": "application/json"}),
             agent(4, "billing_agent")]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(2)).agent_name == "triage_agent"
    assert get_node(trajectory, node_id(4)).agent_name == "billing_agent"
    assert get_node(trajectory, node_id(4)).kind is NodeKind.AGENT_INVOCATION
    assert has_edge(trajectory, node_id(4), EdgeType.HANDOFF_FROM, node_id(3))
