"""AG2's chats under MLflow's AG2 autolog, shaped as ``mlflow-skinny`` 3.18.0 writes them
(``corpus/NOTES-frameworks-cx.md``): message format ``ag2`` on every span; the session's ``initiate_chat`` root typed
``UNKNOWN``; an ``AGENT`` span per received message, named after its sender (inputs the message it answers, outputs
the message it is, ``{"message", "sender", "valid"}``), holding the ``LLM`` ``chat_completion`` or the ``TOOL`` spans
that made it; a tool span named after the Python function, no call id; a failed attempt's ``chat_completion`` with
AG2's failure text for outputs."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, ordered, span

SYSTEM = {"role": "system", "content": "You are a support agent."}
USER = {"role": "user", "content": "Weather in Paris?", "name": "user"}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}
RESULT = {"tool_call_id": "call_1", "role": "tool", "content": "Paris: sunny"}
TRANSFER = {"id": "call_t", "type": "function", "function": {"name": "transfer_to_billing_agent_1", "arguments": "{}"}}
TRANSFER_RESULT = {"tool_call_id": "call_t", "role": "tool", "content": "Transfer to billing_agent"}


def _mlflow(span_type: str, inputs: Any = None, outputs: Any = None, **attrs: Any) -> dict[str, str]:
    """MLflow's keys as its AG2 logger writes them: every value JSON text."""
    values = {"mlflow.traceRequestId": "tr-1", "mlflow.spanType": span_type, "mlflow.message.format": "ag2",
              "mlflow.spanInputs": inputs, "mlflow.spanOutputs": outputs, **attrs}
    return {key: json.dumps(value) for key, value in values.items() if value is not None}


def _message(sender: str, message: Any) -> dict[str, Any]:
    return {"message": message, "sender": sender, "valid": True}


def _completion(number: int, parent: int, messages: list[Any], answer: Any) -> Any:
    inputs = {"messages": messages, "tools": [], "model": "gpt-4o-mini"}
    outputs = answer if isinstance(answer, str) else {
        "id": f"chatcmpl-{number}", "choices": [{"index": 0, "finish_reason": "stop", "message": answer}]}
    return span(number, "chat_completion", parent=parent, attrs=_mlflow("LLM", inputs, outputs,
                                                                        **{"mlflow.llm.model": "gpt-4o-mini"}))


def _chat(first_answer: Any = None) -> list[Any]:
    """One tool turn: the model's reply proposes get_weather, the executor's reply runs it, the model answers."""
    asked = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    ran = {"role": "tool", "content": "Paris: sunny", "tool_responses": [RESULT]}
    answered = {"role": "assistant", "content": "Sunny in Paris."}
    return [
        span(1, "initiate_chat", attrs=_mlflow("UNKNOWN", {"message": "Weather in Paris?"}, {"chat_history": []})),
        span(2, "support_agent", parent=1, attrs=_mlflow("AGENT", _message("user", "Weather in Paris?"),
                                                         _message("support_agent", asked))),
        _completion(3, 2, [SYSTEM, USER], first_answer or asked),
        span(4, "user", parent=1, attrs=_mlflow("AGENT", _message("support_agent", asked), _message("user", ran))),
        span(5, "get_weather", parent=4, attrs=_mlflow("TOOL", {"city": "Paris"}, "Paris: sunny")),
        span(6, "support_agent", parent=1, attrs=_mlflow("AGENT", _message("user", ran),
                                                         _message("support_agent", "Sunny in Paris."))),
        _completion(7, 6, [SYSTEM, USER, {"role": "assistant", "content": None, "tool_calls": [CALL]}, RESULT],
                    answered),
    ]


def test_message_spans_typed_agent_and_the_session_root_are_steps_not_agent_runs() -> None:
    trajectory = map_spans(_chat())
    counts = kinds(trajectory)
    assert counts.get("agent_invocation", 0) == 0 and counts["workflow_step"] == 4
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP


def test_the_one_tool_span_under_a_message_takes_the_call_id_of_the_one_result_it_carries() -> None:
    trajectory = map_spans(_chat())
    tool = get_node(trajectory, node_id(5))
    assert (tool.kind, tool.tool_call_id) == (NodeKind.TOOL_EXECUTION, "call_1")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_the_next_reply_answers_the_message_that_carried_the_result() -> None:
    trajectory = map_spans(_chat())
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(5))


def test_a_failed_attempt_logged_with_ag2_s_text_proposes_nothing() -> None:
    """AG2 logs a failed attempt with ``error_code:..., config 0 failed`` for a response; the retry on the next config
    entry (same input) proposes the call. The failed attempt answered nothing: no proposal of its own."""
    spans = _chat()
    spans.insert(2, _completion(8, 2, [SYSTEM, USER], "error_code:None, config 0 failed"))
    trajectory = map_spans(spans)
    assert kinds(trajectory)["tool_proposal"] == 1
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_ag2_s_transfer_function_is_a_handoff_ordered_before_the_next_agent_s_reply() -> None:
    asked = {"role": "assistant", "content": None, "tool_calls": [TRANSFER]}
    handed = {"role": "tool", "content": "Transfer to billing_agent", "tool_responses": [TRANSFER_RESULT]}
    spans = [
        span(1, "initiate_chat", attrs=_mlflow("UNKNOWN", {"message": "Refund A-1001"}, {"chat_history": []})),
        span(2, "triage_agent", parent=1, attrs=_mlflow("AGENT", _message("_User", "Refund A-1001"),
                                                        _message("triage_agent", asked))),
        _completion(3, 2, [SYSTEM, USER], asked),
        span(4, "_Group_Tool_Executor", parent=1, attrs=_mlflow("AGENT", _message("triage_agent", asked),
                                                                _message("_Group_Tool_Executor", handed))),
        span(5, "transfer_to_target", parent=4, attrs=_mlflow("TOOL", {}, {"agent_name": "billing_agent"})),
        span(6, "billing_agent", parent=1, attrs=_mlflow("AGENT", _message("_Group_Tool_Executor", handed),
                                                         _message("billing_agent", "Refunded."))),
        _completion(7, 6, [SYSTEM, USER], {"role": "assistant", "content": "Refunded."}),
    ]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(5))
    assert handoff.kind is NodeKind.HANDOFF and handoff.tool_call_id == "call_t"
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(3, "call:call_t"))
    assert ordered(trajectory, node_id(5), node_id(6)) is True


def test_a_message_span_carrying_several_results_names_none_of_its_tool_spans() -> None:
    """Guard: two results, two tool spans: the one-result rule names neither (they join their proposals by name and
    arguments)."""
    spans = _chat()
    second = {"tool_call_id": "call_2", "role": "tool", "content": "Rome: rain"}
    ran = {"role": "tool", "content": "Paris: sunny", "tool_responses": [RESULT, second]}
    spans[3] = span(4, "user", parent=1, attrs=_mlflow("AGENT", _message("support_agent", {}), _message("user", ran)))
    spans.append(span(9, "get_weather", parent=4, attrs=_mlflow("TOOL", {"city": "Rome"}, "Rome: rain")))
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(9)).tool_call_id is None


def test_an_agent_span_of_another_message_format_stays_an_agent_invocation() -> None:
    """Guard: the rule is the AG2 format's, not every MLflow ``AGENT`` span's."""
    attrs = {key: json.dumps(value) for key, value in {"mlflow.spanType": "AGENT", "mlflow.traceRequestId": "tr-1",
                                                       "mlflow.spanInputs": _message("user", "hi")}.items()}
    trajectory = map_spans([span(1, "support_agent", attrs=attrs)])
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
