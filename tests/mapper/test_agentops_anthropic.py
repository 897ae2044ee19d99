"""AgentOps' Anthropic client spans (``agentops`` 0.4.21, ``anthropic.messages.create``:
:mod:`otel_mapper.mapping.readers.agentops_anthropic`): the offered tools only in ``gen_ai.request.functions`` (a JSON
list of names; the indexed ``gen_ai.request.tools.<i>.*`` written over by the answer's calls), and each turn's tool
results written as ``[Tool Result: <content>]`` text in the user message after an empty assistant message, with no call
id; beside AgentOps' decorated tool spans, which record no call id either."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.readers.agentops_anthropic import tool_result_texts
from semconv.trajectory import EdgeType
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

DECORATOR_SCOPE = "agentops"
CLIENT_SCOPE = "anthropic"
IDENTITY = {"instrumentation.name": "agentops", "instrumentation.version": "0.4.21", "library.name": "anthropic"}
QUESTION = "Weather in Paris and Rome?"


def _tool(number: int, city: str, output: str) -> Span:
    return span(number, "get_weather.tool", parent=3, attrs={
        "agentops.span.kind": "tool", "operation.name": "get_weather",
        "agentops.tool.input": json.dumps({"args": [], "kwargs": {"city": city}}), "agentops.tool.output": output})


def _client(number: int, prompts: list[tuple[str, str]], answer: dict[str, Any], identity: dict[str, str]) -> Span:
    attrs: dict[str, Any] = {**identity, "gen_ai.request.type": "chat", "gen_ai.request.model": "claude-haiku-4-5",
                             "gen_ai.request.functions": json.dumps(["get_weather"])}
    for index, (role, content) in enumerate(prompts):
        attrs.update({f"gen_ai.prompt.{index}.role": role, f"gen_ai.prompt.{index}.content": content,
                      f"gen_ai.prompt.{index}.type": "text"})
    return span(number, "anthropic.messages.create", parent=3, kind=Span.SPAN_KIND_CLIENT, attrs={**attrs, **answer})


def _calls(*calls: tuple[str, str, str]) -> dict[str, Any]:
    """An answer's calls (id, tool, city), written as AgentOps writes them: under the completion and again over the
    offered tools' keys."""
    attrs: dict[str, Any] = {"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.finish_reason": "tool_use"}
    for index, (call_id, tool, city) in enumerate(calls):
        arguments = json.dumps({"city": city})
        for prefix in (f"gen_ai.completion.0.tool_calls.{index}.", f"gen_ai.request.tools.{index}."):
            attrs.update({prefix + "id": call_id, prefix + "name": tool, prefix + "arguments": arguments})
    return attrs


def _run(results: str, *, identity: dict[str, str] | None = None, two: bool = True,
         first_tool: str = "get_weather") -> list[tuple[str, list[Span]]]:
    """Session 1, workflow 2, agent 3; the request 4 proposing toolu_1 (Paris) and toolu_2 (Rome) (toolu_1 alone when
    not ``two``), the tools 5 and 6, the request 7 whose input carries ``results`` after an empty assistant turn."""
    identity = IDENTITY if identity is None else identity
    calls = [("toolu_1", first_tool, "Paris"), ("toolu_2", "get_weather", "Rome")][: 2 if two else 1]
    decorated = [
        span(1, "default.session", attrs={"agentops.span.kind": "session", "operation.name": "default"}),
        span(2, "support_workflow.workflow", parent=1,
             attrs={"agentops.span.kind": "workflow", "operation.name": "support_workflow"}),
        span(3, "support_agent.agent", parent=2, attrs={"agentops.span.kind": "agent", "operation.name": "support_agent"}),
        _tool(5, "Paris", "Paris: sunny"),
        *([_tool(6, "Rome", "Rome: rain")] if two else []),
    ]
    clients = [
        _client(4, [("user", QUESTION)], _calls(*calls), identity),
        _client(7, [("user", QUESTION), ("assistant", ""), ("user", results)],
                {"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Sunny, then rain."}, identity),
    ]
    return [(DECORATOR_SCOPE, decorated), (CLIENT_SCOPE, clients)]


def test_the_offered_tools_are_the_request_functions_list_not_the_overwritten_definitions() -> None:
    """The model made up ``fetch_invoice``: AgentOps writes it over ``gen_ai.request.tools.0.name``; only the
    functions list says what was offered."""
    trajectory = map_scoped_spans(_run("[Tool Result: Paris: sunny]", two=False, first_tool="fetch_invoice"))
    assert get_node(trajectory, node_id(4)).tool_definitions == ("get_weather",)


def test_a_text_tool_result_after_the_turn_is_the_one_calls_result() -> None:
    trajectory = map_scoped_spans(_run("[Tool Result: Paris: sunny]", two=False))
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(4, "call:toolu_1"))
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(5))


def test_several_text_results_join_the_runs_that_returned_them_by_tool_and_arguments() -> None:
    trajectory = map_scoped_spans(_run("[Tool Result: Rome: rain] [Tool Result: Paris: sunny]"))
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(5))
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(6))


def test_text_results_are_read_only_on_agentops_spans() -> None:
    """Guard: the same text written by another instrumentation is a user message, not a result."""
    trajectory = map_scoped_spans(_run("[Tool Result: Paris: sunny]", identity={}, two=False))
    assert not has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(5))


def test_only_a_message_made_of_result_segments_holds_results() -> None:
    assert tool_result_texts("[Tool Result: a] [Tool Result: b]") == ["a", "b"]
    assert tool_result_texts("See: [Tool Result: a]") is None
    assert tool_result_texts("plain text") is None
