"""OpenLIT's Cohere SDK spans (``openlit`` 1.45, ``instrumentation/cohere`` on ``cohere`` 7.3; shapes as
``corpus/NOTES-frameworks-de.md`` records them under spans of OpenLIT's manual tracer):

- a request that raised (the SDK's ``TooManyRequestsError`` / ``InternalServerError``, httpx's ``ReadTimeout``) leaves
  its ``chat <model>`` span with its name, status ERROR with the SDK's description and the exception event alone, read
  from its name as a failed model call (:data:`semconv.openlit.NAMED_ONLY_SCOPES`); the agent block the error reached
  then stands for no other failed call."""

from __future__ import annotations

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
from tests.support.spans import get_node, map_scoped_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
MANUAL_SCOPE = "openlit"
"""The scope of ``openlit.start_trace`` blocks."""
MODEL = "command-a-03-2025"
RATE_LIMITED = ("cohere.errors.too_many_requests_error.TooManyRequestsError",
                "headers: {'content-type': 'application/json'}, status_code: 429, body: {'message': 'rate limit'}")
SERVER_ERROR = ("cohere.errors.internal_server_error.InternalServerError",
                "headers: {'content-type': 'application/json'}, status_code: 500, body: {'message': 'internal'}")
READ_TIMEOUT = ("httpx.ReadTimeout", "timed out")


def _error(error_type: str, message: str) -> tuple[str, list[tuple[str, dict[str, str]]]]:
    """The SDK's description of an exception that left ``start_as_current_span``, and its event."""
    return (f"{error_type.rsplit('.', 1)[-1]}: {message}",
            [("exception", {"exception.type": error_type, "exception.message": message})])


def _run(error_type: str, message: str, reached_agent: bool, scope: str = openlit.COHERE_SCOPE) -> Trajectory:
    """An agent block with one request that raised; the error reaches the block when the run ends with it."""
    description, events = _error(error_type, message)
    agent_error = {"error": description, "events": events} if reached_agent else {}
    agent = span(1, "invoke_agent support_agent", kind=_CLIENT, **agent_error,  # type: ignore[arg-type]
                 attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"})
    raised = span(2, f"chat {MODEL}", parent=1, kind=_CLIENT, error=description, events=events)
    return map_scoped_spans([(MANUAL_SCOPE, [agent]), (scope, [raised])])


def _findings(trajectory: Trajectory) -> list[tuple[FindingCategory, str]]:
    detectors = (InfraTimeoutDetector(), ModelErrorDetector(), RateLimitedDetector())
    found = [d.detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig())) for d in detectors]
    return [(f.category, f.node_id) for result in found for f in getattr(result, "findings", result)]


@pytest.mark.parametrize(("error", "reached_agent", "category"), [
    (RATE_LIMITED, False, FindingCategory.RATE_LIMITED),
    (SERVER_ERROR, True, FindingCategory.MODEL_ERROR),
    (READ_TIMEOUT, True, FindingCategory.INFRA_TIMEOUT),
])
def test_a_cohere_request_that_raised_is_a_failed_model_call_read_from_its_name(
    error: tuple[str, str], reached_agent: bool, category: FindingCategory
) -> None:
    trajectory = _run(*error, reached_agent=reached_agent)
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is NodeStatus.FAILED and node.model == MODEL
    assert _findings(trajectory) == [(category, node_id(2))]


def test_the_same_span_of_a_scope_no_rule_names_is_no_model_call() -> None:
    trajectory = _run(*RATE_LIMITED, reached_agent=False, scope="another.instrumentation")
    assert get_node(trajectory, node_id(2)).kind is not NodeKind.MODEL_CALL
