"""Langfuse's own spans (:mod:`otel_mapper.mapping.readers.langfuse`): kinds from ``langfuse.observation.type``,
LangChain message dicts with the offered tools appended, JSON-encoded flattened metadata (tool-call ids, LangGraph
run metadata), usage details, errors from the status and the level."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import edges_from, get_node, has_edge, kinds, map_spans, node_id, span

SYSTEM = {"role": "system", "content": "be helpful"}
USER = {"role": "user", "content": "weather in Paris?"}
CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}
ASSISTANT = {"role": "assistant", "content": "", "tool_calls": [CALL], "additional_kwargs": {"refusal": None}}
RESULT = {"role": "tool", "content": "Paris: sunny", "tool_call_id": "call_1"}
WEATHER_TOOL = {"role": "tool", "content": {"type": "function", "function": {
    "name": "get_weather", "description": "Weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}}
USAGE = {"input": 100, "output": 20, "total": 120, "input_audio": 0, "input_cache_read": 0,
         "output_audio": 0, "output_reasoning": 0}


def _lf(observation_type: str, attrs: dict[str, Any] | None = None, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Attributes as Langfuse 5.0.4 writes them: structured values as JSON text (a string as it is), one attribute
    per metadata key with a JSON-encoded value."""
    result: dict[str, Any] = {"langfuse.observation.type": observation_type}
    for key, value in (attrs or {}).items():
        result[f"langfuse.observation.{key}"] = value if isinstance(value, str) else json.dumps(value)
    for key, value in (metadata or {}).items():
        result[f"langfuse.observation.metadata.{key}"] = json.dumps(value)
    return result


def _generation(number: int, parent: int, inputs: Any, output: Any, **metadata: Any) -> Any:
    return span(number, "ChatOpenAI", parent=parent, attrs=_lf("generation", {
        "input": inputs, "output": output, "model.name": "gpt-4o-mini-2024-07-18", "usage_details": USAGE,
    }, {"ls_provider": "openai", **metadata}))


def _tool(number: int, parent: int, name: str, inputs: Any, output: Any, **metadata: Any) -> Any:
    return span(number, name, parent=parent, attrs=_lf("tool", {"input": inputs, "output": output}, metadata))


def _tool_loop() -> list[Any]:
    """An agent run: model call, tool run by call id, model call consuming the result."""
    return [
        span(1, "support_agent", attrs=_lf("agent", {"input": {"messages": [USER]}})),
        _generation(2, 1, [SYSTEM, USER, WEATHER_TOOL], ASSISTANT),
        _tool(3, 1, "get_weather", {"city": "Paris"}, {"content": "Paris: sunny", "type": "tool"}, tool_call_id="call_1"),
        _generation(4, 1, [SYSTEM, USER, ASSISTANT, RESULT, WEATHER_TOOL], {"role": "assistant", "content": "Sunny."}),
        span(5, "should_continue", parent=1, attrs=_lf("chain", {"input": {"messages": []}, "output": "__end__"})),
        span(6, "score", parent=1, attrs=_lf("span")),
    ]


def test_kinds_model_and_provider_come_from_the_observation() -> None:
    trajectory = map_spans(_tool_loop())
    agent = get_node(trajectory, node_id(1))
    assert (agent.kind, agent.agent_name, agent.convention) == (NodeKind.AGENT_INVOCATION, "support_agent", "langfuse")
    call = get_node(trajectory, node_id(2))
    assert (call.kind, call.model, call.provider) == (NodeKind.MODEL_CALL, "gpt-4o-mini-2024-07-18", "openai")
    assert get_node(trajectory, node_id(3)).kind is NodeKind.TOOL_EXECUTION
    assert get_node(trajectory, node_id(5)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(6)).kind is NodeKind.OTHER


def test_a_tool_call_is_proposed_run_and_consumed_by_its_json_quoted_call_id() -> None:
    trajectory = map_spans(_tool_loop())
    proposal = node_id(2, "call:call_1")
    assert get_node(trajectory, proposal).tool_name == "get_weather"
    run = get_node(trajectory, node_id(3))
    assert (run.tool_call_id, run.arguments, run.arguments_json) == ("call_1", '{"city":"Paris"}', True)
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_the_appended_tool_definitions_are_the_offered_tools_and_no_message() -> None:
    rejection = {"role": "tool", "content": "Error: fetch_invoice is not a valid tool, try one of [get_weather].",
                 "tool_call_id": "call_9"}
    asked = {"role": "assistant", "content": "", "tool_calls": [{**CALL, "name": "fetch_invoice", "id": "call_9"}]}
    trajectory = map_spans([
        span(1, "support_agent", attrs=_lf("agent")),
        _generation(2, 1, [SYSTEM, USER, asked, rejection, WEATHER_TOOL], {"role": "assistant", "content": "Sorry."}),
    ])
    call = get_node(trajectory, node_id(2))
    assert call.tool_definitions == ("get_weather",)
    assert call.unknown_tools == ("fetch_invoice",)


