"""Haystack under OpenLIT (:mod:`otel_mapper.mapping.readers.openlit_haystack`, the framework-component rule of
:mod:`otel_mapper.mapping.nested_runs`). Shapes as ``openlit`` 1.45 records Haystack 3.4 (``corpus/NOTES-frameworks-al.md``):
``invoke_workflow pipeline`` around the run, ``chat openai_chat_generator`` around each generator run (provider
``haystack``, no model), OpenLIT's OpenAI ``chat gpt-4o-mini`` inside it; attributes written only when the call
returned, and the pipeline's span ERROR from OpenLIT's own failure to record an Agent's output."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.model import Trajectory
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from semconv.trajectory import NodeKind, NodeStatus, TerminalStatus
from tests.detectors.support import config
from tests.support.spans import envelopes, get_node, kinds, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
HAYSTACK = {"gen_ai.provider.name": "haystack", "gen_ai.sdk.version": "3.4.1", "telemetry.sdk.name": "openlit"}
SCOPE = "openlit.instrumentation.haystack"
OWN_ERROR = "AttributeError: 'str' object has no attribute '__name__'"


def _map(haystack: Sequence[Span], openai: Sequence[Span], *, scope: str = SCOPE) -> Trajectory:
    items = envelopes(haystack, scope=scope) + envelopes(openai, scope="openlit.instrumentation.openai")
    return map_trace(items).trajectory


def _pipeline(*, returned: bool = True, error: str | None = OWN_ERROR) -> Span:
    attrs: dict[str, Any] = {}
    if returned:  # a call that raised leaves its name alone
        attrs = {**HAYSTACK, "gen_ai.operation.name": "invoke_workflow"}
        if error:
            attrs["error.type"] = error.partition(":")[0]
    return span(1, "invoke_workflow pipeline", kind=_CLIENT, error=error, attrs=attrs)


def _generator(number: int, *, returned: bool = True) -> Span:
    attrs = ({**HAYSTACK, "gen_ai.operation.name": "chat", "gen_ai.framework.component.type": "generator"}
             if returned else {})
    return span(number, "chat openai_chat_generator", parent=1, kind=_CLIENT, attrs=attrs,
                error=None if returned else "RateLimitError: Error code: 429")


def _request(number: int, parent: int, *, failed: bool = False, answer: str = "Sunny.") -> Span:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                             "gen_ai.request.model": "gpt-4o-mini"}
    if failed:
        attrs["error.type"] = "RateLimitError"
    else:
        attrs |= {"gen_ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.usage.input_tokens": 100,
                  "gen_ai.usage.output_tokens": 20, "gen_ai.output.messages": json.dumps(
                      [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])}
    return span(number, "chat gpt-4o-mini", parent=parent, kind=_CLIENT, attrs=attrs,
                error="Error code: 429" if failed else None)


def test_a_generator_span_and_the_request_inside_it_are_one_model_call() -> None:
    trajectory = _map([_pipeline(), _generator(2), _generator(4)], [_request(3, 2), _request(5, 4)])
    assert kinds(trajectory).get("model_call") == 2
    for request in (3, 5):
        node = get_node(trajectory, node_id(request))
        assert node.kind is NodeKind.MODEL_CALL and node.actor == "gpt-4o-mini-2024-07-18"
    assert trajectory.node(node_id(2)) is None and trajectory.node(node_id(4)) is None


def test_a_raised_generator_span_is_the_failed_request_it_holds() -> None:
    trajectory = _map([_pipeline(), _generator(2, returned=False), _generator(4)],
                      [_request(3, 2, failed=True), _request(5, 4)])
    assert kinds(trajectory).get("model_call") == 2
    failed = get_node(trajectory, node_id(3))
    assert failed.status is NodeStatus.FAILED and failed.actor == "gpt-4o-mini"
    assert all(node.actor != "openai_chat_generator" for node in trajectory.nodes)


def test_a_generator_span_with_no_request_inside_stays_a_model_call() -> None:
    trajectory = _map([_pipeline(), _generator(2)], [])
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.actor == "haystack"


def test_a_pipeline_that_returned_did_not_fail_whatever_openlit_recorded() -> None:
    trajectory = _map([_pipeline(), _generator(2)], [_request(3, 2)])
    pipeline = get_node(trajectory, node_id(1))
    assert pipeline.kind is NodeKind.WORKFLOW_STEP and pipeline.status is NodeStatus.COMMITTED
    diagnosis = DetectorChain(load_detectors(config()), config()).run(trajectory)
    assert diagnosis.terminal_status is TerminalStatus.SUCCESS


def test_a_pipeline_that_raised_is_a_failed_step_read_from_its_name() -> None:
    trajectory = _map([_pipeline(returned=False, error="InternalServerError: Error code: 500")], [])
    pipeline = get_node(trajectory, node_id(1))
    assert pipeline.kind is NodeKind.WORKFLOW_STEP and pipeline.status is NodeStatus.FAILED


def test_on_another_scope_the_error_is_the_calls_and_the_framework_provider_still_merges() -> None:
    trajectory = _map([_pipeline(), _generator(2)], [_request(3, 2)], scope="some.other.scope")
    assert get_node(trajectory, node_id(1)).status is NodeStatus.FAILED
    assert kinds(trajectory).get("model_call") == 1  # the provider, not the scope, names the framework component


def test_a_model_call_inside_a_model_call_of_one_convention_and_provider_stays_apart() -> None:
    outer = span(2, "chat gpt-4o-mini", parent=1, kind=_CLIENT, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini"})
    trajectory = _map([_pipeline()], [outer, _request(3, 2)])
    assert kinds(trajectory).get("model_call") == 2
