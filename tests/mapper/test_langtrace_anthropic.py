"""Langtrace's Anthropic wrapper on a raw tool loop (:mod:`otel_mapper.mapping.decorated_runs`): its
``anthropic.messages.create`` span records the request's Anthropic messages in its prompt event but, of the answer,
only the first content block (a ``tool_use`` block as ``gen_ai.request.tool_results``, no completion event), so a
turn's calls show as proposals only where the next request replays them; the application's tool functions are spans
of ``with_langtrace_root_span`` (no attribute), as ``langtrace-python-sdk`` 3.8.21 writes them."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

ROOT_SCOPE = "langtrace_python_sdk.utils.with_root_span"
ANTHROPIC_SCOPE = "langtrace_python_sdk.instrumentation.anthropic.instrumentation"
CLIENT = {
    "langtrace.sdk.name": "langtrace-python-sdk",
    "langtrace.service.type": "llm",
    "langtrace.service.name": "Anthropic",
    "gen_ai.operation.name": "chat",
    "gen_ai.system": "anthropic",
    "gen_ai.request.model": "claude-haiku-4-5",
}
TOOLS = [{"name": name, "input_schema": {"type": "object"}} for name in ("get_weather", "search_docs")]
USER = [{"role": "user", "content": "weather in Paris, and the refund policy?"}, {"role": "system", "content": "help"}]
WEATHER = {"id": "toolu_1", "input": {"city": "Paris"}, "name": "get_weather", "type": "tool_use"}
DOCS = {"id": "toolu_2", "input": {"query": "refund"}, "name": "search_docs", "type": "tool_use"}


def _request(number: int, parent: int, prompt: list[Any], *, first_call: dict[str, Any] | None = None,
             answer: str | None = None) -> Any:
    """Langtrace's span of one request: the prompt event; of the answer, its first block only."""
    events = [("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(prompt)})]
    attrs = {**CLIENT, "gen_ai.request.tools": json.dumps([json.dumps(TOOLS)])}
    if first_call is not None:
        attrs["gen_ai.request.tool_results"] = json.dumps(json.dumps(first_call))
    if answer is not None:
        completion = [{"type": "text", "role": "assistant", "content": answer}]
        events.append(("gen_ai.content.completion", {"gen_ai.completion": json.dumps(completion)}))
    return span(number, "anthropic.messages.create", parent=parent, attrs=attrs, events=events)


def _replay() -> list[Any]:
    results = [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "30 days"},
    ]
    return [*USER, {"role": "assistant", "content": [WEATHER, DOCS]}, {"role": "user", "content": results},
            {"role": "system", "content": "help"}]


def _loop(tool_error: str | None = None) -> Any:
    """``support_agent`` -> a request answering two calls (only the first recorded on its span), the two decorated
    tools, the next request replaying both calls and their results."""
    decorated = [
        span(2, "support_agent"),
        span(4, "get_weather", parent=2),
        span(5, "search_docs", parent=2, error=tool_error),
    ]
    requests = [_request(3, 2, USER, first_call=WEATHER), _request(6, 2, _replay(), answer="Sunny; 30 days.")]
    return map_scoped_spans([(ROOT_SCOPE, decorated), (ANTHROPIC_SCOPE, requests)])


def test_a_decorated_function_named_as_a_call_a_request_beside_it_replays_is_that_tool_s_run() -> None:
    # search_docs is on no attribute of the span that proposed it: only the next request's prompt replays it.
    trajectory = _loop()
    for number, tool in ((4, "get_weather"), (5, "search_docs")):
        node = get_node(trajectory, node_id(number))
        assert (node.kind, node.tool_name) == (NodeKind.TOOL_EXECUTION, tool)
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(5))


def test_a_replayed_call_s_decorated_run_that_raised_is_a_failed_tool_run() -> None:
    trajectory = _loop(tool_error="ToolFailure: index offline")
    node = get_node(trajectory, node_id(5))
    assert (node.kind, node.status) == (NodeKind.TOOL_EXECUTION, NodeStatus.FAILED)


def test_a_call_replayed_under_another_span_makes_no_run_here() -> None:
    # The request replaying search_docs sits under another agent: the decorated span beside neither request is not
    # taken for that call's run.
    decorated = [span(1, "support_workflow"), span(2, "support_agent", parent=1), span(5, "search_docs", parent=1)]
    requests = [_request(3, 2, USER, first_call=WEATHER), _request(6, 2, _replay(), answer="done")]
    trajectory = map_scoped_spans([(ROOT_SCOPE, decorated), (ANTHROPIC_SCOPE, requests)])
    assert get_node(trajectory, node_id(5)).kind is NodeKind.WORKFLOW_STEP
