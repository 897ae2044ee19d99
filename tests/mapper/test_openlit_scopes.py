"""A span of any OpenLIT instrumentor's scope (``openlit.instrumentation.<module>``) whose name starts with a GenAI
operation says what it records by its name alone when the wrapped call did not return (OpenLIT names the span when
the call starts and writes its attributes from the response), read before only on the scopes listed in
:data:`semconv.openlit.NAMED_ONLY_SCOPES`; other names under such a scope, and other scopes, are not read so."""

from __future__ import annotations

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.recognition import SpanRecogniser
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.rate_limited import RateLimitedDetector
from semconv.trajectory import FindingCategory, NodeKind, NodeStatus
from tests.support.spans import get_node, map_scoped_spans, node_id, request, span

_CLIENT = Span.SPAN_KIND_CLIENT
NEW_SCOPE = "openlit.instrumentation.together"
"""An OpenLIT client instrumentor's scope no rule lists."""
MODEL = "meta-llama/Llama-3.3-70B-Instruct-Turbo"
RATE_LIMITED = ("together.error.RateLimitError", "Error code: 429 - rate limit")


def _raised(number: int, name: str) -> Span:
    error_type, message = RATE_LIMITED
    return span(number, name, parent=1, kind=_CLIENT, error=f"RateLimitError: {message}",
                events=[("exception", {"exception.type": error_type, "exception.message": message})])


def _run(scope: str, name: str) -> Trajectory:
    agent = span(1, "invoke_agent support_agent", kind=_CLIENT,
                 attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"})
    return map_scoped_spans([("openlit", [agent]), (scope, [_raised(2, name)])])


def test_a_request_that_raised_under_an_unlisted_openlit_scope_is_a_failed_model_call() -> None:
    trajectory = _run(NEW_SCOPE, f"chat {MODEL}")
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is NodeStatus.FAILED and node.model == MODEL
    found = RateLimitedDetector().detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig()))
    assert [(f.category, f.node_id) for f in found] == [(FindingCategory.RATE_LIMITED, node_id(2))]


def test_a_tool_run_that_raised_under_an_unlisted_openlit_scope_is_a_failed_tool_run() -> None:
    node = get_node(_run("openlit.instrumentation.strands", "execute_tool lookup_order"), node_id(2))
    assert node.kind is NodeKind.TOOL_EXECUTION and node.status is NodeStatus.FAILED
    assert node.tool_name == "lookup_order"


def test_other_names_and_other_scopes_are_not_read_by_their_name() -> None:
    for scope, name in ((NEW_SCOPE, "POST"), (NEW_SCOPE, f"request {MODEL}"), ("opentelemetry.instrumentation.httpx",
                                                                           f"chat {MODEL}"), ("openlit", f"chat {MODEL}")):
        assert get_node(_run(scope, name), node_id(2)).kind is NodeKind.OTHER, (scope, name)


def test_the_recogniser_lets_every_openlit_instrumentor_scope_through() -> None:
    recogniser = SpanRecogniser()
    for scope, expected in ((NEW_SCOPE, True), ("opentelemetry.instrumentation.httpx", False)):
        scope_spans = request([_raised(2, f"chat {MODEL}")], scope=scope).resource_spans[0].scope_spans[0]
        assert recogniser.scope_may_claim(scope_spans.scope.SerializeToString()) is expected, scope
