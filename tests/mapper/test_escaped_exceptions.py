"""A call whose span stayed OK while its exception escaped to the enclosing span is failed; a handled exception is
not (:mod:`otel_mapper.mapping.escaped_exceptions`)."""

from __future__ import annotations

from semconv.trajectory import NodeStatus
from tests.support.spans import get_node, map_spans, node_id, span

TIMEOUT = ("exception", {"exception.type": "litellm.exceptions.Timeout", "exception.message": "Request timed out."})
AGENT = {"openinference.span.kind": "AGENT", "agent.name": "support_agent"}
LLM = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini"}


def test_an_ok_call_whose_exception_the_parent_failed_with_is_failed() -> None:
    spans = [span(1, "agent_run [support_agent]", attrs=AGENT, error="Timeout: Request timed out.", events=[TIMEOUT]),
             span(2, "invoke_agent support_agent", parent=1, attrs=LLM, events=[TIMEOUT])]
    call = get_node(map_spans(spans), node_id(2))
    assert call.status is NodeStatus.FAILED
    assert call.error_type == "litellm.exceptions.Timeout"


def test_an_exception_the_parent_did_not_fail_with_was_handled() -> None:
    other = ("exception", {"exception.type": "ValueError", "exception.message": "bad"})
    for parent_error, parent_events in ((None, []), ("ValueError: bad", [other])):
        spans = [span(1, "agent_run [support_agent]", attrs=AGENT, error=parent_error, events=parent_events),
                 span(2, "invoke_agent support_agent", parent=1, attrs=LLM, events=[TIMEOUT])]
        assert get_node(map_spans(spans), node_id(2)).status is NodeStatus.COMMITTED