def test_usage_adds_back_the_details_langfuse_subtracted() -> None:
    usage = {"input": 70, "output": 15, "total": 120, "input_cache_read": 30, "output_reasoning": 5,
             "input_priority": 70}  # priority tiers are not subtracted: not added back
    generation = span(2, "ChatOpenAI", parent=1, attrs=_lf("generation", {
        "input": [USER], "output": {"role": "assistant", "content": "hi"}, "usage_details": usage}))
    trajectory = map_spans([span(1, "support_agent", attrs=_lf("agent")), generation])
    found = get_node(trajectory, node_id(2)).usage
    assert found is not None
    assert (found.input_tokens, found.output_tokens, found.cached_input_tokens) == (100, 20, 30)


def test_usage_on_an_agent_span_is_an_aggregate_never_counted() -> None:
    trajectory = map_spans([span(1, "support_agent", attrs=_lf("agent", {"usage_details": USAGE}))])
    assert get_node(trajectory, node_id(1)).usage is None
    assert any(d.category.value == "usage_aggregation" for d in trajectory.declarations)


def _graph(node: str, step: int, namespace: str) -> dict[str, Any]:
    return {"langgraph_node": node, "langgraph_step": step, "langgraph_checkpoint_ns": namespace}


def test_only_the_run_of_an_agent_graph_is_an_agent_and_nodes_are_sequenced() -> None:
    """langgraph-supervisor: the supervisor's node ``billing_agent`` -> the billing agent's graph run -> its ``agent``
    node (typed ``agent`` for its name) and ``tools`` node; only the graph run is an agent invocation."""
    billing = "billing_agent:1"
    trajectory = map_spans([
        span(1, "LangGraph", attrs=_lf("chain")),
        span(2, "billing_agent", parent=1, attrs=_lf("agent", metadata=_graph("billing_agent", 2, billing))),
        span(3, "billing_agent", parent=2, attrs=_lf("agent", metadata=_graph("billing_agent", 2, billing))),
        span(4, "agent", parent=3, attrs=_lf("agent", metadata=_graph("agent", 1, f"{billing}|agent:2"))),
        _generation(5, 4, [SYSTEM, USER, WEATHER_TOOL], ASSISTANT, **_graph("agent", 1, f"{billing}|agent:2")),
        span(6, "tools", parent=3, attrs=_lf("chain", metadata=_graph("tools", 2, f"{billing}|tools:3"))),
    ])
    assert get_node(trajectory, node_id(3)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(4)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(5)).invocation == node_id(3)
    assert has_edge(trajectory, node_id(6), EdgeType.SEQUENCED_AFTER, node_id(4))


def test_a_handoff_tool_of_langgraph_supervisor_is_a_handoff() -> None:
    transfer = {"name": "transfer_to_billing_agent", "args": {}, "id": "call_h", "type": "tool_call"}
    trajectory = map_spans([
        span(1, "triage_agent", attrs=_lf("agent")),
        _generation(2, 1, [USER], {"role": "assistant", "content": "", "tool_calls": [transfer]}),
        _tool(3, 1, "transfer_to_billing_agent", {}, {"graph": "__parent__", "goto": "billing_agent"},
              tool_call_id="call_h", __handoff_destination="billing_agent"),
    ])
    handoff = get_node(trajectory, node_id(3))
    assert (handoff.kind, handoff.handoff_to) == (NodeKind.HANDOFF, "billing_agent")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_h"))


def test_without_the_metadata_the_call_id_is_the_returned_tool_message_s() -> None:
    message = {"content": "Paris: sunny", "type": "tool", "name": "get_weather", "tool_call_id": "call_1",
               "status": "success"}
    trajectory = map_spans([
        span(1, "support_agent", attrs=_lf("agent")),
        _generation(2, 1, [USER], ASSISTANT),
        _tool(3, 1, "get_weather", {"city": "Paris"}, message),
    ])
    assert get_node(trajectory, node_id(3)).tool_call_id == "call_1"
    (edge,) = [e for e in edges_from(trajectory, node_id(3), EdgeType.CAUSED_BY) if e.to_node != node_id(1)]
    assert edge.to_node == node_id(2, "call:call_1") and "ToolMessage" in edge.evidence


