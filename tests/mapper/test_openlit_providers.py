"""OpenLIT's Amazon Bedrock and Google Gen AI SDK client spans (``openlit`` 1.45, ``instrumentation/bedrock``,
``instrumentation/google_ai_studio``): a request that raised leaves its ``chat <model>`` span with its name, status
ERROR and the exception event alone, read from its name as a failed model call (:data:`semconv.openlit.NAMED_ONLY_SCOPES`,
as for OpenLIT's Anthropic spans). Shapes as ``openlit`` 1.45 records boto3 1.44 ``converse`` and google-genai 3.6
``generate_content`` under spans of OpenLIT's manual tracer (``corpus/NOTES-frameworks-cb.md``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.infra_timeout import InfraTimeoutDetector
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from semconv import openlit
from semconv.trajectory import FindingCategory, NodeKind, NodeStatus
from tests.support.spans import get_node, kinds, map_scoped_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
MANUAL_SCOPE = "openlit"
"""The scope of ``openlit.start_trace`` blocks (the tracer of the ``openlit`` module)."""
BEDROCK_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
GEMINI_MODEL = "gemini-2.5-flash"

Failure = tuple[str, str]
"""(exception type, message) as the SDK's exception event and the span status record them."""
BEDROCK = {
    FindingCategory.MODEL_ERROR: ("botocore.errorfactory.InternalServerException",
                                  "An error occurred (InternalServerException) when calling the Converse operation "
                                  "(reached max retries: 0): An internal error occurred"),
    FindingCategory.RATE_LIMITED: ("botocore.errorfactory.ThrottlingException",
                                   "An error occurred (ThrottlingException) when calling the Converse operation "
                                   "(reached max retries: 0): Too many requests, please wait before trying again."),
    FindingCategory.INFRA_TIMEOUT: ("botocore.exceptions.ReadTimeoutError",
                                    'Read timeout on endpoint URL: "http://127.0.0.1:8000/model/x/converse"'),
}
GEMINI = {
    FindingCategory.MODEL_ERROR: ("google.genai.errors.ServerError",
                                  "500 INTERNAL. {'error': {'code': 500, 'message': 'An internal error occurred', "
                                  "'status': 'INTERNAL'}}"),
    FindingCategory.RATE_LIMITED: ("google.genai.errors.ClientError",
                                   "429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'Resource has been "
                                   "exhausted', 'status': 'RESOURCE_EXHAUSTED'}}"),
    FindingCategory.INFRA_TIMEOUT: ("httpx2.ReadTimeout", "timed out"),
}
PROVIDERS = {openlit.BEDROCK_SCOPE: ("aws.bedrock", BEDROCK_MODEL, BEDROCK),
             openlit.GOOGLE_AI_STUDIO_SCOPE: ("gemini", GEMINI_MODEL, GEMINI)}


def _exception(failure: Failure) -> tuple[str, dict[str, Any]]:
    error_type, message = failure
    return ("exception", {"exception.type": error_type, "exception.message": message, "exception.escaped": "False"})


def _chat_answer(provider: str, model: str) -> dict[str, Any]:
    call = {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Rome"}}
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": provider, "gen_ai.request.model": model,
            "gen_ai.response.model": model, "gen_ai.usage.input_tokens": 113, "gen_ai.usage.output_tokens": 14,
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Rome?"}]}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call], "finish_reason": "stop"}])}


def _run(scope: str, category: FindingCategory, chat_scope: str | None = None) -> Trajectory:
    """The app's agent block 1 -> a chat 2 that proposed get_weather, the tool block 3, a chat 4 that raised."""
    provider, model, failures = PROVIDERS[scope]
    failure = failures[category]
    status = f"{failure[0].rsplit('.', 1)[-1]}: {failure[1]}"
    manual = [span(1, "invoke_agent support_agent", kind=_CLIENT, error=status, events=[_exception(failure)],
                   attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"}),
              span(3, "execute_tool get_weather", parent=1, kind=_CLIENT,
                   attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                          "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.arguments": '{"city": "Rome"}'})]
    chats = [span(2, f"chat {model}", parent=1, kind=_CLIENT, attrs=_chat_answer(provider, model)),
             span(4, f"chat {model}", parent=1, kind=_CLIENT, error=status, events=[_exception(failure)])]
    return map_scoped_spans([(MANUAL_SCOPE, manual), (chat_scope or scope, chats)])


def _findings(trajectory: Trajectory) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector())
    found = [d.detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig())) for d in detectors]
    return [(f.category, f.node_id) for result in found for f in getattr(result, "findings", result)]


@pytest.mark.parametrize("scope", sorted(PROVIDERS))
def test_a_failed_request_with_no_attribute_is_a_failed_model_call_of_the_model_its_name_says(scope: str) -> None:
    trajectory = _run(scope, FindingCategory.MODEL_ERROR)
    assert kinds(trajectory)["model_call"] == 2 and "other" not in kinds(trajectory)
    failed = get_node(trajectory, node_id(4))
    assert failed.kind is NodeKind.MODEL_CALL and failed.status is NodeStatus.FAILED
    assert failed.model == PROVIDERS[scope][1]


@pytest.mark.parametrize("scope", sorted(PROVIDERS))
@pytest.mark.parametrize(
    "category", [FindingCategory.MODEL_ERROR, FindingCategory.RATE_LIMITED, FindingCategory.INFRA_TIMEOUT]
)
def test_the_failure_is_found_on_the_request_s_span_not_on_the_agent_around_it(
    scope: str, category: FindingCategory
) -> None:
    assert _findings(_run(scope, category)) == [(category, node_id(4))]


@pytest.mark.parametrize("scope", sorted(PROVIDERS))
def test_the_same_span_of_another_scope_stays_unread(scope: str) -> None:
    trajectory = _run(scope, FindingCategory.MODEL_ERROR, chat_scope="another.instrumentation")
    assert get_node(trajectory, node_id(4)).kind is NodeKind.OTHER
    assert kinds(trajectory)["model_call"] == 1
