"""OpenLLMetry's Writer instrumentation (``opentelemetry-instrumentation-writer`` 0.62.4, ``writerai.chat`` spans beside
traceloop-sdk's decorated functions, corpus/NOTES-frameworks-dg.md): legacy prompts that keep a turn's calls with their
ids but drop each tool message's ``tool_call_id``, decorated tool runs with no call id whose ``traceloop.entity.output``
is the JSON string of the text they returned; and a request that raised, whose span is a bare ERROR while the agent
span it ran under records the model client's exception."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

DECORATOR_SCOPE = "traceloop.tracer"
CLIENT_SCOPE = "opentelemetry.instrumentation.writer"
QUESTION = "Weather in Paris and Rome?"
CALLS = (("call_1", "Paris"), ("call_2", "Rome"))


def _decorated(number: int, name: str, kind: str, parent: int | None, error: str | None = None,
               events: tuple[tuple[str, dict[str, Any]], ...] = ()) -> Span:
    return span(number, f"{name}.{kind}", parent=parent, error=error, events=events, attrs={
        "traceloop.span.kind": kind, "traceloop.entity.name": name})


def _tool(number: int, city: str, output: str) -> Span:
    return span(number, "get_weather.tool", parent=2, attrs={
        "traceloop.span.kind": "tool", "traceloop.entity.name": "get_weather", "gen_ai.tool.name": "get_weather",
        "traceloop.entity.input": json.dumps({"args": [], "kwargs": {"city": city}}), "traceloop.entity.output": output})


def _chat(number: int, prompts: list[dict[str, Any]], answer: dict[str, Any], error: str | None = None) -> Span:
    attrs: dict[str, Any] = {"gen_ai.system": "writer", "llm.request.type": "chat", "gen_ai.request.model": "palmyra-x5"}
    for index, message in enumerate(prompts):
        for key, value in message.items():
            attrs[f"gen_ai.prompt.{index}.{key}"] = value
    return span(number, "writerai.chat", parent=2, kind=Span.SPAN_KIND_CLIENT, error=error, attrs={**attrs, **answer})


def _two_results_run(outputs: tuple[str, str]) -> list[tuple[str, list[Span]]]:
    """Workflow 1, agent 2; request 3 proposing call_1 (Paris) and call_2 (Rome), the tools 4 and 5 returning
    ``outputs``, request 6 whose input replays the turn and carries both results without call id."""
    answer: dict[str, Any] = {"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.finish_reason": "tool_calls"}
    replayed: dict[str, Any] = {"role": "assistant"}
    for index, (call_id, city) in enumerate(CALLS):
        for prefix, target in ((f"gen_ai.completion.0.tool_calls.{index}.", answer), (f"tool_calls.{index}.", replayed)):
            target.update({prefix + "id": call_id, prefix + "name": "get_weather",
                           prefix + "arguments": json.dumps({"city": city})})
    decorated = [_decorated(1, "support_workflow", "workflow", None), _decorated(2, "support_agent", "agent", 1),
                 _tool(4, "Paris", outputs[0]), _tool(5, "Rome", outputs[1])]
    clients = [
        _chat(3, [{"role": "user", "content": QUESTION}], answer),
        _chat(6, [{"role": "user", "content": QUESTION}, replayed, {"role": "tool", "content": "Paris: sunny"},
                  {"role": "tool", "content": "Rome: rain"}],
              {"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Sunny, then rain."}),
    ]
    return [(DECORATOR_SCOPE, decorated), (CLIENT_SCOPE, clients)]


def test_results_without_call_id_join_the_decorated_runs_that_returned_their_text() -> None:
    trajectory = map_scoped_spans(_two_results_run((json.dumps("Paris: sunny"), json.dumps("Rome: rain"))))

    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(5))


def test_an_output_that_is_no_json_string_names_no_returned_text() -> None:
    # A tool that returned a dict: how the app wrote it into the tool message is not recorded.
    outputs = (json.dumps({"forecast": "Paris: sunny"}), json.dumps({"forecast": "Rome: rain"}))

    trajectory = map_scoped_spans(_two_results_run(outputs))

    assert not has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))
    assert not has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(5))


def _failed_request_run(agent_error: tuple[str, str] | None, second_failed_tool: bool = False) -> list[tuple[str, list[Span]]]:
    """Workflow 1, agent 2 (failed with ``agent_error`` when given), request 3 a bare ERROR; a failed tool 4 beside it
    when ``second_failed_tool``."""
    events: tuple[tuple[str, dict[str, Any]], ...] = ()
    if agent_error is not None:
        events = (("exception", {"exception.type": agent_error[0], "exception.message": agent_error[1]}),)
    decorated = [_decorated(1, "support_workflow", "workflow", None),
                 _decorated(2, "support_agent", "agent", 1, error=agent_error[1] if agent_error else None,
                            events=events)]
    if second_failed_tool:
        decorated.append(span(4, "get_weather.tool", parent=2, error="boom", attrs={
            "traceloop.span.kind": "tool", "traceloop.entity.name": "get_weather", "gen_ai.tool.name": "get_weather"}))
    bare = _chat(3, [{"role": "user", "content": QUESTION}], {}, error="")
    return [(DECORATOR_SCOPE, decorated), (CLIENT_SCOPE, [bare])]


TIMEOUT = ("writerai.APITimeoutError", "Request timed out.")


def test_a_bare_failed_request_takes_the_model_client_error_of_the_agent_it_ran_under() -> None:
    trajectory = map_scoped_spans(_failed_request_run(TIMEOUT))

    request = get_node(trajectory, node_id(3))
    assert (request.error_type, request.error_message) == TIMEOUT


def test_no_cause_is_taken_from_another_error_or_a_parent_with_two_failed_children() -> None:
    other = map_scoped_spans(_failed_request_run(("ValueError", "bad input")))
    shared = map_scoped_spans(_failed_request_run(TIMEOUT, second_failed_tool=True))

    assert get_node(other, node_id(3)).error_type is None
    assert get_node(shared, node_id(3)).error_type is None
