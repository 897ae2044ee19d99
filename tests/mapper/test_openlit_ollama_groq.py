"""OpenLIT's Ollama and Groq client spans (``openlit`` 1.45, ``instrumentation/ollama`` on ``ollama`` 0.6,
``instrumentation/groq`` on ``groq`` 1.7; shapes as ``corpus/NOTES-frameworks-cs.md`` records them under spans of
OpenLIT's manual tracer):

- a request that raised leaves its ``chat <model>`` span with its name, status ERROR and the exception event alone, read
  from its name as a failed model call (:data:`semconv.openlit.NAMED_ONLY_SCOPES`);
- a span of theirs that has ``gen_ai.operation.name`` records a call that returned: its ERROR is OpenLIT's own failure
  to write the answer (Groq: an ``AttributeError`` on every answer that calls tools), not the request's
  (:data:`semconv.openlit.RETURN_RECORDED_SCOPES`);
- Ollama's finish reason is ``stop`` for every answer: an output that holds no part records nothing of the answer, and
  the calls the next input replays are that call's (:data:`semconv.genai.UNTOLD_CALL_FINISH_PROVIDERS`);
- a result whose call no span proposed joins the one tool run carrying its call id
  (:mod:`otel_mapper.mapping.unproposed_results`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig
from processor.detectors.model_error import ModelErrorDetector
from processor.detectors.rate_limited import RateLimitedDetector
from semconv import openlit
from semconv.trajectory import EdgeType, FindingCategory, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
MANUAL_SCOPE = "openlit"
"""The scope of ``openlit.start_trace`` blocks."""
SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "You are a support agent."}]}
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}
ANSWER = [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}], "finish_reason": "stop"}]


def _agent() -> Span:
    return span(1, "invoke_agent support_agent", kind=_CLIENT,
                attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"})


def _tool(number: int, call_id: str | None, name: str = "get_weather") -> Span:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                             "gen_ai.tool.call.arguments": '{"city": "Paris"}', "gen_ai.tool.call.result": "Paris: sunny"}
    if call_id:
        attrs["gen_ai.tool.call.id"] = call_id
    return span(number, f"execute_tool {name}", parent=1, kind=_CLIENT, attrs=attrs)


def _chat(number: int, provider: str, model: str, outputs: list[Any] | None, inputs: list[Any] | None,
          **extra: Any) -> Span:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": provider,
                             "gen_ai.request.model": model, "gen_ai.response.model": model, **extra}
    if outputs is not None:
        attrs["gen_ai.output.messages"] = json.dumps(outputs)
    if inputs is not None:
        attrs["gen_ai.input.messages"] = json.dumps(inputs)
    return span(number, f"chat {model}", parent=1, kind=_CLIENT, attrs=attrs)


def _ollama_run(provider: str = "ollama") -> Trajectory:
    """Chat 2 answered a call it did not write (``parts: []``, ``stop``), tool 3 ran it, chat 4 replays it (id "")."""
    empty = [{"role": "assistant", "parts": [], "finish_reason": "stop"}]
    replay = {"role": "assistant", "parts": [{"type": "text", "content": ""}, {"type": "tool_call", "id": "",
              "name": "get_weather", "arguments": {"city": "Paris"}}]}
    result = {"role": "tool", "parts": [{"type": "text", "content": "Paris: sunny"}]}
    chats = [_chat(2, provider, "llama3.2", empty, [SYSTEM, USER]),
             _chat(4, provider, "llama3.2", ANSWER, [SYSTEM, USER, replay, result])]
    return map_scoped_spans([(MANUAL_SCOPE, [_agent(), _tool(3, None)]), (openlit.OLLAMA_SCOPE, chats)])


def test_an_ollama_output_without_parts_takes_the_calls_the_next_input_replays() -> None:
    trajectory = _ollama_run()
    proposals = [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert [p.id.split("#")[0] for p in proposals] == [node_id(2)]
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposals[0].id)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_the_same_output_of_a_provider_that_says_tool_calls_proposes_nothing() -> None:
    trajectory = _ollama_run(provider="openai")
    assert not [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]


GROQ_MODEL = "llama-3.3-70b-versatile"
_OWN_ERROR = ("exception", {"exception.type": "AttributeError",
                            "exception.message": "'list' object has no attribute 'get'"})


def _groq_tool_answer(number: int, scope_error: bool = True) -> Span:
    """OpenLIT's Groq span of an answer that called tools: written up to the finish reasons, then its own error."""
    chat = _chat(number, "groq", GROQ_MODEL, None, None, **{"gen_ai.response.id": f"chatcmpl-{number}",
                 "gen_ai.response.finish_reasons": ["tool_calls"], "error.type": "AttributeError"})
    if scope_error:
        chat.status.code = chat.status.STATUS_CODE_ERROR
        event = chat.events.add()
        event.name, event.time_unix_nano = _OWN_ERROR[0], chat.end_time_unix_nano
        for key, value in _OWN_ERROR[1].items():
            attr = event.attributes.add()
            attr.key, attr.value.string_value = key, value
    return chat


