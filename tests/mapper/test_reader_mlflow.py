"""MLflow Tracing spans (:mod:`otel_mapper.mapping.readers.mlflow`): JSON-text attribute values, kinds from
``mlflow.spanType``, the Agents SDK's generation span and the OpenAI client call inside it merged into one call."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}}
MESSAGES = [{"role": "system", "content": "be helpful"}, {"role": "user", "content": "where is A-1?"}]
ASSISTANT = {"role": "assistant", "content": None, "tool_calls": [CALL]}
USAGE = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _generation(number: int, parent: int, *, inner: bool = True) -> list[Any]:
    spans = [span(number, "Generation", parent=parent, attrs=_mlflow(
        "CHAT_MODEL", **{"mlflow.message.format": "openai-agent", "mlflow.spanInputs": MESSAGES,
                         "mlflow.spanOutputs": [ASSISTANT], "mlflow.chat.tokenUsage": USAGE}))]
    if inner:
        spans.append(span(number + 1, "AsyncCompletions", parent=number, attrs=_mlflow(
            "CHAT_MODEL", **{"mlflow.message.format": "openai",
                             "mlflow.spanInputs": {"model": "gpt-4o-mini", "messages": MESSAGES},
                             "mlflow.spanOutputs": {"id": "chatcmpl-1", "choices": [{"message": ASSISTANT}]},
                             "mlflow.chat.tools": [{"type": "function", "function": {"name": "lookup_order"}}],
                             "mlflow.chat.tokenUsage": USAGE})))
    return spans


def _run(*, inner: bool = True) -> list[Any]:
    return [
        span(1, "support_agent", attrs=_mlflow("AGENT", tools=["lookup_order"])),
        span(2, "Unknown", parent=1, attrs=_mlflow("CHAIN")),
        *_generation(3, 2, inner=inner),
        span(5, "lookup_order", parent=2, attrs=_mlflow(
            "TOOL", **{"mlflow.spanInputs": {"order_id": "A-1"}, "mlflow.spanOutputs": "shipped"})),
    ]


def test_kinds_come_from_the_json_text_span_type() -> None:
    trajectory = map_spans(_run())
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(1)).tool_definitions == ("lookup_order",)
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
    run = get_node(trajectory, node_id(5))
    assert (run.kind, run.tool_name, run.invocation) == (NodeKind.TOOL_EXECUTION, "lookup_order", node_id(1))


def test_the_generation_span_and_its_client_call_are_one_model_call() -> None:
    trajectory = map_spans(_run())
    assert kinds(trajectory)["model_call"] == 1
    call = get_node(trajectory, node_id(4))  # the innermost span keeps the node
    assert call.usage is not None and call.usage.total_tokens == 120  # counted once
    proposal = node_id(4, "call:call_1")
    assert get_node(trajectory, proposal).tool_name == "lookup_order"
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, proposal)


def test_a_generation_span_alone_is_the_model_call() -> None:
    trajectory = map_spans(_run(inner=False))
    assert kinds(trajectory)["model_call"] == 1
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_two_client_calls_under_one_step_stay_two_calls() -> None:
    client = _generation(3, 2)[1]
    other = span(9, "AsyncCompletions", parent=2, attrs={attribute.key: attribute.value.string_value
                                                          for attribute in client.attributes})
    again = span(8, "AsyncCompletions", parent=2, attrs={attribute.key: attribute.value.string_value
                                                          for attribute in client.attributes})
    trajectory = map_spans([span(1, "support_agent", attrs=_mlflow("AGENT")),
                            span(2, "Unknown", parent=1, attrs=_mlflow("CHAIN")), again, other])
    assert kinds(trajectory)["model_call"] == 2


def test_the_sdk_s_handoff_chain_is_a_handoff() -> None:
    trajectory = map_spans([span(1, "triage_agent", attrs=_mlflow("AGENT")),
                            span(2, "Handoff", parent=1, attrs=_mlflow(
                                "CHAIN", **{"mlflow.spanInputs": {"from_agent": "triage_agent"},
                                            "mlflow.spanOutputs": {"to_agent": "billing_agent"}}))])
    handoff = get_node(trajectory, node_id(2))
    assert (handoff.kind, handoff.handoff_from, handoff.handoff_to) == (NodeKind.HANDOFF, "triage_agent", "billing_agent")


def test_a_failed_request_records_no_output_rather_than_losing_it() -> None:
    """The generation span writes ``null`` for a request that failed; the client call inside it writes nothing."""
    wrapper = span(3, "Generation", parent=2, attrs=_mlflow(
        "CHAT_MODEL", **{"mlflow.message.format": "openai-agent", "mlflow.spanInputs": MESSAGES,
                         "mlflow.spanOutputs": None}))
    client = span(4, "AsyncCompletions", parent=3, error="RateLimitError", attrs=_mlflow(
        "CHAT_MODEL", **{"mlflow.message.format": "openai",
                         "mlflow.spanInputs": {"model": "gpt-4o-mini", "messages": MESSAGES}}))
    trajectory = map_spans([span(1, "support_agent", attrs=_mlflow("AGENT")),
                            span(2, "Unknown", parent=1, attrs=_mlflow("CHAIN")), wrapper, client])
    assert kinds(trajectory)["model_call"] == 1
    assert not [d for d in trajectory.declarations if d.qualifier == "not_captured"]
