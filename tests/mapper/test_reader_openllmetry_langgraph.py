"""LangGraph under OpenLLMetry's LangChain instrumentation (``opentelemetry-instrumentation-langchain`` 0.62.4), in
the shapes it records: a tool run's ``ToolMessage`` inside ``traceloop.entity.output`` (its call id the only id on
the tool span), and langgraph-supervisor's handoff tool, which names its destination in the run metadata."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

PROPS = "traceloop.association.properties."


def _tool_output(call_id: str, content: str = "Oslo: Light rain") -> str:
    message = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
               "kwargs": {"content": content, "type": "tool", "name": "get_weather", "tool_call_id": call_id,
                          "status": "success"}}
    return json.dumps({"output": message, "kwargs": {"tags": ["seq:step:1"], "name": "get_weather"}})


def _chat(number: int, parent: int, call_id: str) -> object:
    return span(number, "ChatOpenAI.chat", parent=parent, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.provider.name": "openai",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
            {"type": "tool_call", "id": call_id, "name": "get_weather", "arguments": {"city": "Oslo"}}]}]),
    })


def _tool(number: int, parent: int, name: str, output: str, **props: str) -> object:
    attrs: dict[str, object] = {
        "traceloop.span.kind": "tool", "traceloop.entity.name": name, "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name, "traceloop.entity.input": json.dumps({"input_str": "{'city': 'Oslo'}"}),
        "traceloop.entity.output": output, PROPS + "langgraph_step": 2, PROPS + "langgraph_node": "tools",
    }
    attrs.update({PROPS + key: value for key, value in props.items()})
    return span(number, f"execute_tool {name}", parent=parent, attrs=attrs)


def _agent() -> object:
    return span(1, "support_agent.workflow", attrs={
        "traceloop.span.kind": "workflow", "traceloop.entity.name": "support_agent",
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent",
    })


def test_the_tool_message_in_the_entity_output_gives_the_call_id() -> None:
    # Two identical calls: only the ToolMessage's call id says which proposal each execution answers.
    spans = [_agent(), _chat(2, 1, "call_1"), _tool(3, 1, "get_weather", _tool_output("call_1")),
             _chat(4, 1, "call_2"), _tool(5, 1, "get_weather", _tool_output("call_2"))]
    trajectory = map_spans(spans)
    assert (get_node(trajectory, node_id(3)).tool_call_id, get_node(trajectory, node_id(5)).tool_call_id) == ("call_1", "call_2")
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, f"{node_id(2)}#call:call_1")
    assert has_edge(trajectory, node_id(5), EdgeType.CAUSED_BY, f"{node_id(4)}#call:call_2")


def test_an_output_that_is_not_a_tool_message_gives_no_call_id() -> None:
    trajectory = map_spans([_agent(), _tool(2, 1, "get_weather", json.dumps({"output": "Oslo: Light rain"}))])
    assert get_node(trajectory, node_id(2)).tool_call_id is None


def test_a_tool_that_names_its_handoff_destination_is_a_handoff() -> None:
    output = json.dumps({"output": {"graph": "__parent__", "goto": "billing_agent"}})
    spans = [_agent(), _tool(2, 1, "transfer_to_billing_agent", output, __handoff_destination="billing_agent"),
             _tool(3, 1, "transfer_to_billing_agent", output)]
    trajectory = map_spans(spans)
    handoff = get_node(trajectory, node_id(2))
    assert handoff.kind is NodeKind.HANDOFF and handoff.handoff_to == "billing_agent"
    assert get_node(trajectory, node_id(3)).kind is NodeKind.TOOL_EXECUTION  # the name alone says nothing


# Graph invocations as 0.62.4 records them: a ``Pregel.stream`` span ``invoke_agent <graph>`` (provider langgraph, no
# traceloop kind) beside the graph's LangChain run, whose node runs carry the LangGraph run metadata.

def _stream(number: int, graph: str, parent: int | None = None) -> object:
    return span(number, f"invoke_agent {graph}", parent=parent, attrs={
        "gen_ai.provider.name": "langgraph", "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": graph,
    })


def _run(number: int, name: str, parent: int | None, node: str | None = None, step: int = 1) -> object:
    attrs: dict[str, object] = {
        "traceloop.entity.name": name, "gen_ai.provider.name": "langgraph",
    }
    if parent is None or node is None:  # the outermost run: a workflow that says invoke_agent
        attrs |= {"traceloop.span.kind": "workflow", "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
        return span(number, f"{name}.workflow", parent=parent, attrs=attrs)
    attrs |= {"traceloop.span.kind": "task", "gen_ai.operation.name": "execute_task", PROPS + "langgraph_node": node,
              PROPS + "langgraph_step": step, PROPS + "langgraph_checkpoint_ns": f"{node}:{number}"}
    return span(number, f"execute_task {name}", parent=parent, attrs=attrs)


def _model(number: int, parent: int) -> object:
    return span(number, "ChatOpenAI.chat", parent=parent, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.provider.name": "openai",
    })


def test_the_stream_span_and_the_run_it_wraps_are_one_agent_invocation() -> None:
    spans = [_stream(1, "support_agent"), _run(2, "support_agent", 1), _run(3, "agent", 2, node="agent"),
             _model(4, 3), _run(5, "tools", 2, node="tools", step=2)]
    trajectory = map_spans(spans)
    agents = [node for node in trajectory.nodes if node.kind is NodeKind.AGENT_INVOCATION]
    assert [node.id for node in agents] == [node_id(2)]
    assert agents[0].agent_name == "support_agent"
    assert get_node(trajectory, node_id(3)).kind is NodeKind.WORKFLOW_STEP
    assert any(d.reason.startswith("a graph's stream span") and d.count == 1 for d in trajectory.declarations)


def test_a_graph_run_in_a_node_is_the_agent_and_its_empty_stream_span_joins_it() -> None:
    # A supervisor graph (no model call of its own) whose node triage_agent runs the agent's graph.
    spans = [_stream(1, "LangGraph"), _run(2, "LangGraph", 1), _run(3, "triage_agent", 2, node="triage_agent"),
             _stream(4, "triage_agent", parent=3), _run(5, "triage_agent", 3, node="triage_agent"),
             _run(6, "agent", 5, node="agent"), _model(7, 6)]
    trajectory = map_spans(spans)
    agents = [node for node in trajectory.nodes if node.kind is NodeKind.AGENT_INVOCATION]
    assert [(node.id, node.agent_name) for node in agents] == [(node_id(5), "triage_agent")]
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP  # its models run inside the agent
    assert get_node(trajectory, node_id(3)).kind is NodeKind.WORKFLOW_STEP  # the supervisor's node run
    assert all(node.id not in (node_id(1), node_id(4)) for node in trajectory.nodes)


def test_a_stream_span_is_kept_when_no_single_run_of_its_graph_is_beside_it() -> None:
    # Two runs of the graph beside the empty stream span: nothing says which one it streamed.
    spans = [_run(1, "LangGraph", None), _run(2, "triage_agent", 1, node="triage_agent"),
             _stream(3, "triage_agent", parent=2), _run(4, "triage_agent", 2, node="triage_agent"),
             _run(5, "triage_agent", 2, node="triage_agent"), _run(6, "agent", 4, node="agent"), _model(7, 6),
             _run(8, "agent", 5, node="agent"), _model(9, 8)]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(3)).kind is NodeKind.AGENT_INVOCATION
    assert {get_node(trajectory, node_id(n)).kind for n in (4, 5)} == {NodeKind.AGENT_INVOCATION}


def test_a_goto_span_records_a_routing_decision_and_runs_nothing() -> None:
    spans = [_agent(), span(2, "goto billing_agent", parent=1, attrs={
        "gen_ai.operation.name": "goto", "langgraph.command.source_node": "tools",
        "langgraph.command.goto_node": "billing_agent"})]
    assert get_node(map_spans(spans), node_id(2)).kind is NodeKind.OTHER


# LangChain v1's create_agent runs each middleware hook as a graph node (``<class>.<hook>``); the instrumentation
# records the node's run and, inside it, a span of the hook call itself (``gen_ai.task.kind`` / ``gen_ai.task.name``).

def _hook(number: int, parent: int, middleware: str, hook: str) -> object:
    return span(number, f"execute_task {middleware}.{hook}", parent=parent, attrs={
        "gen_ai.operation.name": "execute_task", "gen_ai.provider.name": "langchain",
        "gen_ai.task.kind": middleware, "gen_ai.task.name": f"{middleware}.{hook}", "gen_ai.task.status": "success",
        PROPS + "langgraph_node": f"{middleware}.{hook}", PROPS + "langgraph_step": 1,
    })


def test_a_middleware_hook_span_inside_its_node_run_is_no_step_of_its_own() -> None:
    spans = [_run(1, "support_agent", None), _run(2, "ToolErrorMiddleware.before_model", 1,
                                                 node="ToolErrorMiddleware.before_model"),
             _hook(3, 2, "ToolErrorMiddleware", "before_model")]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(3)).kind is NodeKind.OTHER


def test_a_task_span_whose_name_is_no_middleware_hook_stays_a_step() -> None:
    spans = [_run(1, "support_agent", None), _hook(2, 1, "ToolErrorMiddleware", "before_model"),
             span(3, "execute_task review", parent=1, attrs={
                 "gen_ai.operation.name": "execute_task", "gen_ai.provider.name": "langchain",
                 "gen_ai.task.kind": "ReviewStep", "gen_ai.task.name": "ReviewStep.run"})]
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(2)).kind is NodeKind.OTHER
    assert get_node(trajectory, node_id(3)).kind is NodeKind.WORKFLOW_STEP