def _groq_run(chats: list[Span], tools: list[Span], scope: str = openlit.GROQ_SCOPE) -> Trajectory:
    return map_scoped_spans([(MANUAL_SCOPE, [_agent(), *tools]), (scope, chats)])


def _consumer(number: int, call_ids: list[str]) -> Span:
    results = [{"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": "Paris: sunny"}]}
               for call_id in call_ids]
    return _chat(number, "groq", GROQ_MODEL, ANSWER, [SYSTEM, USER, *results])


def _findings(trajectory: Trajectory) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector())
    found = [d.detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig())) for d in detectors]
    return [(f.category, f.node_id) for result in found for f in getattr(result, "findings", result)]


@pytest.mark.parametrize("scope", [openlit.GROQ_SCOPE, openlit.OLLAMA_SCOPE])
def test_openlit_s_own_error_on_a_written_span_is_no_failed_call(scope: str) -> None:
    trajectory = _groq_run([_groq_tool_answer(2), _consumer(4, ["call_1"])], [_tool(3, "call_1")], scope=scope)
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is not NodeStatus.FAILED
    assert _findings(trajectory) == []


def test_the_same_span_of_another_scope_stays_failed() -> None:
    trajectory = _groq_run([_groq_tool_answer(2), _consumer(4, ["call_1"])], [_tool(3, "call_1")],
                           scope="another.instrumentation")
    assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED


@pytest.mark.parametrize(("scope", "model", "error_type", "message"), [
    (openlit.GROQ_SCOPE, GROQ_MODEL, "groq.RateLimitError", "Error code: 429 - rate limit reached"),
    (openlit.OLLAMA_SCOPE, "llama3.2", "ollama._types.ResponseError", "rate limit exceeded (status code: 429)"),
])
def test_a_request_that_raised_is_a_failed_model_call_read_from_its_name(
    scope: str, model: str, error_type: str, message: str
) -> None:
    raised = span(2, f"chat {model}", parent=1, kind=_CLIENT, error=f"{error_type.rsplit('.', 1)[-1]}: {message}",
                  events=[("exception", {"exception.type": error_type, "exception.message": message})])
    trajectory = _groq_run([raised], [], scope=scope)
    node = get_node(trajectory, node_id(2))
    assert node.kind is NodeKind.MODEL_CALL and node.status is NodeStatus.FAILED and node.model == model
    assert _findings(trajectory) == [(FindingCategory.RATE_LIMITED, node_id(2))]


def test_a_result_no_span_proposed_joins_the_one_run_with_its_call_id() -> None:
    trajectory = _groq_run([_groq_tool_answer(2), _consumer(4, ["call_1"])], [_tool(3, "call_1")])
    assert not [n for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_two_runs_with_the_call_id_join_neither() -> None:
    trajectory = _groq_run([_groq_tool_answer(2), _consumer(5, ["call_1"])], [_tool(3, "call_1"), _tool(4, "call_1")])
    assert not has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(3))
    assert not has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))
