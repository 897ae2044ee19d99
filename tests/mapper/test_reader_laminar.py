"""Laminar's spans (:mod:`otel_mapper.mapping.readers.laminar`): the OpenAI Agents SDK's spans as ``lmnr`` 0.8.2 writes
them, typed only ``LLM`` / ``TOOL`` / ``DEFAULT`` and read from the span data; Chat Completions messages in
``gen_ai.input.messages`` / ``gen_ai.output.messages``; the SDK's errors as a status label plus an ``exception`` event
carrying the error data."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import AGENTS_SDK_RUN_KINDS, get_node, has_edge, map_spans, node_id, span

SCOPE = "lmnr.tracer"
SYSTEM = {"content": "be helpful", "role": "system"}
USER = {"role": "user", "content": "where is A-1?"}
CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}}
FAILED_REQUEST = "Error getting response"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _sdk_error(label: str, data: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """``apply_span_error``'s event: the label as the type, the data's JSON (else the label) as the message."""
    return ("exception", {"exception.type": label, "exception.message": _dumps(data) if data else label,
                          "exception.stacktrace": "", "exception.escaped": "False"})


def _lmnr(number: int, name: str, span_type: str, parent: int | None = None, *, label: str | None = None,
          data: dict[str, Any] | None = None, **attrs: Any) -> Any:
    """A Laminar span; ``label`` (and ``data``): the SDK error ``apply_span_error`` writes as status and event."""
    values = {"lmnr.span.type": span_type, "lmnr.span.path": ["Agent workflow"], "lmnr.span.sdk_version": "0.8.2",
              **attrs}
    return span(number, name, parent=parent, attrs=values, error=label,
                events=[_sdk_error(label, data)] if label else ())


def _agent(number: int, name: str, parent: int | None = None, **data: Any) -> Any:
    """An agent span: ``_apply_agent_span_data`` writes name, tools, handoffs and output_type as the input."""
    return _lmnr(number, name, "DEFAULT", parent, **{"lmnr.span.input": _dumps({"name": name, **data})})


def _assistant(content: str | None, *calls: dict[str, Any]) -> dict[str, Any]:
    """A ``ChatCompletionMessage.model_dump()`` as the generation's output holds it."""
    return {"content": content, "refusal": None, "role": "assistant", "annotations": None, "audio": None,
            "function_call": None, "tool_calls": list(calls) or None}


def _generation(number: int, parent: int, inputs: list[Any], outputs: list[Any] | None,
                error: dict[str, Any] | None = None, **attrs: Any) -> Any:
    """A generation; a failed one (``error``: the SDK error's data) records its input and no output."""
    values = {"gen_ai.input.messages": _dumps(inputs), "gen_ai.request.model": "gpt-4o-mini",
              "gen_ai.response.model": "gpt-4o-mini", "gen_ai.system": "openai", **attrs}
    if outputs is not None:
        values["gen_ai.output.messages"] = _dumps(outputs)
    return _lmnr(number, "agents.generation", "LLM", parent, label=FAILED_REQUEST if error else None, data=error,
                 **values)


