"""AutoGen AgentChat under OpenInference's instrumentor, beside autogen-core's own GenAI spans (corpus Frameworks V):
one run recorded by two nested spans is one node, and tool results recorded as ``function.K`` JSON objects are read."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import MappingOptions, map_trace
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import categories, envelopes, get_node, has_edge, kinds, map_spans, node_id, span

_AUTOGEN = {"gen_ai.system": "autogen"}
_INSTRUCTIONS = "You are a support agent."


def _llm(
    number: int, parent: int, *, call: tuple[str, str, str] | None = None, results: list[dict] | None = None
) -> Span:
    """An LLM span of the instrumentor: the system and user messages, then (with ``results``) the assistant's call
    and the ``function`` message holding the results; output: the proposed ``call`` (id, name, arguments) or text."""
    attrs: dict[str, object] = {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o-mini",
        "llm.input_messages.0.message.role": "developer",
        "llm.input_messages.0.message.content": _INSTRUCTIONS,
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "Weather in Paris?",
        "llm.output_messages.0.message.role": "assistant",
    }
    if results is not None:
        attrs["llm.input_messages.2.message.role"] = "assistant"
        for index, result in enumerate(results):
            prefix = f"llm.input_messages.2.message.tool_calls.{index}.tool_call"
            attrs[f"{prefix}.id"] = result["call_id"]
            attrs[f"{prefix}.function.name"] = result["name"]
            attrs[f"{prefix}.function.arguments"] = '{"city": "Paris"}'
        attrs["llm.input_messages.3.message.role"] = "function"
        for index, result in enumerate(results):
            attrs[f"llm.input_messages.3.function.{index}"] = json.dumps(result)
    if call is not None:
        prefix = "llm.output_messages.0.message.tool_calls.0.tool_call"
        attrs.update({f"{prefix}.id": call[0], f"{prefix}.function.name": call[1]})
        attrs[f"{prefix}.function.arguments"] = call[2]
    else:
        attrs["llm.output_messages.0.message.content"] = "Sunny."
    return span(number, "OpenAIChatCompletionClient.create", parent=parent, attrs=attrs)


def _agent_run(tool_error: str | None = None) -> list[Span]:
    """One agent run as observed: ``invoke_agent`` (autogen-core) -> AGENT (instrumentor) -> LLM, TOOL ->
    ``execute_tool`` (autogen-core, the tool-call id), LLM consuming the result."""
    result = {"name": "get_weather", "content": "Sunny", "call_id": "call_1", "is_error": False}
    return [
        span(1, "run_agent"),
        span(2, "invoke_agent support_agent", parent=1, attrs={**_AUTOGEN, "gen_ai.operation.name": "invoke_agent",
                                                               "gen_ai.agent.name": "support_agent"}),
        span(3, "support_agent.on_messages_stream", parent=2, attrs={
            "openinference.span.kind": "AGENT", "graph.node.id": "support_agent", "graph.node.parent_id": "start"}),
        _llm(4, 3, call=("call_1", "get_weather", '{"city": "Paris"}')),
        span(5, "support_agent.get_weather", parent=3, attrs={
            "openinference.span.kind": "TOOL", "tool.name": "get_weather", "input.value": '{"city": "Paris"}',
            "input.mime_type": "application/json", "output.value": "Sunny"}),
        span(6, "execute_tool get_weather", parent=5, error=tool_error, attrs={
            **_AUTOGEN, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1"}),
        _llm(7, 3, results=[result]),
    ]


def test_a_tool_run_and_an_agent_run_recorded_by_two_nested_spans_are_one_node_each() -> None:
    trajectory = map_spans(_agent_run())
    assert kinds(trajectory) == {
        "other": 1, "agent_invocation": 1, "model_call": 2, "tool_proposal": 1, "tool_execution": 1,
    }
    execution = get_node(trajectory, node_id(6))  # a tool run: the inner span keeps the node
    assert trajectory.node(node_id(5)) is None and trajectory.node(node_id(3)) is None
    agent = get_node(trajectory, node_id(2))  # an agent run: the outer span (the invocation) keeps it
    assert agent.kind is NodeKind.AGENT_INVOCATION and agent.agent_name == "support_agent"
    assert execution.tool_call_id == "call_1"
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(4, "call:call_1"))
    assert any(d.qualifier == "merged" and "directly inside" in d.reason for d in trajectory.declarations)
    assert "double_instrumentation" in categories(trajectory)


def test_the_merged_node_keeps_what_either_span_recorded() -> None:
    trajectory = map_spans(_agent_run(tool_error="ToolFailure: city not found"))
    execution = get_node(trajectory, node_id(6))
    assert execution.status.value == "failed"  # the inner span's error (the outer TOOL span stayed OK)
    assert execution.arguments_visible  # the outer span's input.value
    plain = get_node(map_spans(_agent_run()), node_id(6))
    assert plain.arguments_digest == execution.arguments_digest is not None


def test_an_agent_span_ending_after_its_parent_does_not_move_the_agent_node() -> None:
    # The instrumentor's AGENT span ends when the handler's generator is closed, after invoke_agent and the root: a
    # run delivered as spans end maps invoke_agent first, and the node it names stays when the AGENT span arrives.
    spans = _agent_run()
    agent_span = spans.pop(2)
    first = map_trace(envelopes(spans), MappingOptions(keep_run=True))
    assert get_node(first.trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    later = map_trace(envelopes([agent_span]), MappingOptions(revision=2), prior=first.state)
    assert later.node_of_span == (node_id(2),)
    assert kinds(later.trajectory)["agent_invocation"] == 1


def test_function_results_in_the_model_input_are_consumed_by_id() -> None:
    trajectory = map_spans(_agent_run())
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(6))


def test_a_function_result_rejecting_an_unknown_tool_names_it() -> None:
    rejected = {"name": "fetch_invoice", "content": "Error: tool 'fetch_invoice' not found in any workbench",
                "call_id": "call_9", "is_error": True}
    trajectory = map_spans([
        span(1, "support_agent.on_messages_stream",
             attrs={"openinference.span.kind": "AGENT", "graph.node.id": "support_agent"}),
        _llm(2, 1, call=("call_9", "fetch_invoice", '{"order_id": "A-1"}')),
        _llm(3, 1, results=[rejected]),
    ])
    assert get_node(trajectory, node_id(3)).unknown_tools == ("fetch_invoice",)


def test_nested_runs_of_one_convention_or_of_other_names_stay_apart() -> None:
    def tool(number: int, name: str, parent: int | None = None, **extra: object) -> Span:
        return span(number, f"execute_tool {name}", parent=parent,
                    attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, **extra})

    same_convention = map_spans([tool(1, "search"), tool(2, "search", parent=1)])
    assert kinds(same_convention) == {"tool_execution": 2}
    oi_tool = {"openinference.span.kind": "TOOL"}
    other_name = map_spans([span(1, "a.search", attrs={**oi_tool, "tool.name": "search"}), tool(2, "fetch", parent=1)])
    assert kinds(other_name) == {"tool_execution": 2}
    two_children = map_spans([
        span(1, "a.search", attrs={**oi_tool, "tool.name": "search"}),
        tool(2, "search", parent=1),
        span(3, "log", parent=1),
    ])
    assert kinds(two_children) == {"tool_execution": 2, "other": 1}


def _schema(name: str) -> str:
    return json.dumps({"name": name, "description": name, "parameters": {"type": "object", "properties": {}}})


def test_advertised_tools_with_missing_indices_are_not_the_offered_set() -> None:
    # The instrumentor writes only the tools passed as Tool objects (the handoff tool, index 1); the workbench's
    # search_docs (index 0, passed as a schema) is left out: the list is not the set the model was offered.
    partial = span(1, "OpenAIChatCompletionClient.create", attrs={
        "openinference.span.kind": "LLM", "llm.tools.1.tool.json_schema": _schema("transfer_to_billing_agent")})
    complete = span(2, "OpenAIChatCompletionClient.create", attrs={
        "openinference.span.kind": "LLM", "llm.tools.0.tool.json_schema": _schema("search_docs"),
        "llm.tools.1.tool.json_schema": _schema("transfer_to_billing_agent")})
    trajectory = map_spans([partial, complete])
    assert get_node(trajectory, node_id(1)).tool_definitions is None
    assert get_node(trajectory, node_id(2)).tool_definitions == ("search_docs", "transfer_to_billing_agent")
    bound = {tool.name: tool.digest for tool in map_spans([partial]).bindings.tools}
    assert bound["transfer_to_billing_agent"] is not None  # the schema present is still bound
