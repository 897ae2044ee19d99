"""AgentOps' smolagents spans (``agentops`` 0.4.21: :mod:`otel_mapper.mapping.readers.agentops_records`,
:mod:`otel_mapper.mapping.nameless_tools`, the smolagents replays of
:mod:`otel_mapper.mapping.readers.legacy_conversation`): no ``agentops.span.kind``, tool spans named ``unknown`` with
the default arguments ``{}``, the model method's span around its OpenAI wrapper's request spans, the earlier calls
and their results replayed as ``Calling tools:`` / ``Observation:`` texts in the indexed prompts."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

SESSION_SCOPE = "agentops"
SMOL_SCOPE = "agentops.instrumentation.smolagents"
CLIENT_SCOPE = "openai"
RECORD_SCOPE = "agentops.instrumentation.providers.openai.wrappers.chat"
COMMON = {"instrumentation.name": "agentops", "instrumentation.version": "0.4.21"}


def _part(text: str) -> str:
    """A message content as AgentOps' OpenAI wrapper writes smolagents' one-text-part list."""
    return json.dumps([{"type": "text", "text": text}])


def _replay(*calls: tuple[str, str, dict[str, str]]) -> str:
    listed = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
              for call_id, name, args in calls]
    return "Calling tools:\n" + repr(listed)


def _agent(number: int, parent: int, *, managed: str = "[]") -> Span:
    return span(number, "support_agent.run", parent=parent, attrs={
        **COMMON, "agent.name": "support_agent", "agent.role": "executor",
        "agent.tools": '["get_weather", "lookup_order", "final_answer"]', "agent.managed_agents": managed})


def _generate(number: int, parent: int, *, error: str | None = None) -> Span:
    return span(number, "litellm.generate (openai/gpt-4o-mini)", parent=parent, error=error, attrs={
        **COMMON, "gen_ai.request.model": "openai/gpt-4o-mini", "gen_ai.completion.0.content": "None"})


def _tool(number: int, parent: int, *, result: str | None = None, error: str | None = None) -> Span:
    attrs: dict[str, Any] = {**COMMON, "tool.id": f"uuid-{number}", "tool.name": "unknown", "tool.description": "unknown",
                             "tool.parameters": "{}", "tool.status": "error" if error else "success"}
    if result is not None:
        attrs["tool.result"] = result
    return span(number, "tool.execute", parent=parent, attrs=attrs, error=error)


def _client(number: int, parent: int, prompts: list[tuple[str, str]], *, error: str | None = None) -> Span:
    attrs: dict[str, Any] = {"gen_ai.request.type": "chat", "gen_ai.system": "OpenAI",
                             "gen_ai.request.model": "gpt-4o-mini", "gen_ai.completion.0.role": "assistant",
                             "gen_ai.request.functions.0.name": "get_weather",
                             "gen_ai.request.functions.1.name": "lookup_order",
                             "gen_ai.request.functions.2.name": "final_answer"}
    for index, (role, text) in enumerate(prompts):
        attrs[f"gen_ai.prompt.{index}.role"] = role
        attrs[f"gen_ai.prompt.{index}.content"] = _part(text)
    return span(number, "openai.chat.completion", parent=parent, attrs=attrs, error=error)


def _record(number: int, parent: int, call_id: str, name: str, arguments: dict[str, str]) -> Span:
    return span(number, f"tool_call.{name}", parent=parent, attrs={
        "tool.name": name, "tool.parameters": json.dumps(arguments), "tool.call.id": call_id, "tool.call.type": "function"})


USER = ("user", "New task:\nWhat's the weather in Paris?")


def _run(*, first: list[tuple[str, str, dict[str, str]]], results: list[str | None], errors: list[str | None] | None = None,
         managed: str = "[]") -> list[tuple[str, list[Span]]]:
    """Session 1, agent run 2; generate 3 (request 4, proposing ``first`` as records 40...), a tool span per call
    (5, 15, 25...), generate 6 (request 7 replaying ``first`` with its observation, proposing final_answer call_f as
    record 70), final_answer's tool span 8."""
    errors = errors or [None] * len(first)
    tools = [_tool(5 + 10 * index, 2, result=result, error=error)
             for index, (result, error) in enumerate(zip(results, errors, strict=True))]
    observed = "\n".join(result or "" for result in results)
    second = [USER, ("assistant", _replay(*first)), ("user", "Observation:\n" + observed)]
    smol = [_agent(2, 1, managed=managed), _generate(3, 2), *tools, _generate(6, 2), _tool(8, 2, result="It is sunny.")]
    records = [_record(40 + index, 4, call_id, name, args) for index, (call_id, name, args) in enumerate(first)]
    records.append(_record(70, 7, "call_f", "final_answer", {"answer": "It is sunny."}))
    return [(SESSION_SCOPE, [span(1, "default.session", attrs={"agentops.span.kind": "session"})]),
            (SMOL_SCOPE, smol),
            (CLIENT_SCOPE, [_client(4, 3, [USER]), _client(7, 6, second)]),
            (RECORD_SCOPE, records)]


