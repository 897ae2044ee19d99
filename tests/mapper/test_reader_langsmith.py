"""LangSmith's OTel spans (:mod:`otel_mapper.mapping.readers.langsmith`): kinds from ``langsmith.span.kind``, LangChain
runs' inputs and outputs as one JSON text in ``gen_ai.prompt`` / ``gen_ai.completion`` (constructor-form messages, the
``LLMResult``), plain LangGraph metadata, errors from the status and from an ``exception`` event under an OK status."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

SCOPE = "langsmith"
SYSTEM = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "SystemMessage"],
          "kwargs": {"content": "be helpful", "type": "system"}}
USER = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
        "kwargs": {"content": "weather in Paris?", "type": "human"}}
CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}


def _ai(content: str, *calls: dict[str, Any]) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
            "kwargs": {"content": content, "type": "ai", "tool_calls": list(calls), "invalid_tool_calls": []}}


def _tool_message(call_id: str, content: str) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
            "kwargs": {"content": content, "type": "tool", "tool_call_id": call_id, "status": "success"}}


def _result(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {"generations": [[{"text": "", "generation_info": {"finish_reason": finish}, "type": "ChatGeneration",
                              "message": message}]],
            "llm_output": {"id": f"chatcmpl-{id(message)}", "model_name": "gpt-4o-mini-2024-07-18"}, "type": "LLMResult"}


def _graph(node: str, step: int, namespace: str) -> dict[str, Any]:
    """LangGraph run metadata as the exporter writes it: plain values, one attribute per key."""
    return {"langsmith.metadata.langgraph_node": node, "langsmith.metadata.langgraph_step": step,
            "langsmith.metadata.langgraph_checkpoint_ns": namespace}


def _chain(number: int, name: str, parent: int | None = None, **attrs: Any) -> Any:
    return span(number, name, parent=parent, attrs={"langsmith.span.kind": "chain", "gen_ai.operation.name": "chain",
                                                    "gen_ai.system": "langchain", **attrs})


def _model(number: int, parent: int, messages: list[Any], output: dict[str, Any] | None, **attrs: Any) -> Any:
    values: dict[str, Any] = {
        "langsmith.span.kind": "llm", "gen_ai.operation.name": "chat", "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o-mini", "langsmith.metadata.ls_provider": "openai",
        "gen_ai.prompt": json.dumps({"messages": [messages]}),
        "gen_ai.tool.definitions": json.dumps([{"type": "function", "function": {"name": "get_weather"}}]),
        "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20, **attrs,
    }
    if output is not None:
        values["gen_ai.completion"] = json.dumps(output)
    return span(number, "ChatOpenAI", parent=parent, attrs=values)


def _tool(number: int, parent: int, name: str, arguments: str, output: dict[str, Any], **attrs: Any) -> Any:
    return span(number, name, parent=parent, attrs={
        "langsmith.span.kind": "tool", "gen_ai.operation.name": "execute_tool", "gen_ai.system": "langchain",
        "gen_ai.tool.name": name, "gen_ai.prompt": arguments, "gen_ai.completion": json.dumps({"output": output}),
        **attrs,
    })


def _exception(message: str) -> tuple[str, dict[str, Any]]:
    return ("exception", {"exception.type": "Exception", "exception.message": message, "exception.escaped": "False"})


def _react_run() -> list[Any]:
    """A ReAct agent's run: model call proposing call_1, the tool run of call_1, model call consuming its result."""
    result = {"content": "Paris: sunny", "type": "tool", "name": "get_weather", "tool_call_id": "call_1",
              "status": "success"}
    return [
        _chain(1, "support_agent"),
        _chain(2, "agent", 1, **_graph("agent", 1, "agent:1")),
        _chain(3, "RunnableSequence", 2, **_graph("agent", 1, "agent:1"), **{
            "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}),
        _model(4, 3, [SYSTEM, USER], _result(_ai("", CALL), "tool_calls"), **_graph("agent", 1, "agent:1")),
        _chain(5, "tools", 1, **_graph("tools", 2, "tools:2")),
        _tool(6, 5, "get_weather", '{"city":"Paris"}', result, **{"gen_ai.tool.call.id": "call_1"}),
        _model(7, 1, [SYSTEM, USER, _ai("", CALL), _tool_message("call_1", "Paris: sunny")], _result(_ai("Sunny."))),
    ]


def test_kinds_come_from_the_run_type_and_only_the_graph_run_is_an_agent() -> None:
    trajectory = map_spans(_react_run(), scope=SCOPE)
    agent = get_node(trajectory, node_id(1))
    assert (agent.kind, agent.agent_name, agent.convention) == (NodeKind.AGENT_INVOCATION, "support_agent", "langsmith")
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP  # the node "agent", no graph of its own
    call = get_node(trajectory, node_id(4))
    assert (call.kind, call.model, call.provider) == (NodeKind.MODEL_CALL, "gpt-4o-mini-2024-07-18", "openai")
    assert call.finish_reasons == ("tool_calls",)
    assert call.invocation == node_id(1)
    assert get_node(trajectory, node_id(6)).kind is NodeKind.TOOL_EXECUTION
    assert has_edge(trajectory, node_id(5), EdgeType.SEQUENCED_AFTER, node_id(2))


def test_a_call_is_proposed_in_the_llm_result_run_by_its_id_and_consumed_from_the_next_input() -> None:
    trajectory = map_spans(_react_run(), scope=SCOPE)
    proposal = node_id(4, "call:call_1")
    assert get_node(trajectory, proposal).tool_name == "get_weather"
    run = get_node(trajectory, node_id(6))
    assert (run.tool_call_id, run.arguments, run.arguments_json, run.result_visible) == (
        "call_1", '{"city":"Paris"}', True, True)
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(6))


def test_usage_is_the_model_call_s_and_a_chain_s_copy_is_an_aggregate() -> None:
    trajectory = map_spans(_react_run(), scope=SCOPE)
    usage = get_node(trajectory, node_id(4)).usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (100, 20)
    assert get_node(trajectory, node_id(3)).usage is None


def test_without_a_call_id_attribute_the_call_id_is_the_returned_tool_message_s() -> None:
    result = {"content": "Paris: sunny", "type": "tool", "tool_call_id": "call_1", "status": "success"}
    spans = [*_react_run()[:5], _tool(6, 5, "get_weather", '{"city":"Paris"}', result)]
    trajectory = map_spans(spans, scope=SCOPE)
    assert get_node(trajectory, node_id(6)).tool_call_id == "call_1"
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(4, "call:call_1"))


