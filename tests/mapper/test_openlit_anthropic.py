"""OpenLIT's Anthropic client spans (``openlit`` 1.45, ``instrumentation/anthropic``): a request that raised leaves
its ``chat <model>`` span with its name, status ERROR and the exception event alone, read from its name as a failed
model call (:mod:`otel_mapper.mapping.readers.openlit_crewai`, :data:`semconv.openlit.NAMED_ONLY_SCOPES`). Shapes as
``openlit`` 1.45 records ``anthropic`` 0.125 under spans of OpenLIT's manual tracer (``corpus/NOTES-frameworks-bv.md``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from semconv import openlit
from semconv.trajectory import FindingCategory, NodeKind, NodeStatus
from tests.support.spans import envelopes, get_node, kinds, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
MODEL = "claude-haiku-4-5"
MANUAL_SCOPE = "openlit"
"""The scope of ``openlit.start_trace`` blocks (the tracer of the ``openlit`` module)."""


def _exception(error_type: str, message: str) -> tuple[str, dict[str, Any]]:
    return ("exception", {"exception.type": error_type, "exception.message": message, "exception.escaped": "False"})


def _chat_answer() -> dict[str, Any]:
    call = {"type": "tool_call", "id": "toolu_1", "name": "get_weather", "arguments": {"city": "Rome"}}
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": MODEL,
            "gen_ai.response.model": f"{MODEL}-20251001", "gen_ai.usage.input_tokens": 102,
            "gen_ai.usage.output_tokens": 15,
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Rome?"}]}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call], "finish_reason": "tool_call"}])}


def _map(by_scope: Mapping[str, Sequence[Span]]) -> Trajectory:
    return map_trace([item for scope, spans in by_scope.items() for item in envelopes(spans, scope=scope)]).trajectory


def _run(failure: tuple[str, str, str], scope: str = openlit.ANTHROPIC_SCOPE) -> Trajectory:
    """The app's agent block 1 -> a chat 2 that proposed get_weather, the tool block 3, a chat 4 that raised."""
    error_type, status_message, message = failure
    manual = [span(1, "invoke_agent support_agent", kind=_CLIENT, error=status_message,
                   attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"},
                   events=[_exception(error_type, message)]),
              span(3, "execute_tool get_weather", parent=1, kind=_CLIENT,
                   attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                          "gen_ai.tool.call.id": "toolu_1", "gen_ai.tool.call.arguments": '{"city": "Rome"}'})]
    chats = [span(2, f"chat {MODEL}", parent=1, kind=_CLIENT, attrs=_chat_answer()),
             span(4, f"chat {MODEL}", parent=1, kind=_CLIENT, error=status_message,
                  events=[_exception(error_type, message)])]
    return _map({MANUAL_SCOPE: manual, scope: chats})


API_500 = ("anthropic.InternalServerError",
           "InternalServerError: Error code: 500 - {'type': 'error', 'error': {'type': 'api_error'}}",
           "Error code: 500 - {'type': 'error', 'error': {'type': 'api_error'}}")
API_429 = ("anthropic.RateLimitError",
           "RateLimitError: Error code: 429 - {'type': 'error', 'error': {'type': 'rate_limit_error'}}",
           "Error code: 429 - {'type': 'error', 'error': {'type': 'rate_limit_error'}}")
TIMED_OUT = ("anthropic.APITimeoutError", "APITimeoutError: Request timed out or interrupted.",
             "Request timed out or interrupted.")


def _findings(trajectory: Trajectory) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector())
    found = [d.detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig())) for d in detectors]
    return [(f.category, f.node_id) for result in found for f in getattr(result, "findings", result)]


def test_a_failed_request_with_no_attribute_is_a_failed_model_call_of_the_model_its_name_says() -> None:
    trajectory = _run(API_500)
    assert kinds(trajectory)["model_call"] == 2 and "other" not in kinds(trajectory)
    failed = get_node(trajectory, node_id(4))
    assert failed.kind is NodeKind.MODEL_CALL and failed.status is NodeStatus.FAILED
    assert failed.model == MODEL


def test_the_failure_is_found_on_the_request_s_span_not_on_the_agent_around_it() -> None:
    for failure, category in ((API_500, FindingCategory.MODEL_ERROR), (API_429, FindingCategory.RATE_LIMITED),
                              (TIMED_OUT, FindingCategory.INFRA_TIMEOUT)):
        assert _findings(_run(failure)) == [(category, node_id(4))], category


def test_the_same_span_of_another_scope_stays_unread() -> None:
    trajectory = _run(API_500, scope="another.instrumentation")
    assert get_node(trajectory, node_id(4)).kind is NodeKind.OTHER
    assert kinds(trajectory)["model_call"] == 1
