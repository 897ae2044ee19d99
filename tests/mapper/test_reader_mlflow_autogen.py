"""AutoGen AgentChat under MLflow's AutoGen autolog, shaped as ``mlflow-tracing`` 3.18.0 writes it
(``corpus/NOTES-frameworks-dc.md``): an ``AGENT`` span ``<agent>.run`` (inputs ``{"task"}``) holding the
``<agent>.on_messages`` span (inputs ``{"messages", "cancellation_token"}``) that ``AssistantAgent.run`` calls; an
``LLM`` span ``<client class>.create`` per request, message format ``autogen``: inputs AutoGen's own message dumps,
outputs AutoGen's ``CreateResult``; no span of a tool's run."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

SYSTEM = {"content": "You are a support agent.", "type": "SystemMessage"}
USER = {"content": "Order A-1001?", "source": "user", "type": "UserMessage"}
TOOLS = [{"type": "function", "function": {"name": "lookup_order", "description": "Look up an order.",
                                           "parameters": {"type": "object", "properties": {}}}}]


def _mlflow(span_type: str, inputs: Any = None, outputs: Any = None, **attrs: Any) -> dict[str, str]:
    """MLflow's keys as its AutoGen autolog writes them: every value JSON text."""
    values = {"mlflow.traceRequestId": "tr-1", "mlflow.spanType": span_type, "mlflow.spanInputs": inputs,
              "mlflow.spanOutputs": outputs, **attrs}
    return {key: json.dumps(value) for key, value in values.items() if value is not None}


def _call(number: int, order: str) -> dict[str, str]:
    return {"id": f"call_{number}", "arguments": json.dumps({"order_id": order}), "name": "lookup_order"}


def _asked(*calls: dict[str, str]) -> dict[str, Any]:
    return {"content": list(calls), "thought": None, "source": "support_agent", "type": "AssistantMessage"}


def _results(*results: tuple[str, str, bool]) -> dict[str, Any]:
    return {"content": [{"content": text, "name": "lookup_order", "call_id": call_id, "is_error": error}
                        for call_id, text, error in results], "type": "FunctionExecutionResultMessage"}


def _create(number: int, parent: int, messages: list[Any], content: Any, *, error: str | None = None) -> Any:
    inputs = {"messages": messages, "tools": [], "json_output": None, "cancellation_token": "<CancellationToken>"}
    outputs = None if error else {"finish_reason": "function_calls" if isinstance(content, list) else "stop",
                                  "content": content, "usage": {"prompt_tokens": 10, "completion_tokens": 5},
                                  "cached": False, "logprobs": None, "thought": None}
    attrs = _mlflow("LLM", inputs, outputs, **{"mlflow.message.format": "autogen", "mlflow.chat.tools": TOOLS})
    return span(number, "RetryingClient.create", parent=parent, attrs=attrs, error=error)


def _run(first_result: tuple[str, str, bool], *, answered: bool = True) -> list[Any]:
    """One agent run: the first request proposes lookup_order, AutoGen runs it (no span), the second request carries
    the result and answers; the run's two agent spans around them."""
    call = _call(1, "A-1001")
    run_outputs = {"messages": [], "stop_reason": None} if answered else None
    handled_outputs = {"chat_message": {"content": "Shipped."}, "inner_messages": []} if answered else None
    return [
        span(1, "run_agent", attrs=_mlflow("CHAIN")),
        span(2, "support_agent.run", parent=1, attrs=_mlflow("AGENT", {"task": "Order A-1001?"}, run_outputs,
                                                             **{"mlflow.chat.tools": TOOLS})),
        span(3, "support_agent.on_messages", parent=2,
             attrs=_mlflow("AGENT", {"messages": [{"content": "Order A-1001?", "source": "user", "type": "TextMessage"}],
                                     "cancellation_token": "<CancellationToken>"}, handled_outputs,
                           **{"mlflow.chat.tools": TOOLS})),
        _create(4, 3, [SYSTEM, USER], [call]),
        _create(5, 3, [SYSTEM, USER, _asked(call), _results(first_result)], "Shipped."),
    ]


def test_the_create_result_s_calls_are_proposals_and_the_next_request_consumes_their_results() -> None:
    trajectory = map_spans(_run(("call_1", "{\"status\": \"shipped\"}", False)))
    proposal = get_node(trajectory, node_id(4, "call:call_1"))
    assert proposal.kind is NodeKind.TOOL_PROPOSAL and proposal.tool_name == "lookup_order"
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4, "call:call_1"))
    assert proposal.result_status is NodeStatus.COMMITTED


def test_a_result_autogen_marked_is_error_reports_the_tool_failed_whatever_its_text() -> None:
    """AutoGen hands the model a raised tool's exception text with ``is_error``; the text alone (``order ... not
    found``) reads as no failure."""
    trajectory = map_spans(_run(("call_1", "order 'A-10O1' not found", True)))
    proposal = get_node(trajectory, node_id(4, "call:call_1"))
    assert proposal.result_status is NodeStatus.FAILED
    assert proposal.result_error == "order 'A-10O1' not found"


def test_autogen_s_answer_to_an_unknown_tool_is_a_rejection_not_a_failed_run() -> None:
    """Guard: AutoGen marks its own answer to a call of an unknown tool ``is_error`` too; its text is a rejection."""
    trajectory = map_spans(_run(("call_1", "Error: tool 'lookup_order' not found in any workbench", True)))
    assert get_node(trajectory, node_id(4, "call:call_1")).result_status is not NodeStatus.FAILED


def test_the_run_and_its_on_messages_span_are_one_agent_invocation_kept_on_the_run_span() -> None:
    trajectory = map_spans(_run(("call_1", "shipped", False)))
    counts = kinds(trajectory)
    assert counts["agent_invocation"] == 1 and counts["workflow_step"] == 1
    agent = get_node(trajectory, node_id(2))
    assert agent.kind is NodeKind.AGENT_INVOCATION and agent.actor == "support_agent"
    assert [ref.span_id for ref in agent.references] == ["0000000000000003"]


def test_a_patched_agent_method_s_outputs_say_the_run_returned_its_answer() -> None:
    trajectory = map_spans(_run(("call_1", "shipped", False)))
    assert get_node(trajectory, node_id(2)).returned_answer is True
    unanswered = map_spans(_run(("call_1", "shipped", False), answered=False))
    assert get_node(unanswered, node_id(2)).returned_answer is False


def test_an_agent_span_named_like_a_method_without_its_argument_keeps_its_name() -> None:
    """Guard: a ``<name>.run`` AGENT span whose inputs bind no ``task`` is no AutoGen agent method."""
    spans = [span(1, "billing.run", attrs=_mlflow("AGENT", {"query": "x"}, {"answer": "y"}))]
    assert get_node(map_spans(spans), node_id(1)).actor == "billing.run"


def test_an_agent_span_recording_the_agent_s_fields_is_no_autogen_method() -> None:
    """Guard: smolagents' ``ToolCallingAgent.run`` binds a ``task`` too, but its autolog writes the agent's fields, its
    ``name`` among them: that name stays the agent's."""
    attrs = _mlflow("AGENT", {"task": "x"}, {"_value": "y"}, name="support_agent")
    assert get_node(map_spans([span(1, "ToolCallingAgent.run", attrs=attrs)]), node_id(1)).actor == "support_agent"