def test_a_plain_text_tool_input_is_no_json_and_a_python_dict_is_read_as_its_literal() -> None:
    trajectory = map_spans([
        span(1, "support_agent", attrs=_lf("agent")),
        _tool(2, 1, "search_docs", "refund policy", "found"),
        _tool(3, 1, "get_weather", "{'city': 'Paris'}", "sunny"),
    ])
    plain = get_node(trajectory, node_id(2))
    assert (plain.arguments, plain.arguments_json) == ("refund policy", False)
    literal = get_node(trajectory, node_id(3))
    assert (literal.arguments, literal.arguments_json) == ('{"city":"Paris"}', True)


def test_a_failed_generation_has_its_status_and_http_code_and_no_hidden_output() -> None:
    failed = span(2, "ChatOpenAI", parent=1, error="Error code: 429 - Rate limit reached", attrs=_lf("generation", {
        "input": [USER, WEATHER_TOOL], "level": "ERROR", "status_message": "Error code: 429 - Rate limit reached"}))
    trajectory = map_spans([span(1, "support_agent", attrs=_lf("agent")), failed])
    call = get_node(trajectory, node_id(2))
    assert (call.kind, call.status, call.http_status) == (NodeKind.MODEL_CALL, NodeStatus.FAILED, 429)
    assert not [d for d in trajectory.declarations if d.qualifier == "not_captured"]


def test_the_error_level_alone_fails_the_span() -> None:
    """A span whose status was not set: the level and the status message attribute say it failed, and why."""
    failed = span(2, "ChatOpenAI", parent=1, attrs=_lf("generation", {
        "input": [USER], "level": "ERROR", "status_message": "Error code: 500 - The server had an error"}))
    trajectory = map_spans([span(1, "support_agent", attrs=_lf("agent")), failed])
    call = get_node(trajectory, node_id(2))
    assert (call.status, call.http_status) == (NodeStatus.FAILED, 500)
    assert call.error_message == "Error code: 500 - The server had an error"


def test_a_langgraph_routing_exception_is_no_failure() -> None:
    routing = span(2, "tools", parent=1, error="ParentCommand(Command(graph='__parent__', goto='billing_agent'))",
                   attrs=_lf("chain"))
    trajectory = map_spans([span(1, "triage_agent", attrs=_lf("agent")), routing])
    assert get_node(trajectory, node_id(2)).status is not NodeStatus.FAILED


def test_the_openai_integration_s_request_and_response_shapes() -> None:
    tools = [{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]
    call = {"id": "call_7", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}}
    trajectory = map_spans([
        span(1, "support_agent", attrs=_lf("agent")),
        span(2, "OpenAI-generation", parent=1, attrs=_lf("generation", {
            "input": {"messages": [USER], "tools": tools},
            "output": {"role": "assistant", "content": None, "tool_calls": [call]}})),
        _tool(3, 1, "lookup_order", {"order_id": "A-1"}, "shipped", tool_call_id="call_7"),
    ])
    assert get_node(trajectory, node_id(2)).tool_definitions == ("lookup_order",)
    proposal = get_node(trajectory, node_id(2, "call:call_7"))
    assert (proposal.tool_name, proposal.arguments) == ("lookup_order", '{"order_id":"A-1"}')
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposal.id)


def test_a_tool_call_that_did_not_parse_is_still_a_proposal() -> None:
    invalid = {"name": "get_weather", "args": "{city: Paris", "id": "call_bad", "error": "bad JSON",
               "type": "invalid_tool_call"}
    trajectory = map_spans([
        span(1, "support_agent", attrs=_lf("agent")),
        _generation(2, 1, [USER], {"role": "assistant", "content": "", "invalid_tool_calls": [invalid]}),
    ])
    assert get_node(trajectory, node_id(2, "call:call_bad")).tool_name == "get_weather"


def test_only_spans_with_a_langfuse_observation_type_are_claimed_and_no_other_convention_s() -> None:
    propagated = span(2, "GET /orders", parent=1, attrs={"langfuse.trace.metadata.ls_integration": '"langgraph"'})
    typed_genai = span(3, "chat gpt-4o-mini", parent=1, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
        "langfuse.observation.type": "generation"})
    trajectory = map_spans([span(1, "support_agent", attrs=_lf("agent")), propagated, typed_genai])
    assert get_node(trajectory, node_id(1)).convention == "langfuse"
    assert get_node(trajectory, node_id(2)).convention == "unknown"
    assert get_node(trajectory, node_id(3)).convention == "otel_genai"
    assert kinds(trajectory)["model_call"] == 1