def _run(*, tool_error: dict[str, Any] | None = None, turn_error: dict[str, Any] | None = None) -> list[Any]:
    """One ``Runner.run``: root, task, agent, turn 1 (generation proposing call_1, its function span), turn 2."""
    usage = {"input_tokens": 250, "output_tokens": 25, "requests": 2}
    replay = [SYSTEM, USER, {"role": "assistant", "content": None, "tool_calls": [CALL]},
              {"role": "tool", "tool_call_id": "call_1", "content": "shipped"}]
    return [
        _lmnr(1, "Agent workflow", "DEFAULT", **{
            "lmnr.association.properties.metadata.openai.agents.trace_name": "Agent workflow"}),
        _lmnr(2, "agents.task", "DEFAULT", 1, **{
            "openai.agents.task.name": "Agent workflow", "openai.agents.task.usage": _dumps(usage),
            "lmnr.span.input": _dumps({"name": "Agent workflow"}), "lmnr.span.output": _dumps(usage)}),
        _agent(3, "support_agent", 2, tools=["lookup_order"], output_type="str"),
        _lmnr(4, "agents.turn", "DEFAULT", 3, **{
            "openai.agents.turn.index": 1, "openai.agents.turn.agent_name": "support_agent",
            "openai.agents.turn.usage": _dumps({"input_tokens": 100, "output_tokens": 20})}),
        _generation(5, 4, [SYSTEM, USER], [_assistant(None, CALL)],
                    **{"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}),
        _lmnr(6, "lookup_order", "TOOL", 4, label="Error running tool (non-fatal)" if tool_error else None,
              data=tool_error, **{"lmnr.span.input": _dumps(_dumps({"order_id": "A-1"})),
                                  "lmnr.span.output": _dumps("shipped")}),
        _lmnr(7, "agents.turn", "DEFAULT", 3, label="Tool not found" if turn_error else None, data=turn_error, **{
            "openai.agents.turn.index": 2, "openai.agents.turn.agent_name": "support_agent",
            "lmnr.span.input": _dumps({"turn": 2, "agent_name": "support_agent"})}),
        _generation(8, 7, replay, [_assistant("It shipped.")],
                    **{"gen_ai.usage.input_tokens": 150, "gen_ai.usage.output_tokens": 5}),
    ]


def test_kinds_come_from_the_span_type_and_the_agents_sdk_span_data() -> None:
    trajectory = map_spans(_run(), scope=SCOPE)
    kinds = {number: get_node(trajectory, node_id(number)).kind for number in AGENTS_SDK_RUN_KINDS}
    assert kinds == AGENTS_SDK_RUN_KINDS
    agent = get_node(trajectory, node_id(3))
    assert (agent.convention, agent.agent_name, agent.tool_definitions) == ("laminar", "support_agent", ("lookup_order",))
    call = get_node(trajectory, node_id(5))
    assert (call.model, call.provider, call.invocation) == ("gpt-4o-mini", "openai", node_id(3))


def test_a_function_span_joins_its_proposal_by_name_and_twice_encoded_arguments() -> None:
    trajectory = map_spans(_run(), scope=SCOPE)
    proposal = node_id(5, "call:call_1")
    assert get_node(trajectory, proposal).tool_name == "lookup_order"
    run = get_node(trajectory, node_id(6))
    assert (run.tool_name, run.tool_call_id, run.arguments, run.result_visible) == (
        "lookup_order", None, '{"order_id":"A-1"}', True)
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(8), EdgeType.DEPENDS_ON, node_id(6))  # its input holds call_1's result


def test_only_the_generations_usage_counts_not_the_task_and_turn_roll_ups() -> None:
    trajectory = map_spans(_run(), scope=SCOPE)
    counted = {node.id: node for node in trajectory.nodes if node.usage is not None}
    assert sorted(counted) == [node_id(5), node_id(8)]
    assert {node.convention for node in counted.values()} == {"laminar"}
    assert sum(node.usage.input_tokens for node in counted.values() if node.usage is not None) == 250


def test_the_handoff_span_runs_the_transfer_tool_and_the_agent_offers_it() -> None:
    transfer = {"id": "call_h", "type": "function", "function": {"name": "transfer_to_billing_agent", "arguments": "{}"}}
    trajectory = map_spans([
        _lmnr(1, "agents.task", "DEFAULT", **{"openai.agents.task.name": "Agent workflow"}),
        _agent(2, "triage_agent", 1, handoffs=["billing_agent"], tools=["search_docs"], output_type="str"),
        _lmnr(3, "agents.turn", "DEFAULT", 2, **{"openai.agents.turn.index": 1}),
        _generation(4, 3, [USER], [_assistant(None, transfer)]),
        _lmnr(5, "agents.handoff", "TOOL", 3, **{
            "openai.agents.handoff.from": "triage_agent", "openai.agents.handoff.to": "billing_agent"}),
        _agent(6, "billing_agent", 1, tools=["lookup_order"], output_type="str"),
    ], scope=SCOPE)
    handoff = get_node(trajectory, node_id(5))
    assert (handoff.kind, handoff.handoff_from, handoff.handoff_to) == (NodeKind.HANDOFF, "triage_agent", "billing_agent")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(4, "call:call_h"))
    assert get_node(trajectory, node_id(2)).tool_definitions == ("search_docs", "transfer_to_billing_agent")