WEATHER = ("call_1", "get_weather", {"city": "Paris"})


def test_spans_without_an_agentops_kind_are_typed_by_what_they_record() -> None:
    trajectory = map_scoped_spans(_run(first=[WEATHER], results=["Paris: Sunny"]))
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(5)).kind is NodeKind.TOOL_EXECUTION
    assert get_node(trajectory, node_id(4)).kind is NodeKind.MODEL_CALL
    # The model method's span is a layer of the request inside it: one model call, the request's.
    models = [node for node in trajectory.nodes if node.kind is NodeKind.MODEL_CALL]
    assert sorted(node.id for node in models) == [node_id(4), node_id(7)]
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(2))


def test_a_placeholder_tool_name_is_no_name_and_its_default_arguments_none() -> None:
    trajectory = map_scoped_spans(_run(first=[WEATHER], results=[None]))
    run = get_node(trajectory, node_id(5))
    assert run.tool_name is None
    assert run.arguments_digest is None


def test_a_replayed_call_and_its_observation_join_the_run_that_returned_it() -> None:
    trajectory = map_scoped_spans(_run(first=[WEATHER], results=["Paris: Sunny"]))
    run = get_node(trajectory, node_id(5))
    assert (run.tool_name, run.tool_call_id) == ("get_weather", "call_1")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(4, "call:call_1"))
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(5))


def test_an_observation_of_several_calls_gives_one_line_to_each() -> None:
    first = [WEATHER, ("call_2", "lookup_order", {"order_id": "A-1"})]
    trajectory = map_scoped_spans(_run(first=first, results=["Paris: Sunny", '{"order_id": "A-1"}']))
    assert get_node(trajectory, node_id(5)).tool_call_id == "call_1"
    assert get_node(trajectory, node_id(15)).tool_call_id == "call_2"
    assert has_edge(trajectory, node_id(15), EdgeType.CAUSED_BY, node_id(4, "call:call_2"))


def test_a_run_that_returned_its_calls_only_argument_ran_that_call() -> None:
    trajectory = map_scoped_spans(_run(first=[WEATHER], results=["Paris: Sunny"]))
    answer = get_node(trajectory, node_id(8))
    assert (answer.tool_name, answer.tool_call_id) == ("final_answer", "call_f")
    assert has_edge(trajectory, node_id(8), EdgeType.CAUSED_BY, node_id(7, "call:call_f"))


def test_the_same_call_returned_the_same_twice_names_the_tool_and_joins_neither() -> None:
    first = [WEATHER, ("call_2", "get_weather", {"city": "Paris"})]
    trajectory = map_scoped_spans(_run(first=first, results=["Paris: Sunny", "Paris: Sunny"]))
    for number in (5, 15):
        run = get_node(trajectory, node_id(number))
        assert (run.tool_name, run.tool_call_id) == ("get_weather", None)
    assert not has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(4, "call:call_1"))
    assert any(d.qualifier == "ambiguous_link" and node_id(5) in d.nodes for d in trajectory.declarations)


def test_smolagents_report_of_a_raised_tool_names_the_tool_and_its_arguments() -> None:
    error = ("AgentToolExecutionError: Error executing tool 'lookup_order' with arguments {'order_id': 'A-1'}: "
             "ToolFailure: order 'A-1' not found\nPlease try again or use another tool")
    first = [("call_2", "lookup_order", {"order_id": "A-1"})]
    trajectory = map_scoped_spans(_run(first=first, results=[None], errors=[error]))
    run = get_node(trajectory, node_id(5))
    assert run.tool_name == "lookup_order"
    assert run.arguments_digest is not None
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(4, "call:call_2"))


def test_a_rejected_unknown_tool_names_the_tool_the_model_asked_for() -> None:
    error = "AgentToolExecutionError: Unknown tool fetch_invoice, should be one of: get_weather, final_answer."
    first = [("call_2", "fetch_invoice", {"invoice_id": "I-1"})]
    trajectory = map_scoped_spans(_run(first=first, results=[None], errors=[error]))
    run = get_node(trajectory, node_id(5))
    assert run.tool_name == "fetch_invoice"
    assert "fetch_invoice" in run.unknown_tools or run.unknown_tool == "fetch_invoice"
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, node_id(4, "call:call_2"))


def test_an_agents_tool_list_is_its_offer_only_when_it_has_no_managed_agents() -> None:
    alone = map_scoped_spans(_run(first=[WEATHER], results=["Paris: Sunny"]))
    assert get_node(alone, node_id(2)).tool_definitions == ("final_answer", "get_weather", "lookup_order")
    managing = map_scoped_spans(_run(first=[WEATHER], results=["Paris: Sunny"], managed="['str']"))
    assert get_node(managing, node_id(2)).tool_definitions is None
