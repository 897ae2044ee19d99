"""OpenInference spans of smolagents, LangChain / LangGraph and CrewAI, shaped as their instrumentations write them
(Arize-ai/openinference @ 1fe497f1: openinference-instrumentation-{smolagents,langchain,crewai}): argument formats
by convention, call ids in tool outputs, managed agents, delegation tools."""

from __future__ import annotations

import json

from processor.detectors.config import DetectorsConfig
from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from processor.detectors.invalid_arguments import InvalidArgumentsDetector
from semconv.trajectory import EdgeType, NodeKind
from tests.detectors.support import run as run_detector
from tests.support.spans import edges_from, get_node, has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"


def _llm(number: int, parent: int, *, calls: list[tuple[str, str, str | None]], inputs: list[dict] = (), tools: list[str] = ()) -> object:
    attrs: dict[str, object] = {KIND: "LLM", "llm.model_name": "m", "llm.output_messages.0.message.role": "assistant"}
    for index, (call_id, name, arguments) in enumerate(calls):
        prefix = f"llm.output_messages.0.message.tool_calls.{index}.tool_call."
        attrs[prefix + "id"] = call_id
        attrs[prefix + "function.name"] = name
        if arguments is not None:
            attrs[prefix + "function.arguments"] = arguments
    for position, message in enumerate(inputs):
        prefix = f"llm.input_messages.{position}.message."
        attrs[prefix + "role"] = message["role"]
        for index, text in enumerate(message.get("texts", ())):
            attrs[f"{prefix}contents.{index}.message_content.type"] = "text"
            attrs[f"{prefix}contents.{index}.message_content.text"] = text
    for index, tool in enumerate(tools):
        attrs[f"llm.tools.{index}.tool.json_schema"] = json.dumps({"type": "function", "function": {"name": tool}})
    return span(number, "OpenAIServerModel.generate", parent=parent, attrs=attrs)


def _smolagents(*, managed: bool = False) -> list:
    """ToolCallingAgent.run -> Step 1 -> generate / SimpleTool; Step 2 -> generate (replays the step as text)."""
    run_attrs: dict[str, object] = {KIND: "AGENT", "input.value": '{"task": "weather"}', "smolagents.max_steps": 5,
                                    "smolagents.tools_names": ["get_weather", "final_answer"],
                                    "llm.token_count.prompt": 300, "llm.token_count.completion": 40}
    if managed:
        run_attrs["smolagents.managed_agents.0.name"] = "researcher"
    spans = [
        span(1, "ToolCallingAgent.run", attrs=run_attrs),
        span(2, "Step 1", parent=1, attrs={KIND: "CHAIN"}),
        _llm(3, 2, calls=[("call_1", "researcher" if managed else "get_weather", None if managed else '{"city": "Paris"}')],
             tools=["get_weather", "final_answer"]),
    ]
    if managed:
        spans.append(span(4, "researcher.run", parent=2, attrs={KIND: "AGENT", "smolagents.max_steps": 3,
                                                                 "smolagents.tools_names": ["web_search"]}))
    else:
        spans.append(span(4, "SimpleTool", parent=2, attrs={
            KIND: "TOOL", "tool.name": "get_weather",
            "input.value": json.dumps({"args": [], "sanitize_inputs_outputs": True, "kwargs": {"city": "Paris"}}),
            "output.value": "Sunny", "output.mime_type": "text/plain"}))
    spans += [
        span(5, "Step 2", parent=1, attrs={KIND: "CHAIN"}),
        _llm(6, 5, calls=[("call_2", "final_answer", '{"answer": "Sunny"}')], inputs=[
            {"role": "user", "texts": ["weather"]},
            {"role": "tool-call", "texts": ["Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'get_weather'}}]"]},
            {"role": "tool-response", "texts": ["Call id: call_1\nObservation:\nSunny"]},
        ], tools=["get_weather", "final_answer"]),
    ]
    return spans


def test_smolagents_simple_tool_is_named_by_tool_name_and_joined_through_its_call_record() -> None:
    trajectory = map_spans(_smolagents())
    tool = get_node(trajectory, node_id(4))
    assert tool.kind is NodeKind.TOOL_EXECUTION and tool.tool_name == "get_weather"
    assert tool.arguments == '{"city":"Paris"}'  # {"args": [], "sanitize_inputs_outputs": ..., "kwargs": {...}} unwrapped
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))
    # The next model input replays the step as text; "Call id: call_1" names the result it carries.
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))


def test_smolagents_run_usage_is_an_aggregate_and_its_tools_are_declared() -> None:
    agent = get_node(map_spans(_smolagents()), node_id(1))
    assert agent.usage is None and agent.agent_name == "ToolCallingAgent"
    assert agent.tool_definitions == ("final_answer", "get_weather")