def test_a_failed_request_s_error_text_is_read_from_the_event_not_the_status_label() -> None:
    rate_limited = {"error": "Error code: 429 - Rate limit reached for gpt-4o-mini"}
    trajectory = map_spans([
        _lmnr(1, "support_agent", "DEFAULT", label="Error in agent run", data=rate_limited, **{
            "lmnr.span.input": _dumps({"name": "support_agent", "tools": ["get_weather"], "output_type": "str"})}),
        _generation(2, 1, [USER], None, error=rate_limited),
        _generation(3, 1, [USER], None, error={"error": "Request timed out."}),
    ], scope=SCOPE)
    limited = get_node(trajectory, node_id(2))
    assert (limited.status, limited.http_status, limited.error_type) == (NodeStatus.FAILED, 429, FAILED_REQUEST)
    assert limited.error_message is not None and limited.error_message.startswith("Error code: 429")
    assert get_node(trajectory, node_id(3)).error_message == "Request timed out."
    assert get_node(trajectory, node_id(1)).status is NodeStatus.FAILED
    assert not [d for d in trajectory.declarations if d.qualifier == "not_captured"]  # the failed calls answered nothing


def test_a_turn_s_tool_not_found_names_the_unknown_tool_from_the_event_data() -> None:
    turn = get_node(map_spans(_run(turn_error={"tool_name": "fetch_invoice"}), scope=SCOPE), node_id(7))
    assert (turn.status, turn.unknown_tools) == (NodeStatus.FAILED, ("fetch_invoice",))


def test_a_tool_that_raised_is_a_failed_run_with_the_sdk_s_error_text() -> None:
    error = {"tool_name": "lookup_order", "error": "Tool execution failed. Error details are redacted."}
    run = get_node(map_spans(_run(tool_error=error), scope=SCOPE), node_id(6))
    assert (run.status, run.error_message, run.unknown_tools) == (
        NodeStatus.FAILED, "Tool execution failed. Error details are redacted.", ())


def test_guardrail_custom_and_mcp_listing_spans() -> None:
    """Shapes from ``span_data.py``: guardrail and custom spans are ``DEFAULT``, an MCP listing is ``TOOL``."""
    trajectory = map_spans([
        _agent(1, "support_agent", output_type="str"),
        _lmnr(2, "agents.guardrail", "DEFAULT", 1, **{
            "openai.agents.guardrail.name": "no_pii", "openai.agents.guardrail.triggered": True}),
        _lmnr(3, "agents.guardrail", "DEFAULT", 1, **{
            "openai.agents.guardrail.name": "on_topic", "openai.agents.guardrail.triggered": False}),
        _lmnr(4, "audit", "DEFAULT", 1, **{
            "openai.agents.custom.name": "audit", "openai.agents.custom.data": _dumps({"name": "x", "tools": []})}),
        _lmnr(5, "agents.mcp_tools", "TOOL", 1, **{
            "openai.agents.mcp.server": "files", "openai.agents.mcp.result": _dumps(["read_file"]),
            "lmnr.span.input": _dumps({"server": "files"}), "lmnr.span.output": _dumps(["read_file"])}),
    ], scope=SCOPE)
    agent = get_node(trajectory, node_id(1))
    assert (agent.kind, agent.tool_definitions) == (NodeKind.AGENT_INVOCATION, None)  # no tools written: unknown
    tripped, passed = get_node(trajectory, node_id(2)), get_node(trajectory, node_id(3))
    assert (tripped.kind, tripped.error_type, tripped.status) == (
        NodeKind.GUARDRAIL, "guardrail_triggered", NodeStatus.COMMITTED)
    assert (passed.kind, passed.error_type) == (NodeKind.GUARDRAIL, None)
    assert get_node(trajectory, node_id(4)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(5)).kind is NodeKind.OTHER