def test_a_handoff_tool_of_langgraph_supervisor_is_a_handoff() -> None:
    transfer = {"name": "transfer_to_billing_agent", "args": {}, "id": "call_h", "type": "tool_call"}
    trajectory = map_spans([
        _chain(1, "triage_agent"),
        _model(2, 1, [USER], _result(_ai("", transfer), "tool_calls")),
        _tool(3, 1, "transfer_to_billing_agent", "{}", {"graph": "__parent__", "goto": "billing_agent"}, **{
            "gen_ai.tool.call.id": "call_h", "langsmith.metadata.__handoff_destination": "billing_agent"}),
    ], scope=SCOPE)
    handoff = get_node(trajectory, node_id(3))
    assert (handoff.kind, handoff.handoff_to) == (NodeKind.HANDOFF, "billing_agent")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_h"))


def test_an_exception_event_under_an_ok_status_is_the_run_s_error() -> None:
    """The exporter created the span OK before the run failed: the event is the only record of the error."""
    message = "OpenAITimeoutError('Request timed out.')Traceback (most recent call last): ..."
    trajectory = map_spans([
        span(1, "support_agent", attrs={"langsmith.span.kind": "chain"}, events=[_exception(message)]),
        span(2, "ChatOpenAI", parent=1, attrs={
            "langsmith.span.kind": "llm", "gen_ai.prompt": json.dumps({"messages": [[USER]]}),
            "gen_ai.completion": json.dumps({"generations": [[]], "llm_output": None})}, events=[_exception(message)]),
        span(3, "ChatOpenAI", parent=1, attrs={"langsmith.span.kind": "llm"}),
    ], scope=SCOPE)
    call = get_node(trajectory, node_id(2))
    assert (call.status, call.error_type) == (NodeStatus.FAILED, "OpenAITimeoutError")
    assert get_node(trajectory, node_id(1)).status is NodeStatus.FAILED
    assert get_node(trajectory, node_id(3)).status is not NodeStatus.FAILED


def test_a_failed_status_keeps_its_http_code_and_a_routing_exception_is_no_failure() -> None:
    rate_limited = "OpenAIRateLimitError('Error code: 429 - Rate limit reached')Traceback ..."
    routing = "ParentCommand(Command(graph='__parent__', goto='billing_agent'))"
    trajectory = map_spans([
        _chain(1, "triage_agent"),
        span(2, "ChatOpenAI", parent=1, error="", attrs={"langsmith.span.kind": "llm"},
             events=[_exception(rate_limited)]),
        span(3, "tools", parent=1, error="", attrs={"langsmith.span.kind": "chain"}, events=[_exception(routing)]),
    ], scope=SCOPE)
    call = get_node(trajectory, node_id(2))
    assert (call.status, call.http_status, call.error_type) == (NodeStatus.FAILED, 429, "OpenAIRateLimitError")
    assert get_node(trajectory, node_id(3)).status is not NodeStatus.FAILED


def test_spans_are_claimed_by_the_scope_or_the_run_type_only() -> None:
    genai_only = span(1, "chat gpt-4o-mini", attrs={"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"})
    assert get_node(map_spans([genai_only], scope="other"), node_id(1)).convention == "otel_genai"
    assert get_node(map_spans([genai_only], scope=SCOPE), node_id(1)).convention == "langsmith"
    by_kind = span(1, "get_weather", attrs={"langsmith.span.kind": "tool", "gen_ai.tool.name": "get_weather"})
    node = get_node(map_spans([by_kind], scope="other"), node_id(1))
    assert (node.convention, node.kind, node.tool_name) == ("langsmith", NodeKind.TOOL_EXECUTION, "get_weather")