def test_smolagents_managed_agent_called_as_a_tool_is_a_delegation_not_a_hallucinated_tool() -> None:
    trajectory = map_spans(_smolagents(managed=True))
    (edge,) = [e for e in edges_from(trajectory, node_id(4)) if "#call" in e.to_node]
    assert edge.to_node == node_id(3, "call:call_1") and "managed agent researcher" in edge.evidence
    assert not run_detector(HallucinatedToolDetector(), trajectory)


def test_smolagents_orphans_of_a_failed_run_end_it_in_error() -> None:
    from processor.detectors.chain import DetectorChain
    from processor.detectors.registry import load_detectors

    spans = [item for item in _smolagents() if item.name != "ToolCallingAgent.run"]  # the run span never ended
    spans[-1] = span(6, "OpenAIServerModel.generate", parent=5, error="APIError: 500", attrs={KIND: "LLM", "llm.model_name": "m"})
    spans[-2] = span(5, "Step 2", parent=1, error="AgentGenerationError", attrs={KIND: "CHAIN"})
    config = DetectorsConfig()
    diagnosis = DetectorChain(load_detectors(config), config).run(map_spans(spans))
    assert diagnosis.terminal_status.value == "error"


def _langgraph_tool(output: str, *, value: str = "Paris", mime: str | None = None) -> object:
    attrs = {KIND: "TOOL", "tool.name": "get_weather", "input.value": value, "output.value": output}
    if mime:
        attrs["input.mime_type"] = mime
    return span(4, "get_weather", parent=3, attrs=attrs)


def _langgraph(tool: object) -> list:
    return [
        span(1, "LangGraph", attrs={KIND: "CHAIN"}),
        span(2, "agent", parent=1, attrs={KIND: "CHAIN"}),
        _llm(5, 2, calls=[("call_9", "get_weather", '{"city": "Paris"}')]),
        span(3, "tools", parent=1, attrs={KIND: "CHAIN"}),
        tool,
    ]


def test_langchain_tool_message_in_output_carries_the_call_id() -> None:
    message = json.dumps({"content": "Sunny", "type": "tool", "name": "get_weather", "tool_call_id": "call_9", "status": "success"})
    trajectory = map_spans(_langgraph(_langgraph_tool(message)))
    assert get_node(trajectory, node_id(4)).tool_call_id == "call_9"
    (edge,) = [e for e in edges_from(trajectory, node_id(4)) if "#call" in e.to_node]
    assert edge.to_node == node_id(5, "call:call_9") and "ToolMessage" in edge.evidence


def test_langchain_serialised_tool_message_too() -> None:
    message = json.dumps({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
                          "kwargs": {"content": "Sunny", "type": "tool", "tool_call_id": "call_9"}})
    assert get_node(map_spans(_langgraph(_langgraph_tool(message))), node_id(4)).tool_call_id == "call_9"


def test_single_input_tool_bare_string_is_not_invalid_json_and_joins_the_proposal() -> None:
    trajectory = map_spans(_langgraph(_langgraph_tool("Sunny")))  # input.value "Paris", no mime type
    tool = get_node(trajectory, node_id(4))
    assert tool.arguments == "Paris" and not tool.arguments_json
    assert not run_detector(InvalidArgumentsDetector(), trajectory)
    (edge,) = [e for e in edges_from(trajectory, node_id(4)) if "#call" in e.to_node]
    assert edge.to_node == node_id(5, "call:call_9") and "single-input" in edge.evidence


def test_python_dict_text_under_a_json_mime_type_is_read_as_a_literal() -> None:
    trajectory = map_spans(_langgraph(_langgraph_tool("Sunny", value="{'city': 'Paris'}", mime="application/json")))
    assert get_node(trajectory, node_id(4)).arguments == '{"city":"Paris"}'
    assert not run_detector(InvalidArgumentsDetector(), trajectory)


def test_json_mime_type_that_is_not_json_is_still_invalid() -> None:
    trajectory = map_spans(_langgraph(_langgraph_tool("Sunny", value="{city: Paris", mime="application/json")))
    assert [f.category.value for f in run_detector(InvalidArgumentsDetector(), trajectory)] == ["invalid_tool_arguments"]


def test_crewai_delegation_tool_is_the_models_function_style_name() -> None:
    """CrewAI's ``Delegate work to coworker`` tool span (``{name}.run``, its BaseTool.run call record as JSON) is
    what the model calls ``delegate_work_to_coworker``."""
    arguments = {"task": "find the invoice", "context": "order A-1", "coworker": "Billing"}
    trajectory = map_spans([
        span(1, "crew.kickoff", attrs={KIND: "CHAIN"}),
        span(2, "Support.task._execute_core", parent=1, attrs={KIND: "AGENT"}),
        _llm(3, 2, calls=[("call_d", "delegate_work_to_coworker", json.dumps(arguments))], tools=["delegate_work_to_coworker"]),
        span(4, "Delegate work to coworker.run", parent=2, attrs={
            KIND: "TOOL", "tool.name": "Delegate work to coworker", "input.mime_type": "application/json",
            "input.value": json.dumps({"args": [], "kwargs": arguments}), "output.value": "found"}),
    ])
    (edge,) = [e for e in edges_from(trajectory, node_id(4)) if "#call" in e.to_node]
    assert edge.to_node == node_id(3, "call:call_d") and "function style" in edge.evidence
    assert not run_detector(HallucinatedToolDetector(), trajectory)