def test_responses_api_items_are_read_as_the_messages_they_stand_for() -> None:
    """``agents.response`` spans: Responses items (output items with ``role`` stamped on), tool definitions."""
    call = {"arguments": '{"order_id": "A-1"}', "call_id": "call_r", "name": "lookup_order", "type": "function_call",
            "id": "fc_1", "status": "completed"}
    instructions = {"role": "system", "content": [{"type": "input_text", "text": "be helpful"}]}
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
              "content": [{"type": "output_text", "text": "It shipped.", "annotations": []}]}
    result = {"type": "function_call_output", "call_id": "call_r", "output": "shipped"}
    trajectory = map_spans([
        _agent(1, "support_agent", tools=["lookup_order"], output_type="str"),
        _lmnr(2, "agents.response", "LLM", 1, **{
            "gen_ai.input.messages": _dumps([instructions, USER]),
            "gen_ai.output.messages": _dumps([{**call, "role": "assistant"}, {"type": "reasoning", "role": "assistant"}]),
            "gen_ai.tool.definitions": _dumps([{"type": "function", "function": {"name": "lookup_order"}}]),
            "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.id": "resp_1"}),
        _lmnr(3, "lookup_order", "TOOL", 1, **{
            "lmnr.span.input": _dumps(call["arguments"]), "lmnr.span.output": _dumps("shipped")}),
        _lmnr(4, "agents.response", "LLM", 1, **{
            "gen_ai.input.messages": _dumps([instructions, USER, call, {"type": "reasoning"}, result]),
            "gen_ai.output.messages": _dumps([answer]), "gen_ai.request.model": "gpt-4o-mini"}),
    ], scope=SCOPE)
    assert get_node(trajectory, node_id(2)).tool_definitions == ("lookup_order",)
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_r"))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_a_chat_completions_choice_is_read_as_its_message() -> None:
    """Laminar's own OpenAI client instrumentation (``chat_wrappers.py``) writes the response's ``choices``."""
    choice = {"index": 0, "finish_reason": "tool_calls", "message": _assistant(None, CALL)}
    trajectory = map_spans([_lmnr(1, "openai.chat", "LLM", **{
        "gen_ai.input.messages": _dumps([USER]), "gen_ai.output.messages": _dumps([choice]),
        "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini"})], scope=SCOPE)
    assert get_node(trajectory, node_id(1, "call:call_1")).tool_name == "lookup_order"


def test_an_app_span_whose_input_holds_a_name_is_a_step_not_an_agent() -> None:
    trajectory = map_spans([
        _lmnr(1, "greet", "DEFAULT", **{"lmnr.span.input": _dumps({"name": "bob"})}),
        _lmnr(2, "lookup", "DEFAULT", **{"lmnr.span.input": _dumps({"name": "bob", "limit": 3})}),
        _lmnr(3, "evaluator", "EVALUATOR"),
    ], scope=SCOPE)
    assert [get_node(trajectory, node_id(number)).kind for number in (1, 2, 3)] == [
        NodeKind.WORKFLOW_STEP, NodeKind.WORKFLOW_STEP, NodeKind.OTHER]


def test_spans_are_claimed_by_the_scope_or_the_span_type_but_not_a_retyped_langfuse_span() -> None:
    by_type = _lmnr(1, "get_weather", "TOOL", **{"lmnr.span.input": _dumps(_dumps({"city": "Paris"}))})
    node = get_node(map_spans([by_type], scope="other"), node_id(1))
    assert (node.convention, node.kind, node.arguments) == ("laminar", NodeKind.TOOL_EXECUTION, '{"city":"Paris"}')
    untyped = span(1, "support_agent", attrs={"lmnr.span.input": _dumps({"name": "support_agent", "output_type": "str"})})
    node = get_node(map_spans([untyped], scope=SCOPE), node_id(1))  # no type written: Laminar's default
    assert (node.convention, node.kind, node.agent_name) == ("laminar", NodeKind.AGENT_INVOCATION, "support_agent")
    retyped = span(1, "lookup_order", attrs={"langfuse.observation.type": "tool", "lmnr.span.type": "TOOL"})
    assert get_node(map_spans([retyped], scope="langfuse-sdk"), node_id(1)).convention == "langfuse"
