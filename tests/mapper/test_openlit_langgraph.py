"""OpenLIT's LangChain and LangGraph spans (:mod:`otel_mapper.mapping.openlit_graph`,
:mod:`otel_mapper.mapping.readers.openlit_langchain`) and tool results a model input keeps without their call ids
(:func:`otel_mapper.mapping.prefix.conversation_prefix_results`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.mapping.messages import read_input_messages, result_text_digest
from otel_mapper.model import Trajectory
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from semconv import openlit
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import envelopes, get_node, map_spans, node_id, span

USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris and Oslo?"}]}
EMPTY_TURN = {"role": "assistant", "parts": [{"type": "text", "content": ""}]}


def _tool_message(text: str) -> dict[str, Any]:
    return {"role": "tool", "parts": [{"type": "text", "content": text}]}


def _map(langgraph: Sequence[Span], langchain: Sequence[Span]) -> Trajectory:
    items = envelopes(langgraph, scope=openlit.LANGGRAPH_SCOPE) if langgraph else []
    items += envelopes(langchain, scope=openlit.LANGCHAIN_SCOPE)
    return map_trace(items).trajectory


def _chat(response_id: str, calls: Sequence[tuple[str, str, dict[str, str]]], inputs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    parts = [{"type": "tool_call", "id": call_id, "name": name, "arguments": args} for call_id, name, args in calls]
    output = [{"role": "assistant", "parts": parts or [{"type": "text", "content": "Done."}]}]
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.id": response_id, "gen_ai.input.messages": json.dumps(list(inputs)),
            "gen_ai.output.messages": json.dumps(output)}


def _tool(name: str, call_id: str | None, arguments: str, result: str | None = None) -> dict[str, Any]:
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function",
             "gen_ai.tool.call.id": call_id or "01a23b41-7a0d-77df-86a1-218a07241c8f",  # the run id, at start
             "gen_ai.tool.call.arguments": arguments}
    if result is not None:
        attrs["gen_ai.tool.call.result"] = f"content='{result}' name='{name}' tool_call_id='{call_id}'"
    return attrs


def _run(name: str) -> dict[str, Any]:
    return {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "langchain", "gen_ai.agent.name": name}


def _wrapper(node: str, response_id: str | None = None) -> dict[str, Any]:
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "langgraph", "gen_ai.agent.name": node,
             "gen_ai.agent.id": node, "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 10}
    if response_id:
        attrs["gen_ai.response.id"] = response_id
    return attrs


GRAPH = {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "support_agent"}


def _react_run() -> tuple[list[Span], list[Span]]:
    """One ReAct graph run as OpenLIT records it: graph span 1 -> graph run 2 -> node run 3 (chat 4), tool 5 and node
    run 6 (chat 7) under the graph run; node wrappers 8 and 9 childless under the graph span."""
    langgraph = [span(1, "invoke_workflow support_agent", attrs=GRAPH),
                 span(8, "invoke_agent agent", parent=1, attrs=_wrapper("agent", "resp-1")),
                 span(9, "invoke_agent agent", parent=1, attrs=_wrapper("agent", "resp-2"))]
    langchain = [span(2, "invoke_agent support_agent", parent=1, attrs=_run("support_agent")),
                 span(3, "invoke_agent agent", parent=2, attrs=_run("agent")),
                 span(4, "chat gpt-4o-mini", parent=3, attrs=_chat("resp-1", [("call_1", "get_weather", {"city": "Paris"})], [USER])),
                 span(5, "execute_tool get_weather", parent=2, attrs=_tool("get_weather", "call_1", "{'city': 'Paris'}", "Sunny")),
                 span(6, "invoke_agent agent", parent=2, attrs=_run("agent")),
                 span(7, "chat gpt-4o-mini", parent=6, attrs=_chat("resp-2", [], [USER, EMPTY_TURN, _tool_message("Sunny")]))]
    return langgraph, langchain


def test_the_graph_run_is_the_agent_and_its_node_runs_are_steps() -> None:
    trajectory = _map(*_react_run())
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    for node_run in (3, 6):
        assert get_node(trajectory, node_id(node_run)).kind is NodeKind.WORKFLOW_STEP
    agents = [node for node in trajectory.nodes if node.kind is NodeKind.AGENT_INVOCATION]
    assert [node.id for node in agents] == [node_id(2)]


def test_the_graph_span_and_node_wrappers_are_merged_into_their_runs() -> None:
    trajectory = _map(*_react_run())
    ids = {node.id for node in trajectory.nodes}
    assert not ids & {node_id(1), node_id(8), node_id(9)}  # references of the runs' nodes, not nodes of their own
    merged = [d for d in trajectory.declarations if d.qualifier == "merged"]
    assert sum(d.count or 0 for d in merged) == 3


def test_wrapper_usage_is_not_counted_twice() -> None:
    trajectory = _map(*_react_run())
    calls = [node for node in trajectory.nodes if node.kind is NodeKind.MODEL_CALL and node.usage is not None]
    assert calls == []  # the chats record no usage: the wrappers' copies of it are not model calls' usage


def test_a_wrapper_without_its_node_run_is_a_step() -> None:
    langgraph = [span(1, "invoke_workflow LangGraph", attrs={**GRAPH, "gen_ai.workflow.name": "LangGraph"}),
                 span(8, "invoke_agent billing_agent", parent=1, attrs=_wrapper("billing_agent"))]
    langchain = [span(2, "invoke_agent triage_agent", parent=1, attrs=_run("triage_agent")),
                 span(3, "chat gpt-4o-mini", parent=2, attrs=_chat("resp-1", [], [USER]))]
    trajectory = _map(langgraph, langchain)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP  # the graph run's only record
    assert get_node(trajectory, node_id(8)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(8)).agent_name is None
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION


def test_a_wrapper_with_no_response_pairs_with_the_one_run_of_its_name_beside_it() -> None:
    """A supervisor's node (its function runs an agent graph): wrapper and node run siblings under the graph span."""
    langgraph = [span(1, "invoke_workflow LangGraph", attrs={**GRAPH, "gen_ai.workflow.name": "LangGraph"}),
                 span(8, "invoke_agent billing_agent", parent=1, attrs=_wrapper("billing_agent"))]
    langchain = [span(2, "invoke_agent billing_agent", parent=1, attrs=_run("billing_agent")),
                 span(3, "invoke_agent call_agent", parent=2, attrs=_run("call_agent")),
                 span(4, "invoke_agent billing_agent", parent=3, attrs=_run("billing_agent")),
                 span(5, "chat gpt-4o-mini", parent=4, attrs=_chat("resp-1", [], [USER]))]
    trajectory = _map(langgraph, langchain)
    assert trajectory.node(node_id(8)) is None  # merged into the node run 2
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(3)).kind is NodeKind.WORKFLOW_STEP  # holds another agent's work only
    assert get_node(trajectory, node_id(4)).kind is NodeKind.AGENT_INVOCATION


