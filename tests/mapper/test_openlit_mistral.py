"""OpenLIT's Mistral AI SDK spans (``openlit`` 1.45, ``instrumentation/mistral``, on ``mistralai`` 1.12; shapes as
``corpus/NOTES-frameworks-cn.md`` records them under spans of OpenLIT's manual tracer):

- a request that raised leaves its ``chat <model>`` span with its name, status ERROR and the exception event alone, read
  from its name as a failed model call (:data:`semconv.openlit.NAMED_ONLY_SCOPES`);
- the SDK's own request span (scope ``mistralai_sdk_tracer``) is a child of OpenLIT's span, which is current while the
  SDK sends: one request, one model call (:mod:`otel_mapper.mapping.sdk_request_twins`);
- the input keeps each message's text alone: no assistant message of a turn that only called tools, each result a
  ``tool`` message without call id, the results of every earlier turn one after the other; the last turn's results
  answer the call whose input ends where they start (:mod:`otel_mapper.mapping.prefix`)."""

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
from semconv.trajectory import EdgeType, FindingCategory, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_scoped_spans, node_id, span

_CLIENT = Span.SPAN_KIND_CLIENT
MANUAL_SCOPE = "openlit"
"""The scope of ``openlit.start_trace`` blocks."""
SDK_SCOPE = "mistralai_sdk_tracer"
MODEL = "mistral-small-latest"
SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "You are a support agent."}]}
USER = {"role": "user", "parts": [{"type": "text", "content": "Will A-1001 be late?"}]}
FAILURES = {
    FindingCategory.MODEL_ERROR: ("mistralai.models.sdkerror.SDKError", 'API error occurred: Status 500. Body: {}', 500),
    FindingCategory.RATE_LIMITED: ("mistralai.models.sdkerror.SDKError", 'API error occurred: Status 429. Body: {}', 429),
    FindingCategory.INFRA_TIMEOUT: ("httpx.ReadTimeout", "timed out", None),
}


def _tool_message(text: str) -> dict[str, Any]:
    return {"role": "tool", "parts": [{"type": "text", "content": text}]}


def _chat(number: int, inputs: list[dict[str, Any]], calls: list[tuple[str, str, dict[str, str]]]) -> Span:
    """OpenLIT's span of a request that returned: ``calls`` (id, name, arguments) as the answer's tool calls."""
    parts = [{"type": "tool_call", "id": call_id, "name": name, "arguments": args} for call_id, name, args in calls]
    answer = {"role": "assistant", "parts": parts or [{"type": "text", "content": "On time."}],
              "finish_reason": "tool_call" if calls else "stop"}
    return span(number, f"chat {MODEL}", parent=1, kind=_CLIENT, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "mistral_ai", "gen_ai.request.model": MODEL,
        "gen_ai.response.model": MODEL, "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20,
        "gen_ai.input.messages": json.dumps(inputs), "gen_ai.output.messages": json.dumps([answer])})


