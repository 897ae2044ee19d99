"""Spans shaped like Microsoft Agent Framework's native GenAI telemetry (agent-framework-core 1.23.0, sensitive data
on): ``invoke_agent <name>`` holds the run's whole new conversation in ``gen_ai.output.messages`` (tool calls, tool
results, the answer) and accumulated usage; ``chat <model>`` and ``execute_tool <name>`` are its children. An agent
used as a tool nests ``invoke_agent <sub-agent>`` inside the ``execute_tool`` span."""

from __future__ import annotations

import json

from semconv.trajectory import DeclarationCategory, EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

OP = "gen_ai.operation.name"
USER = {"role": "user", "parts": [{"type": "text", "content": "Please remove /shared/old.csv."}]}


def _call(call_id: str, name: str, arguments: str) -> dict:
    return {"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}]}


def _result(call_id: str, response: str) -> dict:
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": response}]}


ANSWER = {"role": "assistant", "parts": [{"type": "text", "content": "I may not delete files."}]}
DELETE = _call("call_1", "delete_file", '{"path": "/shared/old.csv"}')


def _agent(number: int, name: str, outputs: list[dict], *, parent: int | None = None, tools: tuple[str, ...] = ()) -> object:
    definitions = [{"type": "function", "name": tool, "parameters": {}} for tool in tools]
    return span(number, f"invoke_agent {name}", parent=parent, attrs={
        OP: "invoke_agent", "gen_ai.agent.name": name, "gen_ai.provider.name": "microsoft.agent_framework",
        "gen_ai.input.messages": json.dumps([USER]), "gen_ai.output.messages": json.dumps(outputs),
        "gen_ai.tool.definitions": json.dumps(definitions),
        "gen_ai.usage.input_tokens": 300, "gen_ai.usage.output_tokens": 40,
    })


def _chat(number: int, parent: int, inputs: list[dict], outputs: list[dict] | None) -> object:
    attrs = {OP: "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
             "gen_ai.input.messages": json.dumps(inputs), "gen_ai.usage.input_tokens": 150,
             "gen_ai.usage.output_tokens": 20}
    if outputs is not None:
        attrs["gen_ai.output.messages"] = json.dumps(outputs)
    return span(number, "chat gpt-4o-mini", parent=parent, attrs=attrs)


def _tool(number: int, parent: int, call_id: str, name: str, arguments: str) -> object:
    return span(number, f"execute_tool {name}", parent=parent, attrs={
        OP: "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function", "gen_ai.tool.call.arguments": arguments, "gen_ai.tool.call.result": "denied",
    })


def _proposals(trajectory: object) -> list[str]:
    return sorted(n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL)  # type: ignore[attr-defined]


def test_the_agent_span_reporting_its_model_calls_output_adds_no_second_proposal() -> None:
    trajectory = map_spans([
        _agent(1, "support_agent", [DELETE, _result("call_1", "denied"), ANSWER], tools=("delete_file",)),
        _chat(2, 1, [USER], [DELETE]),
        _tool(3, 1, "call_1", "delete_file", '{"path": "/shared/old.csv"}'),
        _chat(4, 1, [USER, DELETE, _result("call_1", "denied")], [ANSWER]),
    ])
    assert _proposals(trajectory) == [node_id(2, "call:call_1")]
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION


def test_a_sub_agent_used_as_a_tool_leaves_its_calls_to_its_own_model_call() -> None:
    lookup = _call("call_2", "lookup_order", '{"order_id": "A-1001"}')
    delegate = _call("call_1", "billing_agent", '{"task": "refund A-1001"}')
    trajectory = map_spans([
        _agent(1, "triage_agent", [delegate, _result("call_1", "done"), ANSWER], tools=("billing_agent",)),
        _chat(2, 1, [USER], [delegate]),
        _tool(3, 1, "call_1", "billing_agent", '{"task": "refund A-1001"}'),
        _agent(4, "billing_agent", [lookup, _result("call_2", "shipped"), ANSWER], parent=3, tools=("lookup_order",)),
        _chat(5, 4, [USER], [lookup]),
        _tool(6, 4, "call_2", "lookup_order", '{"order_id": "A-1001"}'),
        _chat(7, 4, [USER, lookup, _result("call_2", "shipped")], [ANSWER]),
        _chat(8, 1, [USER, delegate, _result("call_1", "done")], [ANSWER]),
    ])
    assert _proposals(trajectory) == [node_id(2, "call:call_1"), node_id(5, "call:call_2")]
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(5, "call:call_2"))


def test_calls_without_ids_are_matched_by_name_and_arguments() -> None:
    call = {"role": "assistant", "parts": [{"type": "tool_call", "name": "get_weather", "arguments": '{"city": "Oslo"}'}]}
    trajectory = map_spans([_agent(1, "support_agent", [call, ANSWER]), _chat(2, 1, [USER], [call])])
    assert [n.id.split("#")[0] for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL] == [node_id(2)]


def test_a_call_no_model_call_proposes_stays_on_the_agent_span() -> None:
    # A remote agent whose model calls are not traced: its reported calls are the only evidence of them.
    trajectory = map_spans([_agent(1, "remote_agent", [DELETE, ANSWER]), _chat(2, 1, [USER], [ANSWER])])
    assert _proposals(trajectory) == [node_id(1, "call:call_1")]


def test_model_calls_without_recorded_output_keep_the_agent_spans_calls() -> None:
    trajectory = map_spans([_agent(1, "support_agent", [DELETE, ANSWER]), _chat(2, 1, [USER], None)])
    assert _proposals(trajectory) == [node_id(1, "call:call_1")]


def test_agent_usage_under_the_model_call_keys_is_declared_an_aggregate() -> None:
    trajectory = map_spans([_agent(1, "support_agent", [ANSWER]), _chat(2, 1, [USER], [ANSWER])])
    assert get_node(trajectory, node_id(2)).usage is not None
    (declared,) = [d for d in trajectory.declarations if d.category is DeclarationCategory.USAGE_AGGREGATION]
    assert declared.qualifier == "ignored" and declared.count == 1
