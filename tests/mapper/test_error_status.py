"""The HTTP status a failed model call's error text names, read when no status attribute records it; a tool's error
text may quote another service's status and keeps the narrower reading."""

from __future__ import annotations

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.readers.common import MAX_ERROR_MESSAGE
from tests.support.spans import get_node, map_spans, node_id, span

# A client generated from an API definition writes the response's headers before its status.
_HEADERS = ", ".join(f"'x-header-{n}': '{'v' * 40}'" for n in range(20))
_GENERATED = f"headers: {{{_HEADERS}}}, status_code: 429, body: {{'message': 'You are past the per minute request limit'}}"


@pytest.mark.parametrize(("text", "status"), [
    ("Error code: 429 - {'error': {'message': 'Rate limit reached'}}", 429),
    ("Server error '503 Service Unavailable' for url, status 503", 503),
    ("headers: {'server': 'x'}, status_code: 500, body: {'message': 'internal'}", 500),
    ("status code 408", 408),
    ("HTTP 504 Gateway Timeout", 504),
    ("order 'A-10O1' not found", None),
    ("status_code: 42", None),
])
def test_a_failed_model_calls_status_is_read_from_the_texts_clients_write(text: str, status: int | None) -> None:
    agent = span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"})
    call = get_node(map_spans([agent, _failed_call(text, in_event=False)]), node_id(2))
    assert call.http_status == status


def test_a_tools_status_code_text_is_not_read_as_its_http_status() -> None:
    agent = span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"})
    tool = span(2, "execute_tool fetch", parent=1, error="status_code: 503 from the upstream API", attrs={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch", "gen_ai.tool.call.id": "c1"})
    assert get_node(map_spans([agent, tool]), node_id(2)).http_status is None


def _failed_call(message: str, *, in_event: bool) -> Span:
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "cohere", "gen_ai.request.model": "command-a"}
    if in_event:
        events = [("exception", {"exception.type": "ApiError", "exception.message": message})]
        return span(2, "chat command-a", parent=1, attrs=attrs, error="ApiError", events=events)
    return span(2, "chat command-a", parent=1, attrs=attrs, error=message)


@pytest.mark.parametrize("in_event", [True, False])
def test_a_status_written_after_long_headers_is_found_though_the_kept_message_is_cut(in_event: bool) -> None:
    assert _GENERATED.index("status_code") > MAX_ERROR_MESSAGE
    agent = span(1, "invoke_agent support", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"})

    call = get_node(map_spans([agent, _failed_call(_GENERATED, in_event=in_event)]), node_id(2))

    assert call.http_status == 429
    assert call.error_message is not None and len(call.error_message) <= MAX_ERROR_MESSAGE
