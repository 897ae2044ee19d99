"""OpenLLMetry's Node.js SDK on LangGraph.js (corpus/NOTES-frameworks-ba.md): its LangChain instrumentation's spans,
named by each run's class and all opened side by side under the app's span, beside its OpenAI instrumentation's."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import envelopes, has_edge, kinds, map_envelopes, map_spans, node_id, span

LANGCHAIN = "@traceloop/instrumentation-langchain"
OPENAI = "@traceloop/instrumentation-openai"
WORKFLOW = {"traceloop.workflow.name": "langgraph_run", "traceloop.span.kind": "workflow"}


def _lc(cls: str, **kwargs: object) -> dict:
    return {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", cls], "kwargs": kwargs}


def _tool(number: int, *, args: dict, output: object | None, error: str | None = None) -> object:
    attrs = {"traceloop.workflow.name": "langgraph_run", "gen_ai.operation.name": "execute_tool",
             "gen_ai.provider.name": "langchain", "traceloop.span.kind": "task",
             "traceloop.entity.name": "DynamicStructuredTool",
             "traceloop.entity.input": json.dumps({"args": [json.dumps(args)]})}
    if output is not None:
        attrs["traceloop.entity.output"] = json.dumps(output)
    return span(number, "execute_tool DynamicStructuredTool", parent=1, attrs=attrs, error=error)


def _client_chat(number: int, *, calls: list[tuple[str, str, dict]], tokens: tuple[int, int] = (200, 20),
                 reason: str = "tool_call") -> object:
    parts = [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls]
    return span(number, "chat gpt-4o-mini", parent=1, attrs={
        "traceloop.workflow.name": "langgraph_run", "gen_ai.provider.name": "openai", "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.id": f"chatcmpl-{number}",
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]),
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "finish_reason": reason, "parts": parts}]),
        "gen_ai.usage.input_tokens": tokens[0], "gen_ai.usage.output_tokens": tokens[1],
        "gen_ai.response.finish_reasons": [reason]})


def _callback_chat(number: int, *, tokens: tuple[int, int] | None = (200, 20), reason: str = "tool_call",
                   error: str | None = None) -> object:
    attrs: dict[str, object] = {
        "traceloop.workflow.name": "langgraph_run", "gen_ai.provider.name": "openai", "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])}
    if tokens is not None:
        attrs.update({"gen_ai.usage.input_tokens": tokens[0], "gen_ai.usage.output_tokens": tokens[1],
                      "gen_ai.response.finish_reasons": [reason],
                      "gen_ai.output.messages": json.dumps([{"role": "assistant", "finish_reason": reason,
                                                             "parts": [{"type": "text", "content": ""}]}])})
    return span(number, "chat gpt-4o-mini", parent=1, attrs=attrs, error=error)


def _graph(number: int, *, before: list, after: list | None, error: str | None = None,
           events: tuple = ()) -> object:
    attrs = {"traceloop.workflow.name": "CompiledStateGraph", "gen_ai.operation.name": "workflow",
             "gen_ai.provider.name": "langchain", "traceloop.span.kind": "workflow",
             "traceloop.entity.input": json.dumps({"messages": before})}
    if after is not None:
        attrs["traceloop.entity.output"] = json.dumps({"messages": after})
    return span(number, "workflow CompiledStateGraph", parent=1, attrs=attrs, error=error, events=events)


def _map(langchain: list, openai: tuple = ()) -> object:
    root = [span(1, "langgraph_run.workflow", attrs=WORKFLOW)]
    items = (envelopes(root, scope="@traceloop/node-server-sdk") + envelopes(langchain, scope=LANGCHAIN)
             + envelopes(list(openai), scope=OPENAI))
    return map_envelopes(items).trajectory


# -- tool spans named after the tool's class ---------------------------------------------------------------------------

def test_class_named_tool_span_takes_tool_and_call_id_from_its_tool_message() -> None:
    tool = _tool(3, args={"city": "Paris"},
                 output=_lc("ToolMessage", content="sunny", tool_call_id="call_1", name="get_weather"))
    trajectory = _map([tool], (_client_chat(2, calls=[("call_1", "get_weather", {"city": "Paris"})]),))
    execution = next(n for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION)
    assert (execution.tool_name, execution.tool_call_id) == ("get_weather", "call_1")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))


def test_command_output_names_the_transfer_tool_from_its_last_tool_message() -> None:
    history = [_lc("HumanMessage", content="refund"), _lc("AIMessage", content="", name="triage_agent")]
    command = {"lg_name": "Command", "goto": "billing_agent", "update": {"messages": [
        *history, _lc("ToolMessage", content="Successfully transferred", tool_call_id="call_1",
                      name="transfer_to_billing_agent")]}}
    trajectory = _map([_tool(3, args={}, output=command)],
                      (_client_chat(2, calls=[("call_1", "transfer_to_billing_agent", {})]),))
    execution = next(n for n in trajectory.nodes if n.kind in (NodeKind.TOOL_EXECUTION, NodeKind.HANDOFF))
    assert (execution.tool_name, execution.tool_call_id) == ("transfer_to_billing_agent", "call_1")


def test_failed_class_named_tool_span_is_named_by_the_proposal_of_its_arguments() -> None:
    tool = _tool(3, args={"order_id": "A-1"}, output=None, error="order not found")
    trajectory = _map([tool], (_client_chat(2, calls=[("call_1", "lookup_order", {"order_id": "A-1"})]),))
    execution = next(n for n in trajectory.nodes if n.kind is NodeKind.TOOL_EXECUTION)
    assert execution.tool_name == "lookup_order"
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:call_1"))


def test_tool_named_otherwise_keeps_its_name() -> None:
    spans = [span(1, "get_weather.tool", attrs={"traceloop.span.kind": "tool", "traceloop.entity.name": "get_weather",
                                                 "traceloop.entity.input": json.dumps({"args": ["{}"]})})]
    execution = next(n for n in map_spans(spans).nodes if n.kind is NodeKind.TOOL_EXECUTION)
    assert execution.tool_name == "get_weather"


# -- one request recorded by the callback handler and by the client instrumentation ------------------------------------

def test_callback_chat_span_beside_the_client_span_of_the_same_answer_is_one_model_call() -> None:
    trajectory = _map([_callback_chat(2)], (_client_chat(3, calls=[("call_1", "get_weather", {})]),))
    calls = [n for n in trajectory.nodes if n.kind is NodeKind.MODEL_CALL]
    assert [n.id for n in calls] == [node_id(3)]
    assert calls[0].usage is not None and calls[0].usage.total_tokens == 220


def test_chat_spans_with_different_answers_stay_two_model_calls() -> None:
    trajectory = _map([_callback_chat(2, tokens=(300, 20))], (_client_chat(3, calls=[("call_1", "get_weather", {})]),))
    assert kinds(trajectory)["model_call"] == 2


def test_failed_callback_chat_span_stays_its_own_model_call() -> None:
    trajectory = _map([_callback_chat(2, tokens=None, error="500 server error")],
                      (_client_chat(3, calls=[("call_1", "get_weather", {})]),))
    assert kinds(trajectory)["model_call"] == 2


def test_two_callback_spans_of_one_answer_are_ambiguous_and_stay_apart() -> None:
    trajectory = _map([_callback_chat(2), _callback_chat(4)], (_client_chat(3, calls=[("call_1", "get_weather", {})]),))
    assert kinds(trajectory)["model_call"] == 3


# -- graph runs named by their class -----------------------------------------------------------------------------------

HUMAN = _lc("HumanMessage", content="refund")


def test_graph_run_whose_added_ai_messages_name_one_agent_is_that_agent() -> None:
    billing = _graph(2, before=[HUMAN], after=[HUMAN, _lc("AIMessage", content="done", name="billing_agent")])
    supervisor = _graph(3, before=[HUMAN], after=[HUMAN, _lc("AIMessage", content="", name="triage_agent"),
                                                  _lc("AIMessage", content="done", name="billing_agent")])
    trajectory = _map([billing, supervisor])
    agents = {n.id: n.name for n in trajectory.nodes if n.kind is NodeKind.AGENT_INVOCATION}
    assert list(agents) == [node_id(2)]
    assert next(n for n in trajectory.nodes if n.id == node_id(2)).agent_name == "billing_agent"


def test_graph_run_that_handed_the_run_to_its_parent_is_an_agent() -> None:
    handed = _graph(2, before=[HUMAN], after=None, error="",
                    events=(("exception", {"exception.type": "ParentCommand", "exception.message": ""}),))
    other = _graph(3, before=[HUMAN], after=None, error="boom")
    trajectory = _map([handed, other])
    assert [n.id for n in trajectory.nodes if n.kind is NodeKind.AGENT_INVOCATION] == [node_id(2)]


def test_only_graph_run_of_the_trace_is_the_agent() -> None:
    trajectory = _map([_graph(2, before=[HUMAN], after=None, error="500 server error")])
    assert [n.id for n in trajectory.nodes if n.kind is NodeKind.AGENT_INVOCATION] == [node_id(2)]


def test_graph_run_of_another_instrumentation_stays_a_workflow_step() -> None:
    spans = [span(1, "workflow CompiledStateGraph", attrs={"traceloop.workflow.name": "CompiledStateGraph",
                                                           "gen_ai.operation.name": "workflow",
                                                           "traceloop.span.kind": "workflow"})]
    assert kinds(map_spans(spans)).get("agent_invocation", 0) == 0
