"""OpenLLMetry / Traceloop reader: decorator spans, openai instrumentation (new and legacy indexed messages),
openai-agents handoffs, LangChain/LangGraph (conventions.md section 4, 7.4, 11; corpus-notes.md)."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

WF = {"traceloop.workflow.name": "support_workflow"}


def _chat(number: int, parent: int, response_id: str, inputs: list, outputs: list) -> object:
    return span(
        number,
        "openai.chat",
        parent=parent,
        attrs={
            **WF,
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.id": response_id,
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 5,
            "gen_ai.input.messages": json.dumps(inputs),
            "gen_ai.output.messages": json.dumps(outputs),
        },
    )


def _raw_loop() -> list:
    user = {"role": "user", "parts": [{"type": "text", "content": "Weather?"}]}
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}], "finish_reason": "tool_call"}
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "Sunny"}]}
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}], "finish_reason": "stop"}
    return [
        span(1, "support_workflow.workflow", attrs={**WF, "traceloop.span.kind": "workflow", "traceloop.entity.name": "support_workflow"}),
        span(2, "support_agent.agent", parent=1, attrs={**WF, "traceloop.span.kind": "agent", "traceloop.entity.name": "support_agent", "gen_ai.agent.name": "support_agent"}),
        _chat(3, 2, "chatcmpl-1", [user], [call]),
        span(
            4,
            "get_weather.tool",
            parent=2,
            attrs={
                **WF,
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "get_weather",
                "gen_ai.tool.name": "get_weather",
                "traceloop.entity.input": '{"args": [], "kwargs": {"city": "Paris"}}',
                "traceloop.entity.output": '"Sunny"',
            },
        ),
        _chat(5, 2, "chatcmpl-2", [user, {k: v for k, v in call.items() if k != "finish_reason"}, result], [answer]),
    ]


def test_raw_loop_decorator_spans_and_argument_join() -> None:
    trajectory = map_spans(_raw_loop())
    assert kinds(trajectory) == {"workflow_step": 1, "agent_invocation": 1, "model_call": 2, "tool_execution": 1, "tool_proposal": 1}
    proposal = node_id(3, "call:call_1")
    tool = get_node(trajectory, node_id(4))
    assert tool.arguments == '{"city":"Paris"}' and tool.convention == "openllmetry"
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(3))
    assert get_node(trajectory, node_id(2)).agent_name == "support_agent"


def test_positional_arguments_are_not_unwrapped() -> None:
    spans = _raw_loop()
    spans[3] = span(4, "get_weather.tool", parent=2, attrs={"traceloop.span.kind": "tool", "traceloop.entity.input": '{"args": ["Paris"], "kwargs": {}}'})
    trajectory = map_spans(spans)
    assert not has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))
    assert get_node(trajectory, node_id(4)).tool_name == "get_weather"  # from the span name


def test_legacy_indexed_prompt_and_completion() -> None:
    spans = [
        span(1, "agent.agent", attrs={"traceloop.span.kind": "agent"}),
        span(2, "openai.chat", parent=1, attrs={
            "llm.request.type": "chat",
            "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.prompt_tokens": 7,
            "gen_ai.usage.completion_tokens": 3,
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "hi",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.tool_calls.0.id": "call_9",
            "gen_ai.completion.0.tool_calls.0.name": "lookup",
            "gen_ai.completion.0.tool_calls.0.arguments": '{"id": 1}',
        }),
        span(3, "lookup.tool", parent=1, attrs={"traceloop.span.kind": "tool", "traceloop.entity.input": '{"args": [], "kwargs": {"id": 1}}'}),
        span(4, "openai.chat", parent=1, attrs={
            "llm.request.type": "chat",
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.1.role": "tool",
            "gen_ai.prompt.1.tool_call_id": "call_9",
            "gen_ai.prompt.1.content": "found",
        }),
    ]
    trajectory = map_spans(spans)
    model = get_node(trajectory, node_id(2))
    assert model.kind is NodeKind.MODEL_CALL and model.usage is not None and model.usage.input_tokens == 7
    proposal = node_id(2, "call:call_9")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_agents_sdk_handoff_with_unknown_target_and_handoff_parent() -> None:
    spans = [
        span(1, "Agent Workflow", attrs={"traceloop.span.kind": "workflow", "traceloop.workflow.name": "Agent Workflow"}),
        span(2, "triage.agent", parent=1, attrs={"traceloop.span.kind": "agent", "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage"}),
        span(3, "triage \u2192 unknown.handoff", parent=2, attrs={"traceloop.span.kind": "handoff", "gen_ai.operation.name": "handoff", "gen_ai.handoff.from_agent": "triage", "gen_ai.handoff.to_agent": "unknown"}),
        span(4, "billing.agent", parent=1, attrs={"traceloop.span.kind": "agent", "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing", "gen_ai.agent.handoff_parent": "triage"}),
    ]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(3))
    assert handoff.kind is NodeKind.HANDOFF
    assert not has_edge(trajectory, node_id(4), EdgeType.HANDOFF_FROM, node_id(3))  # target unknown: no guess
    edge = next(e for e in trajectory.edges if e.from_node == node_id(4) and e.type is EdgeType.HANDOFF_FROM)
    assert edge.to_node == node_id(2) and "handoff_parent" in edge.evidence


def test_named_handoff_target_links_receiving_agent() -> None:
    spans = [
        span(2, "triage.agent", attrs={"traceloop.span.kind": "agent", "gen_ai.agent.name": "triage"}),
        span(3, "triage \u2192 billing.handoff", parent=2, attrs={"traceloop.span.kind": "handoff"}),
        span(4, "billing.agent", attrs={"traceloop.span.kind": "agent", "gen_ai.agent.name": "billing"}),
    ]
    trajectory = map_spans(spans)
    assert has_edge(trajectory, node_id(4), EdgeType.HANDOFF_FROM, node_id(3))


def test_langgraph_association_properties_and_parent_command() -> None:
    prefix = "traceloop.association.properties."
    spans = [
        span(1, "graph.workflow", attrs={"traceloop.span.kind": "workflow"}),
        span(2, "agent", parent=1, attrs={"traceloop.span.kind": "task", "gen_ai.operation.name": "execute_task", prefix + "langgraph_step": "1", prefix + "langgraph_node": "agent"}),
        span(3, "tools", parent=1, attrs={"traceloop.span.kind": "task", "gen_ai.operation.name": "execute_task", prefix + "langgraph_step": "2", prefix + "langgraph_node": "tools"}, error="ParentCommand(Command(goto='x'))",
             events=[("exception", {"exception.type": "langgraph.errors.ParentCommand", "exception.message": "..."})]),
        span(4, "execute_tool lookup", parent=3, attrs={
            "traceloop.span.kind": "tool", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.arguments": json.dumps({"input_str": "{'order_id': 'A-1'}", "tags": [], "metadata": {}}),
        }),
        span(5, "ChatOpenAI.chat", parent=2, attrs={"gen_ai.operation.name": "chat", "traceloop.workflow.name": "graph",
             "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"order_id": "A-1"}}]}])}),
    ]
    trajectory = map_spans(spans)
    assert has_edge(trajectory, node_id(3), EdgeType.SEQUENCED_AFTER, node_id(2))
    assert get_node(trajectory, node_id(3)).status is NodeStatus.COMMITTED
    assert get_node(trajectory, node_id(4)).arguments == '{"order_id":"A-1"}'
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(5, "call:c1"))


def test_crewai_crew_and_task_spans_are_workflow_steps_though_they_say_invoke_agent() -> None:
    """OpenLLMetry's CrewAI instrumentation writes invoke_agent on the crew, task and agent spans alike; the crew
    span has no traceloop attribute at all (0.62.4, observed): its scope and its ``.workflow`` name tell."""
    crewai = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "crewai"}
    spans = [
        span(1, "crewai.workflow", attrs={**crewai, "crewai.crew.name": "crew"}),
        span(2, "Answer the customer..task", parent=1, attrs={**crewai, "traceloop.span.kind": "task"}),
        span(3, "support_agent.agent", parent=2, attrs={**crewai, "traceloop.span.kind": "agent", "gen_ai.agent.name": "support_agent"}),
    ]
    trajectory = map_spans(spans, scope="opentelemetry.instrumentation.crewai.instrumentation")
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
    agent = get_node(trajectory, node_id(3))
    assert agent.kind is NodeKind.AGENT_INVOCATION and agent.agent_name == "support_agent"


_LLAMAINDEX = "opentelemetry.instrumentation.llamaindex"


def _li_step(number: int, **attrs: object) -> object:
    return span(number, "BaseWorkflowAgent.task", parent=1,
                attrs={"traceloop.span.kind": "task", "traceloop.entity.name": "BaseWorkflowAgent.task", **attrs})


def _call_tool_step(number: int, call_id: str, arguments: dict[str, object], raw_output: str, is_error: bool) -> object:
    output = {"tool_name": "lookup_order", "tool_kwargs": arguments, "tool_id": call_id,
              "tool_output": {"tool_name": "lookup_order", "raw_output": raw_output, "is_error": is_error}}
    return _li_step(number, **{"tool.name": "lookup_order", "tool.arguments": json.dumps(arguments),
                            "traceloop.entity.output": json.dumps(output)})


def _li_chat(number: int, parent: int, inputs: list[dict[str, object]], output: list[dict[str, object]]) -> object:
    return span(number, "openai.chat", parent=parent, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
        "gen_ai.input.messages": json.dumps(inputs), "gen_ai.output.messages": json.dumps(output)})


def _llama_index_run() -> list[object]:
    """A FunctionAgent run as OpenLLMetry exports it: the first lookup raised (its FunctionTool span never ended, so
    never exported; only the call_tool step says ``is_error``), the second ran in a FunctionTool span."""
    user = {"role": "user", "parts": [{"type": "text", "content": "order?"}]}

    def call(call_id: str, order: str) -> dict[str, object]:
        return {"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": "lookup_order",
                                                "arguments": {"order_id": order}}]}

    def result(call_id: str, text: str) -> dict[str, object]:
        return {"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": text}]}

    return [
        span(1, "FunctionAgent.workflow", attrs={"traceloop.span.kind": "workflow", "traceloop.entity.name": "FunctionAgent.workflow"}),
        _li_step(2), _li_chat(3, 2, [user], [call("call_1", "A-10O1")]),
        _call_tool_step(4, "call_1", {"order_id": "A-10O1"}, "order 'A-10O1' not found", True),
        _li_step(5), _li_chat(6, 5, [user, call("call_1", "A-10O1"), result("call_1", "order 'A-10O1' not found")],
                        [call("call_2", "A-1001")]),
        _call_tool_step(7, "call_2", {"order_id": "A-1001"}, '{"status": "shipped"}', False),
        span(8, "FunctionTool.task", parent=7, attrs={
            "traceloop.span.kind": "task", "traceloop.entity.name": "FunctionTool.task",
            "traceloop.entity.input": json.dumps({"kwargs": {"order_id": "A-1001"}}),
            "traceloop.entity.output": json.dumps({"tool_name": "lookup_order", "raw_output": '{"status": "shipped"}',
                                                   "is_error": False})}),
    ]


def test_llama_index_under_openllmetry_agent_tool_runs_and_call_ids() -> None:
    trajectory = map_spans(_llama_index_run(), scope=_LLAMAINDEX)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(7)).kind is NodeKind.WORKFLOW_STEP
    tool = get_node(trajectory, node_id(8))
    assert tool.kind is NodeKind.TOOL_EXECUTION and tool.tool_name == "lookup_order"
    assert tool.tool_call_id == "call_2" and json.loads(tool.arguments or "{}") == {"order_id": "A-1001"}
    assert has_edge(trajectory, node_id(8), EdgeType.CAUSED_BY, f"{node_id(6)}#call:call_2")


def test_llama_index_under_openllmetry_without_content_the_step_names_the_tool() -> None:
    # Content capture off: the tool span keeps only its class's name; the call_tool step still writes `tool.name`.
    spans = [
        span(1, "FunctionAgent.workflow", attrs={"traceloop.span.kind": "workflow", "traceloop.entity.name": "FunctionAgent.workflow"}),
        _li_step(2, **{"tool.name": "delete_file"}),
        span(3, "FunctionTool.task", parent=2, attrs={"traceloop.span.kind": "task", "traceloop.entity.name": "FunctionTool.task"}),
        _li_step(4),
        span(5, "FunctionTool.task", parent=4, attrs={"traceloop.span.kind": "task", "traceloop.entity.name": "FunctionTool.task"}),
    ]
    trajectory = map_spans(spans, scope=_LLAMAINDEX)
    assert get_node(trajectory, node_id(3)).tool_name == "delete_file"
    assert get_node(trajectory, node_id(5)).tool_name is None  # a class is not a tool's name


def test_llama_index_under_openllmetry_a_tool_that_raised_fails_its_call_from_the_step_outcome() -> None:
    trajectory = map_spans(_llama_index_run(), scope=_LLAMAINDEX)
    failed = get_node(trajectory, f"{node_id(3)}#call:call_1")
    # No span ran call_1; the lookup_order execution that exists is joined to call_2, so it is not call_1's run.
    assert failed.status is NodeStatus.PROPOSED and failed.result_status is NodeStatus.FAILED
    assert failed.result_error == "order 'A-10O1' not found"