LI = "openinference.instrumentation.llama_index"


def test_llama_index_run_is_the_agent_and_prepare_spans_are_not_calls() -> None:
    trajectory = map_spans([
        span(1, "FunctionAgent.run", attrs={KIND: "CHAIN"}),
        span(2, "BaseWorkflowAgent.run_agent_step", parent=1, attrs={KIND: "CHAIN"}),
        span(3, "OpenAI._prepare_chat_with_tools", parent=2, attrs={KIND: "LLM", "llm.model_name": "gpt-4o-mini"}),
        _llm(4, 2, calls=[("call_1", "get_weather", '{"city": "Paris"}')]),
    ], scope=LI)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(3)).kind is NodeKind.OTHER
    assert get_node(trajectory, node_id(4)).kind is NodeKind.MODEL_CALL


def test_llama_index_call_tool_step_gives_its_tool_span_the_call_id() -> None:
    result = "ToolCallResult(tool_name='get_weather', tool_kwargs={'city': 'Paris'}, tool_id='call_1', tool_output=..."
    tool_message = "ChatMessage(role=<MessageRole.TOOL: 'tool'>, additional_kwargs={'tool_call_id': 'call_1'}, blocks=[...])"
    trajectory = map_spans([
        span(1, "FunctionAgent.run", attrs={KIND: "CHAIN"}),
        span(2, "BaseWorkflowAgent.run_agent_step", parent=1, attrs={KIND: "CHAIN"}),
        _llm(3, 2, calls=[("call_1", "get_weather", '{"city": "Paris"}')]),
        span(4, "BaseWorkflowAgent.call_tool", parent=1, attrs={KIND: "CHAIN", "output.value": result}),
        span(5, "FunctionTool.acall", parent=4, attrs={KIND: "TOOL", "tool.name": "get_weather", "input.value": '{"kwargs": {"city": "Paris"}}'}),
        span(6, "BaseWorkflowAgent.run_agent_step", parent=1, attrs={KIND: "CHAIN", "input.value": f'{{"ev": "AgentSetup(input=[{tool_message}])"}}'}),
    ], scope=LI)
    tool = get_node(trajectory, node_id(5))
    assert tool.tool_call_id == "call_1"
    (edge,) = [e for e in edges_from(trajectory, node_id(5)) if "#call" in e.to_node]
    assert edge.to_node == node_id(3, "call:call_1") and "parent step" in edge.evidence
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(5))  # the next step was given the result


def test_smolagents_replayed_calls_are_consumed_by_the_next_model_call() -> None:
    spans = _smolagents()
    spans[-1] = _llm(6, 5, calls=[("call_2", "final_answer", '{"answer": "Sunny"}')], inputs=[
        {"role": "user", "texts": ["weather"]},
        {"role": "tool-call", "texts": ["Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': {'city': 'Paris'}}}]"]},
        {"role": "tool-response", "texts": ["Observation:\nSunny"]},
    ])
    assert has_edge(map_spans(spans), node_id(6), EdgeType.DEPENDS_ON, node_id(4))


def test_crewai_bare_tool_not_found_result_rejects_the_call_it_answers() -> None:
    """CrewAI runs no span for an unknown tool; the next request answers the call with ``Tool not found``."""
    inputs_prefix = "llm.input_messages."
    llm = _llm(5, 2, calls=[("call_2", "lookup_order", '{"order_id": "A-1"}')], tools=["lookup_order"])
    llm.attributes.extend(span(0, "x", attrs={
        inputs_prefix + "0.message.role": "user", inputs_prefix + "0.message.content": "invoice?",
        inputs_prefix + "1.message.role": "assistant",
        inputs_prefix + "1.message.tool_calls.0.tool_call.id": "call_1",
        inputs_prefix + "1.message.tool_calls.0.tool_call.function.name": "fetch_invoice",
        inputs_prefix + "2.message.role": "tool", inputs_prefix + "2.message.tool_call_id": "call_1",
        inputs_prefix + "2.message.content": "Tool not found",
    }).attributes)
    trajectory = map_spans([
        span(1, "crew.kickoff", attrs={KIND: "CHAIN"}),
        span(2, "Support._execute_core", parent=1, attrs={KIND: "AGENT"}),
        _llm(3, 2, calls=[("call_1", "fetch_invoice", '{"order_id": "A-1"}')]),
        llm,
    ])
    assert get_node(trajectory, node_id(5)).unknown_tools == ("fetch_invoice",)
    (finding,) = run_detector(HallucinatedToolDetector(), trajectory)
    assert finding.node_id == node_id(3, "call:call_1") and node_id(5) in finding.related_nodes
