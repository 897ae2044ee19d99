"""One model call recorded by two nested spans of two conventions: a framework's generator span around the client
library's request span (OpenLLMetry's Haystack ``haystack.openai.chat`` around its OpenAI ``openai.chat``)."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeStatus
from tests.support.spans import categories, get_node, has_edge, kinds, map_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT


def _generator(number: int, parent: int, *, error: str | None = None, system: str = "OpenAI") -> Span:
    attrs = {"gen_ai.system": system, "llm.request.type": "chat"}
    if error is None:
        attrs |= {"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "replies"}
    return span(number, "haystack.openai.chat", parent=parent, kind=_CLIENT, error=error, attrs=attrs)


def _request(number: int, parent: int, *, error: str | None = None, call: tuple[str, str] | None = None) -> Span:
    attrs: dict[str, object] = {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Weather?"}]}]),
    }
    if error is not None:
        attrs["error.type"] = "RateLimitError"
    else:
        parts = ([{"type": "tool_call", "id": call[0], "name": call[1], "arguments": {"city": "Rome"}}] if call
                 else [{"type": "text", "content": "Sunny."}])
        attrs |= {"gen_ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.usage.input_tokens": 100,
                  "gen_ai.usage.output_tokens": 20,
                  "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])}
    return span(number, "openai.chat", parent=parent, kind=_CLIENT, error=error, attrs=attrs)


def _pipeline() -> Span:
    return span(1, "haystack_pipeline.workflow",
                attrs={"traceloop.span.kind": "workflow", "traceloop.entity.name": "haystack_pipeline"})


def test_a_generator_span_around_the_request_span_is_one_model_call_kept_on_the_request() -> None:
    trajectory = map_spans([
        _pipeline(),
        _generator(2, 1, error="RateLimitError: Error code: 429"), _request(3, 2, error="Error code: 429"),
        _generator(4, 1), _request(5, 4, call=("call_1", "get_weather")),
    ])
    assert kinds(trajectory) == {"workflow_step": 1, "model_call": 2, "tool_proposal": 1}
    assert trajectory.node(node_id(2)) is None and trajectory.node(node_id(4)) is None
    assert get_node(trajectory, node_id(3)).status is NodeStatus.FAILED
    answered = get_node(trajectory, node_id(5))
    assert answered.usage is not None and answered.usage.input_tokens == 100
    assert has_edge(trajectory, node_id(5, "call:call_1"), EdgeType.CAUSED_BY, node_id(5))
    assert any(d.qualifier == "merged" and "model call" in d.reason for d in trajectory.declarations)
    assert "double_instrumentation" in categories(trajectory)


def test_nested_model_calls_of_another_provider_or_with_other_children_stay_apart() -> None:
    other_provider = map_spans([_pipeline(), _generator(2, 1, system="Anthropic"), _request(3, 2)])
    assert kinds(other_provider)["model_call"] == 2
    two_children = map_spans([_pipeline(), _generator(2, 1), _request(3, 2), _request(4, 2)])
    assert kinds(two_children)["model_call"] == 3
    same_convention = map_spans([_pipeline(), _request(2, 1), _request(3, 2)])
    assert kinds(same_convention)["model_call"] == 2
