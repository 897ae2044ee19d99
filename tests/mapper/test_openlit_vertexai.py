"""OpenLIT's Vertex AI SDK spans (``openlit`` 1.45, ``instrumentation/vertexai`` on ``google-cloud-aiplatform`` 2.7;
shapes as ``corpus/NOTES-frameworks-cw.md`` records them under spans of OpenLIT's manual tracer):

- a call that raised leaves its ``chat <model>`` span with its name, status ERROR with the SDK's description and the
  exception event alone, read from its name as a failed model call (:data:`semconv.openlit.NAMED_ONLY_SCOPES`);
- a span that has ``gen_ai.operation.name`` records a call that returned: its ERROR is OpenLIT's own failure to write
  the answer (an ``AttributeError`` on a ``GenerationConfig``), not the call's
  (:data:`semconv.openlit.RETURN_RECORDED_SCOPES`);
- a span with no attribute but ``error.type`` and an ERROR without description was failed by OpenLIT's own handler
  (the SDK's ``ValueError`` reading an answer that only calls functions as text, or a streamed call that raised): its
  outcome is unknown, neither failed nor committed (:mod:`otel_mapper.mapping.readers.openlit_handler_errors`)."""

from __future__ import annotations

from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from semconv import openlit
from semconv.trajectory import FindingCategory, NodeKind, NodeStatus
from tests.support.spans import get_node, map_scoped_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
MANUAL_SCOPE = "openlit"
"""The scope of ``openlit.start_trace`` blocks."""
MODEL = "gemini-2.5-flash"
TEXT_REFUSED = "Cannot get the response text.\nCannot get the Candidate text."


def _agent() -> Span:
    return span(1, "invoke_agent support_agent", kind=_CLIENT,
                attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"})


def _handler_error(number: int, error_type: str, message: str, attrs: dict[str, Any] | None = None) -> Span:
    """A span OpenLIT's ``handle_exception`` failed: ``error.type``, the event, ERROR without a description."""
    chat = span(number, f"chat {MODEL}", parent=1, kind=_CLIENT, attrs={**(attrs or {}), "error.type": error_type},
                events=[("exception", {"exception.type": error_type, "exception.message": message})])
    chat.status.code = chat.status.STATUS_CODE_ERROR
    return chat


def _text_answer(number: int) -> Span:
    """A text answer's span: written up to the request parameters, then OpenLIT's ``AttributeError``."""
    return _handler_error(number, "AttributeError", "'GenerationConfig' object has no attribute 'get'", attrs={
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "vertex_ai", "gen_ai.request.model": MODEL,
        "gen_ai.response.model": MODEL})


def _raised(number: int, error_type: str, message: str) -> Span:
    """A call that raised inside ``start_as_current_span``: the SDK's description and event, no attribute."""
    return span(number, f"chat {MODEL}", parent=1, kind=_CLIENT, error=f"{error_type.rsplit('.', 1)[-1]}: {message}",
                events=[("exception", {"exception.type": error_type, "exception.message": message})])


def _run(chats: list[Span], scope: str = openlit.VERTEXAI_SCOPE) -> Trajectory:
    return map_scoped_spans([(MANUAL_SCOPE, [_agent()]), (scope, chats)])


def _findings(trajectory: Trajectory) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector())
    found = [d.detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig())) for d in detectors]
    return [(f.category, f.node_id) for result in found for f in getattr(result, "findings", result)]


def test_a_call_that_raised_is_a_failed_model_call_read_from_its_name() -> None:
    trajectory = _run([_raised(2, "google.api_core.exceptions.TooManyRequests", "429 POST ...: quota exceeded")])
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is NodeStatus.FAILED and node.model == MODEL
    assert _findings(trajectory) == [(FindingCategory.RATE_LIMITED, node_id(2))]


def test_openlit_s_own_error_on_a_written_span_is_no_failed_call() -> None:
    trajectory = _run([_text_answer(2)])
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is NodeStatus.COMMITTED
    assert _findings(trajectory) == []


def test_openlit_s_own_error_on_an_unwritten_span_leaves_the_outcome_unknown() -> None:
    trajectory = _run([_handler_error(2, "ValueError", TEXT_REFUSED), _text_answer(3)])
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is NodeStatus.OUTCOME_UNKNOWN and node.model == MODEL
    assert _findings(trajectory) == []


def test_the_same_span_of_a_scope_that_writes_before_the_call_stays_failed() -> None:
    trajectory = _run([_handler_error(2, "ValueError", TEXT_REFUSED)], scope=openlit.MISTRAL_SCOPE)
    assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED


def test_an_error_with_the_sdk_s_description_stays_failed_though_error_type_is_written() -> None:
    raised = _raised(2, "ValueError", TEXT_REFUSED)
    raised.attributes.add(key="error.type").value.string_value = "ValueError"
    trajectory = _run([raised])
    assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED
