"""LiteLLM's own ``mlflow`` callback under MLflow's LiteLLM autolog (:mod:`otel_mapper.mapping.readers.mlflow`), shaped
as litellm 1.110.2 writes it on mlflow 3.18.0 (``corpus/NOTES-frameworks-di.md``): a ``litellm-completion`` span typed
``LLM`` with no message format, its inputs the request's ``{"messages", "tools"}``, its outputs LiteLLM's
``ModelResponse`` (Chat Completions shape), and no ``mlflow.chat.tools``."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
         {"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
MESSAGES = [{"role": "system", "content": "be helpful"}, {"role": "user", "content": "Weather in Paris?"}]
ANSWER = {"id": "chatcmpl-1", "model": "gpt-4o-mini",
          "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [CALL]}}]}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _run(inputs: dict[str, Any], **extra: Any) -> list[Any]:
    call = span(2, "litellm-completion", parent=1, attrs=_mlflow(
        "LLM", **{"mlflow.spanInputs": inputs, "mlflow.spanOutputs": ANSWER, "call_type": "completion",
                  "mlflow.chat.tokenUsage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}, **extra}))
    tool = span(3, "get_weather", parent=1, attrs=_mlflow(
        "TOOL", **{"mlflow.spanInputs": {"city": "Paris"}, "mlflow.spanOutputs": "Paris: sunny"}))
    return [span(1, "support_agent", attrs=_mlflow("AGENT")), call, tool]


def test_the_offered_tools_come_from_the_request_s_tools_in_the_inputs() -> None:
    trajectory = map_spans(_run({"messages": MESSAGES, "tools": TOOLS}))
    call = get_node(trajectory, node_id(2))
    assert call.kind is NodeKind.MODEL_CALL
    assert call.tool_definitions == ("get_weather", "lookup_order")


def test_the_call_is_proposed_and_run_as_before() -> None:
    trajectory = map_spans(_run({"messages": MESSAGES, "tools": TOOLS}))
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))


def test_inputs_without_tools_leave_the_offer_unknown() -> None:
    trajectory = map_spans(_run({"messages": MESSAGES}))
    assert get_node(trajectory, node_id(2)).tool_definitions is None


def test_mlflow_s_own_chat_tools_are_kept_over_the_inputs() -> None:
    own = [{"type": "function", "function": {"name": "get_weather"}}]
    trajectory = map_spans(_run({"messages": MESSAGES, "tools": TOOLS}, **{"mlflow.chat.tools": own}))
    assert get_node(trajectory, node_id(2)).tool_definitions == ("get_weather",)


def test_the_model_is_the_one_the_recorded_response_or_request_names() -> None:
    """LiteLLM's callback writes no ``mlflow.llm.model``: the response's ``model`` names the model that answered, a
    failed request's own ``model`` the one it asked for; MLflow's key, where written, is kept."""
    answered = map_spans(_run({"messages": MESSAGES, "model": "gpt-4o-mini"}))
    assert get_node(answered, node_id(2)).model == ANSWER["model"]
    failed = span(2, "litellm-completion", parent=1, error="RateLimitError: 429", attrs=_mlflow(
        "LLM", **{"mlflow.spanInputs": {"messages": MESSAGES, "model": "openai/gpt-4o-mini"}, "call_type": "completion"}))
    assert get_node(map_spans([span(1, "support_agent", attrs=_mlflow("AGENT")), failed]), node_id(2)).model == \
        "openai/gpt-4o-mini"
    own = map_spans(_run({"messages": MESSAGES}, **{"mlflow.llm.model": "gpt-4o-mini-2024-07-18"}))
    assert get_node(own, node_id(2)).model == "gpt-4o-mini-2024-07-18"