def _tool(number: int, call_id: str, name: str, result: str) -> Span:
    return span(number, f"execute_tool {name}", parent=1, kind=_CLIENT, attrs={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.call.result": result})


def _agent(error: str | None = None, events: list[Any] | None = None) -> Span:
    return span(1, "invoke_agent support_agent", kind=_CLIENT, error=error, events=events or [],
                attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"})


def _sdk(number: int, parent: int, status: int = 200) -> Span:
    attrs: dict[str, Any] = {"http.request.method": "POST", "gen_ai.request.model": MODEL,
                             "http.response.status_code": status}
    if status == 200:
        attrs.update({"mistral_ai.operation.id": "chat_completion_v1_chat_completions_post",
                      "gen_ai.provider.name": "mistral_ai", "gen_ai.usage.output_tokens": 20})
    else:
        attrs.update({"mistral_ai.error.type": "rate_limited", "mistral_ai.error.code": "1300"})
    return span(number, "chat_completion_v1_chat_completions_post", parent=parent, attrs=attrs)


def _failed_run(category: FindingCategory, chat_scope: str = openlit.MISTRAL_SCOPE) -> Trajectory:
    """Agent 1 -> chat 2 proposing get_weather, tool 3, chat 4 that raised (the SDK's span 5 inside it, unless the
    request got no answer) and no attribute; chat 2 holds the SDK's span 6."""
    error_type, message, status = FAILURES[category]
    description = f"{error_type.rsplit('.', 1)[-1]}: {message}"
    event = ("exception", {"exception.type": error_type, "exception.message": message})
    chats = [_chat(2, [SYSTEM, USER], [("call_1", "get_weather", {"city": "Rome"})]),
             span(4, f"chat {MODEL}", parent=1, kind=_CLIENT, error=description, events=[event])]
    sdk = [_sdk(6, 2)] + ([_sdk(5, 4, status)] if status else [])
    manual = [_agent(description, [event]), _tool(3, "call_1", "get_weather", "Rome: clear")]
    return map_scoped_spans([(MANUAL_SCOPE, manual), (chat_scope, chats), (SDK_SCOPE, sdk)])


def _findings(trajectory: Trajectory) -> list[tuple[FindingCategory, str]]:
    detectors = (ModelErrorDetector(), RateLimitedDetector(), InfraTimeoutDetector())
    found = [d.detect(trajectory, DetectorContext.build(trajectory, DetectorsConfig())) for d in detectors]
    return [(f.category, f.node_id) for result in found for f in getattr(result, "findings", result)]


@pytest.mark.parametrize("category", sorted(FAILURES, key=str))
def test_a_failed_request_is_one_failed_model_call_found_on_its_own_span(category: FindingCategory) -> None:
    trajectory = _failed_run(category)
    failed = get_node(trajectory, node_id(4))
    assert failed.kind is NodeKind.MODEL_CALL and failed.status is NodeStatus.FAILED and failed.model == MODEL
    assert kinds(trajectory)["model_call"] == 2
    assert get_node(trajectory, node_id(6)).kind is NodeKind.OTHER
    assert _findings(trajectory) == [(category, node_id(4))]


def test_the_same_failed_span_of_another_scope_stays_unread() -> None:
    trajectory = _failed_run(FindingCategory.INFRA_TIMEOUT, chat_scope="another.instrumentation")
    assert get_node(trajectory, node_id(4)).kind is NodeKind.OTHER


def test_the_sdk_span_inside_a_model_call_is_that_call_s_request() -> None:
    trajectory = map_scoped_spans([(MANUAL_SCOPE, [_agent()]), (openlit.MISTRAL_SCOPE, [_chat(2, [SYSTEM, USER], [])]),
                                   (SDK_SCOPE, [_sdk(3, 2)])])
    assert kinds(trajectory)["model_call"] == 1
    assert get_node(trajectory, node_id(3)).kind is NodeKind.OTHER
    assert any(d.qualifier == "sdk_request_twin" and d.count == 1 for d in trajectory.declarations)


def test_sdk_spans_inside_a_model_call_stay_calls_when_it_does_not_account_for_them() -> None:
    chat = _chat(2, [SYSTEM, USER], [])
    # two requests under one call (a client retrying inside it): one call does not stand for both
    trajectory = map_scoped_spans([(MANUAL_SCOPE, [_agent()]), (openlit.MISTRAL_SCOPE, [chat]),
                                   (SDK_SCOPE, [_sdk(3, 2), _sdk(4, 2)])])
    assert kinds(trajectory)["model_call"] == 3
    # a failed request under a call that did not fail: its failure would be lost
    trajectory = map_scoped_spans([(MANUAL_SCOPE, [_agent()]), (openlit.MISTRAL_SCOPE, [chat]),
                                   (SDK_SCOPE, [_sdk(3, 2, status=429)])])
    assert get_node(trajectory, node_id(3)).kind is NodeKind.MODEL_CALL


WEATHER = ("call_1", "get_weather", {"city": "Paris"}, "Paris: sunny")
ORDER = ("call_2", "lookup_order", {"order_id": "A-1001"}, "A-1001: shipped")
DOCS = ("call_3", "search_docs", {"query": "delays"}, "No delays.")


def _loop(turns: list[list[tuple[str, str, dict[str, str], str]]]) -> Trajectory:
    """Agent 1 running one chat per turn (span 10 + k) proposing that turn's calls, each run as a tool span
    (20 + 10 * k + i), then a last chat; every input as OpenLIT's Mistral spans write it: system, user, then the result
    texts of every earlier turn, no assistant message."""
    chats: list[Span] = []
    tools: list[Span] = []
    seen: list[dict[str, Any]] = [SYSTEM, USER]
    for k, turn in enumerate(turns + [[]]):
        chats.append(_chat(10 + k, list(seen), [(call_id, name, args) for call_id, name, args, _ in turn]))
        for i, (call_id, name, _, result) in enumerate(turn):
            tools.append(_tool(20 + 10 * k + i, call_id, name, result))
            seen.append(_tool_message(result))
    return map_scoped_spans([(MANUAL_SCOPE, [_agent()] + tools), (openlit.MISTRAL_SCOPE, chats)])


def test_the_one_result_after_the_proposer_s_input_answers_its_one_call() -> None:
    trajectory = _loop([[WEATHER]])
    assert has_edge(trajectory, node_id(11), EdgeType.DEPENDS_ON, node_id(20))


def test_a_turn_s_results_answer_its_calls_by_the_text_their_runs_returned() -> None:
    trajectory = _loop([[ORDER, WEATHER, DOCS]])
    for offset in range(3):
        assert has_edge(trajectory, node_id(11), EdgeType.DEPENDS_ON, node_id(20 + offset))


def test_only_the_last_turn_s_results_are_read_where_earlier_turns_run_into_them() -> None:
    same = [("call_1", "get_weather", {"city": "Oslo"}, "Oslo: rain"), ("call_2", "get_weather", {"city": "Oslo"},
            "Oslo: rain"), ("call_3", "get_weather", {"city": "Oslo"}, "Oslo: rain")]
    trajectory = _loop([[call] for call in same])
    for k in range(3):  # chat 11 + k reads the result of the run of chat 10 + k's call, and of no earlier one
        assert has_edge(trajectory, node_id(11 + k), EdgeType.DEPENDS_ON, node_id(20 + 10 * k))
        assert not any(has_edge(trajectory, node_id(11 + k), EdgeType.DEPENDS_ON, node_id(20 + 10 * j)) for j in range(k))


def test_results_after_an_input_no_call_had_join_nothing() -> None:
    other_user = {"role": "user", "parts": [{"type": "text", "content": "Something else?"}]}
    stray = _chat(12, [SYSTEM, other_user, _tool_message("Paris: sunny")], [])
    trajectory = map_scoped_spans([(MANUAL_SCOPE, [_agent(), _tool(20, *WEATHER[:2], WEATHER[3])]),
                                   (openlit.MISTRAL_SCOPE, [_chat(10, [SYSTEM, USER], [WEATHER[:3]]), stray])])
    assert not has_edge(trajectory, node_id(12), EdgeType.DEPENDS_ON, node_id(20))
