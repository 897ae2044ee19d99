"""A call whose recorded exception was raised in the telemetry's own code is no failed call: its outcome is unknown
(:mod:`otel_mapper.mapping.telemetry_faults`). Spans in the GenAI convention, written by hand: an instrumentation that
fails writing a call's answer records its own exception, whose innermost frame lies in its package; the exception of
a call that failed is re-raised through the wrapper, its innermost frame in the client SDK."""

from __future__ import annotations

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.telemetry_faults import MAX_TRACE_WINDOW, innermost_frame_path
from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.tool_error import ToolErrorDetector
from semconv.trajectory import FindingCategory, NodeKind, NodeStatus
from tests.support.spans import get_node, map_spans, node_id, span

SITE = "/home/app/.venv/lib/python3.11/site-packages"
WRAPPER = f'  File "{SITE}/someinstr/instrumentation/wrapper.py", line 40, in wrapper\n    response = wrapped(*args)\n'


def _python_trace(*frames: str, error: str) -> str:
    body = "".join(f'  File "{path}", line {line}, in {function}\n    code()\n'
                   for line, (path, function) in enumerate((frame.split("::") for frame in frames), start=10))
    return f"Traceback (most recent call last):\n{body}{error}\n"


def _openlit_fault() -> str:
    return _python_trace(f"{SITE}/openlit/instrumentation/groq/groq.py::wrapper",
                         f"{SITE}/openlit/instrumentation/groq/utils.py::process_response",
                         error="AttributeError: 'list' object has no attribute 'get'")


def _client_error(venv: str = "/home/app/.venv") -> str:
    site = f"{venv}/lib/python3.11/site-packages"
    return _python_trace(f"{site}/openlit/instrumentation/openai/openai.py::wrapper",
                         f"{site}/openai/_base_client.py::request",
                         error="openai.InternalServerError: Error code: 500 - {'error': 'boom'}")


def _failed(number: int, name: str, attrs: dict[str, object], error_type: str, stacktrace: str,
            parent: int | None = 1) -> Span:
    return span(number, name, parent=parent, kind=Span.SPAN_KIND_CLIENT, error=f"{error_type}: failed",
                events=[("exception", {"exception.type": error_type, "exception.message": "failed",
                                       "exception.stacktrace": stacktrace})], attrs=attrs)


def _chat(number: int, stacktrace: str, error_type: str = "AttributeError") -> Span:
    return _failed(number, "chat llama-3.3", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "llama-3.3",
                                              "gen_ai.provider.name": "groq"}, error_type, stacktrace)


def _agent(stacktrace: str | None = None) -> Span:
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"}
    if stacktrace is None:
        return span(1, "invoke_agent support_agent", attrs=attrs)
    return _failed(1, "invoke_agent support_agent", attrs, "AttributeError", stacktrace, parent=None)


def _findings(trajectory: Trajectory) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), ToolErrorDetector())
    found = [d.detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig())) for d in detectors]
    return [(f.category, f.node_id) for result in found for f in getattr(result, "findings", result)
            if f.status.value == "fail"]


def test_an_exception_raised_in_the_instrumentation_leaves_the_call_s_outcome_unknown() -> None:
    trajectory = map_spans([_agent(), _chat(2, _openlit_fault())])
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is NodeStatus.OUTCOME_UNKNOWN
    assert _findings(trajectory) == []


def test_an_exception_raised_in_the_client_is_the_call_s_failure() -> None:
    for venv in ("/home/app/.venv", "/srv/openlit", "/opt/opentelemetry/instrumentation"):  # folders above the package
        trajectory = map_spans([_agent(), _chat(2, _client_error(venv), "openai.InternalServerError")])
        assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED
        assert _findings(trajectory) == [(FindingCategory.MODEL_ERROR, node_id(2))]


def test_a_tool_s_own_exception_is_its_failure_and_the_instrumentation_s_is_not() -> None:
    tool_attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order"}
    raised = _python_trace(f"{SITE}/opentelemetry/instrumentation/tools.py::wrapper", "/srv/app/tools.py::lookup_order",
                           error="KeyError: 'A-1'")
    fault = _python_trace("/srv/app/tools.py::main", f"{SITE}/opentelemetry/instrumentation/tools.py::record",
                          error="TypeError: unhashable type")
    trajectory = map_spans([_agent(), _failed(2, "execute_tool lookup_order", tool_attrs, "KeyError", raised),
                            _failed(3, "execute_tool lookup_order", tool_attrs, "TypeError", fault)])
    assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED
    assert get_node(trajectory, node_id(3)).status is NodeStatus.OUTCOME_UNKNOWN


def test_an_agent_that_ended_in_error_failed_whatever_raised() -> None:
    trajectory = map_spans([_agent(_openlit_fault())])
    node = get_node(trajectory, node_id(1))
    assert node.kind is NodeKind.AGENT_INVOCATION and node.status is NodeStatus.FAILED


def test_a_call_without_a_stack_trace_stays_failed() -> None:
    chat = span(2, "chat llama-3.3", parent=1, error="AttributeError: x",
                events=[("exception", {"exception.type": "AttributeError", "exception.message": "x"})],
                attrs={"gen_ai.operation.name": "chat", "gen_ai.request.model": "llama-3.3"})
    assert get_node(map_spans([_agent(), chat]), node_id(2)).status is NodeStatus.FAILED


def test_the_innermost_frame_of_python_and_javascript_traces() -> None:
    assert innermost_frame_path(_openlit_fault()) == f"{SITE}/openlit/instrumentation/groq/utils.py"
    chained = _client_error() + "\nDuring handling of the above exception, another exception occurred:\n\n" + \
        _openlit_fault()
    assert innermost_frame_path(chained) == f"{SITE}/openlit/instrumentation/groq/utils.py"
    javascript = ("TypeError: Cannot read properties of undefined (reading 'map')\n"
                  "    at setResponse (/app/node_modules/@traceloop/instrumentation-openai/dist/index.js:512:31)\n"
                  "    at async Completions.create (/app/node_modules/openai/resources/chat.js:40:5)\n")
    assert innermost_frame_path(javascript) == "/app/node_modules/@traceloop/instrumentation-openai/dist/index.js"
    assert innermost_frame_path("TypeError: no frames") is None
    long = _client_error() + " " * (2 * MAX_TRACE_WINDOW)  # only the tail of a Python traceback is looked at
    assert innermost_frame_path(long) is None


def test_a_javascript_call_failed_in_the_instrumentation_is_of_unknown_outcome() -> None:
    javascript = ("TypeError: Cannot read properties of undefined (reading 'map')\n"
                  "    at setResponse (/app/node_modules/@traceloop/instrumentation-openai/dist/index.js:512:31)\n")
    trajectory = map_spans([_agent(), _chat(2, javascript, "TypeError")])
    assert get_node(trajectory, node_id(2)).status is NodeStatus.OUTCOME_UNKNOWN