def test_without_langgraph_spans_langchain_runs_keep_their_kind() -> None:
    trajectory = _map([], [span(2, "invoke_agent helper_agent", attrs=_run("helper_agent")),
                           span(3, "invoke_agent agent", parent=2, attrs=_run("agent"))])
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(3)).kind is NodeKind.AGENT_INVOCATION


def test_a_failed_graph_span_with_no_operation_is_a_step() -> None:
    """OpenLIT's graph span on error carries ``gen_ai.workflow.name`` and ``error.type`` only."""
    failed = {"gen_ai.workflow.name": "support_agent", "error.type": "OpenAIAPIError"}
    trajectory = map_spans([span(1, "invoke_workflow support_agent", attrs=failed, error="500"),
                            span(2, "support_agent", parent=1, attrs=failed, error="500")])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP  # named otherwise: still no model call


def test_langchain_tool_input_text_is_read_as_a_literal() -> None:
    trajectory = _map(*_react_run())
    execution = get_node(trajectory, node_id(5))
    assert json.loads(execution.arguments or "") == {"city": "Paris"}
    assert execution.arguments_json
    config = Config()
    diagnosis = DetectorChain(load_detectors(config.detectors), config.detectors).run(trajectory)
    assert "invalid_tool_arguments" not in {finding.finding.category.value for finding in diagnosis.chain}


def test_a_single_input_tool_s_bare_text_claims_no_json() -> None:
    trajectory = _map([], [span(5, "execute_tool search", attrs=_tool("search", "call_1", "Paris", "ok"))])
    execution = get_node(trajectory, node_id(5))
    assert execution.arguments == "Paris"
    assert not execution.arguments_json


def test_the_run_id_is_no_call_id() -> None:
    """A failed tool ends with no ToolMessage: OpenLIT's call id attribute keeps the LangChain run id."""
    trajectory = _map([], [span(5, "execute_tool lookup", attrs=_tool("lookup", None, "{'order_id': 'A-1'}"), error="boom"),
                           span(6, "execute_tool lookup", attrs=_tool("lookup", "call_2", "{'order_id': 'A-2'}", "ok"))])
    assert get_node(trajectory, node_id(5)).tool_call_id is None
    assert get_node(trajectory, node_id(6)).tool_call_id == "call_2"


def test_a_failed_tool_run_joins_its_proposal_by_arguments() -> None:
    langchain = [span(2, "invoke_agent support_agent", attrs=_run("support_agent")),
                 span(4, "chat gpt-4o-mini", parent=2, attrs=_chat("resp-1", [("call_1", "lookup", {"order_id": "A-1"})], [USER])),
                 span(5, "execute_tool lookup", parent=2, attrs=_tool("lookup", None, "{'order_id': 'A-1'}"), error="boom")]
    trajectory = _map([], langchain)
    caused_by = {edge.to_node for edge in trajectory.edges if edge.from_node == node_id(5) and edge.type is EdgeType.CAUSED_BY}
    assert node_id(4, "call:call_1") in caused_by


def _depends_on(trajectory: Trajectory, consumer: int) -> dict[str, str]:
    return {edge.to_node: edge.evidence for edge in trajectory.edges
            if edge.from_node == node_id(consumer) and edge.type is EdgeType.DEPENDS_ON}


def test_a_result_without_call_id_is_joined_by_the_conversation_prefix() -> None:
    trajectory = _map(*_react_run())
    assert "conversation prefix" in _depends_on(trajectory, 7)[node_id(5)]


def _parallel(results: tuple[str, str], consumed: tuple[str, str]) -> Trajectory:
    calls = [("call_1", "get_weather", {"city": "Paris"}), ("call_2", "get_weather", {"city": "Oslo"})]
    return _map([], [
        span(2, "invoke_agent support_agent", attrs=_run("support_agent")),
        span(3, "chat gpt-4o-mini", parent=2, attrs=_chat("resp-1", calls, [USER])),
        span(4, "execute_tool get_weather", parent=2, attrs=_tool("get_weather", "call_1", "{'city': 'Paris'}", results[0])),
        span(5, "execute_tool get_weather", parent=2, attrs=_tool("get_weather", "call_2", "{'city': 'Oslo'}", results[1])),
        span(6, "chat gpt-4o-mini", parent=2,
             attrs=_chat("resp-2", [], [USER, EMPTY_TURN, _tool_message(consumed[0]), _tool_message(consumed[1])])),
    ])


def test_parallel_results_without_call_ids_are_told_apart_by_their_text() -> None:
    consumed = _depends_on(_parallel(("Sunny", "Rain"), ("Rain", "Sunny")), 6)
    assert set(consumed) == {node_id(4), node_id(5)}
    assert all("returned this text" in evidence for evidence in consumed.values())


def test_results_with_the_same_text_are_not_guessed() -> None:
    assert _depends_on(_parallel(("Sunny", "Sunny"), ("Sunny", "Sunny")), 6) == {}


def test_a_result_text_no_run_returned_joins_nothing() -> None:
    assert _depends_on(_parallel(("Sunny", "Rain"), ("Snow", "Hail")), 6) == {}


def test_only_the_last_turn_s_results_are_read_again() -> None:
    """Earlier turns' results were read by the call they were new to: a long run is not re-read on every call."""
    value = [USER, EMPTY_TURN, _tool_message("Sunny"), EMPTY_TURN, _tool_message("Rain"), _tool_message("Snow")]
    id_less: list[tuple[int, int, str]] = []
    read_input_messages(value, id_less=id_less)
    assert id_less == [(4, 3, result_text_digest("Rain")), (5, 3, result_text_digest("Snow"))]
    id_less.clear()
    # no assistant turn before it: read at its own place, the turn it answers left to the conversation prefix
    # (:mod:`otel_mapper.mapping.prefix`, which joins it only to a call whose input ends there)
    read_input_messages([USER, _tool_message("Sunny")], id_less=id_less)
    assert id_less == [(1, 1, result_text_digest("Sunny"))]
