"""Logfire's OpenAI Agents SDK spans read by their message template (:mod:`otel_mapper.mapping.readers.logfire_agents`):
shapes as ``logfire`` 5.4.0 writes them, every span carrying ``gen_ai.system=openai``."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType
from tests.support.spans import AGENTS_SDK_RUN_KINDS, get_node, has_edge, map_spans, node_id, span

SCOPE = "logfire.openai_agents"
BASE = {"logfire.span_type": "span", "gen_ai.system": "openai"}


def _logfire(template: str, **attrs: Any) -> dict[str, Any]:
    return {**BASE, "logfire.msg_template": template, **attrs}


def _run(*, tool_error: dict[str, Any] | None = None, turn_error: dict[str, Any] | None = None) -> list[Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}}
    chat_1 = _logfire("Chat completion with {gen_ai.request.model!r}", **{
        "input": json.dumps([{"role": "system", "content": "be helpful"}, {"role": "user", "content": "where is A-1?"}]),
        "output": json.dumps([{"role": "assistant", "content": None, "tool_calls": [call]}]),
        "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20})
    chat_2 = _logfire("Chat completion with {gen_ai.request.model!r}", **{
        "input": json.dumps([{"role": "user", "content": "where is A-1?"},
                             {"role": "assistant", "content": None, "tool_calls": [call]},
                             {"role": "tool", "tool_call_id": "call_1", "content": "shipped"}]),
        "output": json.dumps([{"role": "assistant", "content": "It shipped."}]),
        "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 150, "gen_ai.usage.output_tokens": 5})
    function = _logfire("Function: {name}", name="lookup_order", input='{"order_id": "A-1"}', output="shipped")
    if tool_error is not None:
        function = {**function, "error": json.dumps(tool_error), "logfire.level_num": 17}
    turn_2 = _logfire("Turn {turn} for agent support_agent", sdk_span_type="turn", turn=2, agent_name="support_agent")
    if turn_error is not None:
        turn_2 = {**turn_2, "error": json.dumps(turn_error), "logfire.level_num": 17}
    return [
        span(1, "OpenAI Agents trace: {name}", attrs=_logfire("OpenAI Agents trace: {name}", name="Agent workflow")),
        span(2, "Task: Agent workflow", parent=1, attrs=_logfire(
            "Task: Agent workflow", sdk_span_type="task", usage=json.dumps({"input_tokens": 250, "output_tokens": 25}))),
        span(3, "Agent run: {name!r}", parent=2, attrs=_logfire(
            "Agent run: {name!r}", name="support_agent", tools=json.dumps(["lookup_order"]), handoffs="[]")),
        span(4, "Turn {turn} for agent support_agent", parent=3, attrs=_logfire(
            "Turn {turn} for agent support_agent", sdk_span_type="turn", turn=1, agent_name="support_agent")),
        span(5, "Chat completion with {gen_ai.request.model!r}", parent=4, attrs=chat_1),
        span(6, "Function: {name}", parent=4, attrs=function, error="tool failed" if tool_error else None),
        span(7, "Turn {turn} for agent support_agent", parent=3, attrs=turn_2, error="turn failed" if turn_error else None),
        span(8, "Chat completion with {gen_ai.request.model!r}", parent=7, attrs=chat_2),
    ]


def test_kinds_follow_the_template_not_gen_ai_system() -> None:
    trajectory = map_spans(_run(), scope=SCOPE)
    kinds = {number: get_node(trajectory, node_id(number)).kind for number in AGENTS_SDK_RUN_KINDS}
    assert kinds == AGENTS_SDK_RUN_KINDS
    agent = get_node(trajectory, node_id(3))
    assert agent.agent_name == "support_agent" and agent.tool_definitions == ("lookup_order",)
    assert get_node(trajectory, node_id(6)).invocation == node_id(3)


def test_the_chat_completions_messages_give_proposals_and_results() -> None:
    trajectory = map_spans(_run(), scope=SCOPE)
    proposal = node_id(5, "call:call_1")
    assert get_node(trajectory, proposal).tool_name == "lookup_order"
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, proposal)  # by its arguments: no call id on the run
    assert sum(node.usage.input_tokens for node in trajectory.nodes if node.usage is not None) == 250  # not the task's


def test_a_tool_that_raised_is_a_failed_run_with_the_sdk_s_error_text() -> None:
    error = {"message": "Error running tool (non-fatal)", "data": {"tool_name": "lookup_order", "error": "boom"}}
    run = get_node(map_spans(_run(tool_error=error), scope=SCOPE), node_id(6))
    assert run.status.value == "failed"
    assert run.error_message == "boom"


def test_a_turn_s_tool_not_found_names_the_unknown_tool() -> None:
    error = {"message": "Tool not found", "data": {"tool_name": "fetch_invoice"}}
    turn = get_node(map_spans(_run(turn_error=error), scope=SCOPE), node_id(7))
    assert "fetch_invoice" in turn.unknown_tools


def test_a_failed_request_s_null_output_is_no_output_not_uncaptured_content() -> None:
    failed = span(9, "Chat completion with {gen_ai.request.model!r}", parent=4, error="RateLimitError: 429",
                  attrs=_logfire("Chat completion with {gen_ai.request.model!r}", input="[]", output="null",
                                 **{"gen_ai.request.model": "gpt-4o-mini"}))
    trajectory = map_spans([*_run(), failed], scope=SCOPE)
    assert not [d for d in trajectory.declarations if d.qualifier == "not_captured"]  # nothing the model said was lost
