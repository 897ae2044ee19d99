"""An ERROR status OpenInference's Vercel span processor copied from another span's failure is not the span's own;
an error of the span's own stays (:mod:`otel_mapper.mapping.copied_statuses`)."""

from __future__ import annotations

from typing import Any

from otel_mapper.mapping.build import MappingOptions, map_trace
from semconv.trajectory import NodeStatus
from tests.support.spans import envelopes, get_node, map_spans, node_id, span

MESSAGE = "order 'A-10O1' not found"
RAISED = ("exception", {"exception.type": "ToolFailure", "exception.message": MESSAGE})
RUN = {"openinference.span.kind": "AGENT", "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"}
STEP = {"openinference.span.kind": "CHAIN", "gen_ai.operation.name": "agent_step"}
CHAT = {"openinference.span.kind": "LLM", "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"}


def _tool(call_id: str) -> dict[str, Any]:
    return {"openinference.span.kind": "TOOL", "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": call_id, "tool.name": "lookup_order"}


def _run(*, copied: str | None = MESSAGE, source_events: bool = True,
         chat_attrs: dict[str, Any] | None = None) -> list:
    """A run whose first tool raised (its own exception event) and went on: the second step's call and tool, the
    steps and the run carry ``copied`` as their ERROR message with no evidence of their own."""
    return [
        span(1, "invoke_agent gpt-4o-mini", attrs=RUN, error=copied),
        span(2, "step 1", parent=1, attrs=STEP, error=copied),
        span(3, "chat gpt-4o-mini", parent=2, attrs=CHAT),
        span(4, "execute_tool lookup_order", parent=2, attrs=_tool("call_1"), error=MESSAGE,
             events=[RAISED] if source_events else []),
        span(5, "step 2", parent=1, attrs=STEP, error=copied),
        span(6, "chat gpt-4o-mini", parent=5, attrs=chat_attrs or CHAT, error=copied),
        span(7, "execute_tool lookup_order", parent=5, attrs=_tool("call_2"), error=copied),
    ]


def test_an_error_copied_from_a_failure_with_an_exception_is_not_the_spans_own() -> None:
    trajectory = map_spans(_run())
    assert get_node(trajectory, node_id(4)).status is NodeStatus.FAILED
    for copy in (1, 2, 5, 6, 7):
        node = get_node(trajectory, node_id(copy))
        assert node.status is not NodeStatus.FAILED, copy
        assert node.error_message is None


def test_an_error_message_of_the_spans_own_stays_failed() -> None:
    spans = _run()
    spans[5] = span(6, "chat gpt-4o-mini", parent=5, attrs=CHAT, error="Internal server error")
    assert get_node(map_spans(spans), node_id(6)).status is NodeStatus.FAILED


def test_without_a_failure_that_recorded_its_exception_every_error_stays() -> None:
    trajectory = map_spans(_run(source_events=False))
    for number in (1, 2, 4, 5, 6, 7):
        assert get_node(trajectory, node_id(number)).status is NodeStatus.FAILED, number


def test_a_span_of_one_convention_alone_keeps_its_error() -> None:
    only_openinference = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini"}
    only_genai = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"}
    for attrs in (only_openinference, only_genai):
        assert get_node(map_spans(_run(chat_attrs=attrs)), node_id(6)).status is NodeStatus.FAILED


def test_an_error_with_its_own_evidence_stays_failed() -> None:
    spans = _run()
    spans[5] = span(6, "chat gpt-4o-mini", parent=5, attrs={**CHAT, "error.type": "AI_APICallError"}, error=MESSAGE)
    assert get_node(map_spans(spans), node_id(6)).status is NodeStatus.FAILED


def test_a_run_mapped_in_pieces_settles_the_copies_as_the_whole_run() -> None:
    spans = _run()
    pieces = (spans[2:4], [*spans[:2], *spans[4:]]), ([*spans[:2], *spans[4:]], spans[2:4])
    for first, second in pieces:
        state = map_trace(envelopes(first), MappingOptions(revision=1, keep_run=True)).state
        trajectory = map_trace(envelopes(second), MappingOptions(revision=2, keep_run=True), state).trajectory
        assert get_node(trajectory, node_id(4)).status is NodeStatus.FAILED
        for copy in (1, 2, 5, 6, 7):
            assert get_node(trajectory, node_id(copy)).status is not NodeStatus.FAILED, copy
