"""The Mistral AI Python SDK's own request spans (corpus/NOTES-frameworks-bd.md): scope ``mistralai_sdk_tracer``, one
per HTTP operation, beside the instrumentation's ``mistralai.chat`` span of the same request under the agent run;
each request is one model call, not two, and a failed request one failure."""

from __future__ import annotations

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from semconv.trajectory import NodeKind
from tests.support.spans import get_node, map_scoped_spans, node_id, span

SDK_SCOPE = "mistralai_sdk_tracer"


def _agent() -> Span:
    return span(1, "support_agent.agent", attrs={"traceloop.span.kind": "agent", "traceloop.entity.name": "support_agent"})


def _instrumented(number: int, error: str | None = None) -> Span:
    return span(number, "mistralai.chat", parent=1, error=error, kind=Span.SPAN_KIND_CLIENT, attrs={
        "gen_ai.system": "MistralAI", "llm.request.type": "chat", "gen_ai.request.model": "mistral-small-latest"})


def _sdk(number: int, status: int = 200) -> Span:
    attrs: dict[str, object] = {"http.request.method": "POST", "gen_ai.request.model": "mistral-small-latest",
                                "http.response.status_code": status}
    if status == 200:
        attrs.update({"mistral_ai.operation.id": "chat_completion_v1_chat_completions_post",
                      "gen_ai.provider.name": "mistral_ai", "gen_ai.usage.output_tokens": 27})
    else:
        attrs.update({"mistral_ai.error.type": "rate_limited", "mistral_ai.error.code": "1300"})
    return span(number, "chat_completion_v1_chat_completions_post", parent=1, attrs=attrs)


def _model_calls(trajectory: Trajectory) -> list[str]:
    return sorted(n.id for n in trajectory.nodes if n.kind is NodeKind.MODEL_CALL)


def test_sdk_spans_of_requests_the_instrumentation_records_are_not_model_calls() -> None:
    trajectory = map_scoped_spans([("traceloop.tracer", [_agent()]),
                       ("opentelemetry.instrumentation.mistralai", [_instrumented(2, error="Status 429"),
                                                                     _instrumented(3)]),
                       (SDK_SCOPE, [_sdk(4, status=429), _sdk(5)])])
    assert _model_calls(trajectory) == [node_id(2), node_id(3)]
    assert get_node(trajectory, node_id(4)).kind is NodeKind.OTHER
    assert any(d.qualifier == "sdk_request_twin" and d.count == 2 for d in trajectory.declarations)


def test_sdk_spans_stay_model_calls_when_the_instrumentation_does_not_account_for_them() -> None:
    # the SDK traced alone: its spans are the only record of the requests
    assert _model_calls(map_scoped_spans([("traceloop.tracer", [_agent()]), (SDK_SCOPE, [_sdk(2), _sdk(3)])])) == [
        node_id(2), node_id(3)]
    # more SDK spans than instrumented calls
    assert _model_calls(map_scoped_spans([("traceloop.tracer", [_agent()]),
                              ("opentelemetry.instrumentation.mistralai", [_instrumented(2)]),
                              (SDK_SCOPE, [_sdk(3), _sdk(4)])])) == [node_id(2), node_id(3), node_id(4)]
    # a failed SDK span with no failed instrumented call beside it: its failure would be lost
    assert _model_calls(map_scoped_spans([("traceloop.tracer", [_agent()]),
                              ("opentelemetry.instrumentation.mistralai", [_instrumented(2)]),
                              (SDK_SCOPE, [_sdk(3, status=500)])])) == [node_id(2), node_id(3)]
