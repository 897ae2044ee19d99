"""LlamaIndex's agents under MLflow's LlamaIndex autolog (:mod:`otel_mapper.mapping.readers.mlflow_llama_index`, read by
the MLflow reader), and OpenInference's spans exported by MLflow's tracer provider (its Agno autolog), shaped as
``mlflow-tracing`` 3.18.0 writes them (``corpus/NOTES-frameworks-cm.md``): an MLflow span per LlamaIndex dispatcher span,
named ``<Class>.<method>``, every value JSON text; a model call ``OpenAI.achat`` of message format ``llamaindex`` whose
messages are LlamaIndex ``ChatMessage`` dicts and whose outputs are the ``ChatResponse``; the tool span
``FunctionTool.acall`` with ``{"kwargs": ...}`` as inputs and no call id, inside the ``call_tool`` step that records
it; OpenInference's spans with ``mlflow.spanType`` JSON ``null``."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, has_edge, kinds, map_spans, node_id, span

ARGS = "{\"city\": \"Paris\"}"
SYSTEM = {"role": "system", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "Be brief."}]}
USER = {"role": "user", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "Weather in Paris?"}]}
ASSISTANT = {"role": "assistant", "additional_kwargs": {"tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ARGS}}]},
    "blocks": [{"block_type": "tool_call", "tool_call_id": "call_1", "tool_name": "get_weather", "tool_kwargs": ARGS}]}
RESULT = {"role": "tool", "additional_kwargs": {"tool_call_id": "call_1"},
          "blocks": [{"block_type": "text", "text": "Paris: sunny"}]}
TOOLS = [{"type": "function", "function": {"name": "get_weather"}}]


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """Attributes as MLflow writes them: every value JSON text."""
    return {"mlflow.spanType": json.dumps(span_type), **{key: json.dumps(value) for key, value in attrs.items()}}


def _achat(number: int, parent: int, messages: list[Any], answer: dict[str, Any],
           message_format: str = "llamaindex") -> Any:
    return span(number, "OpenAI.achat", parent=parent, attrs=_mlflow("CHAT_MODEL", **{
        "mlflow.message.format": message_format, "mlflow.chat.tools": TOOLS, "mlflow.llm.model": "gpt-4o-mini",
        "mlflow.spanInputs": {"messages": messages, "kwargs": {"tools": TOOLS}},
        "mlflow.spanOutputs": {"message": answer, "raw": {"id": f"chatcmpl-{number}"}}}))


def _agent_turns(message_format: str = "llamaindex") -> list[Any]:
    """An agent's run: a model turn proposing ``call_1``, the ``call_tool`` step running it, the next turn given the
    result."""
    step_output = {"tool_name": "get_weather", "tool_kwargs": {"city": "Paris"}, "tool_id": "call_1",
                   "tool_output": {"raw_output": "Paris: sunny", "is_error": False}}
    answer = {"role": "assistant", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "Sunny."}]}
    return [
        span(1, "FunctionAgent.run", attrs=_mlflow("AGENT", **{"mlflow.spanInputs": {"user_msg": "Weather?"},
                                                                 "mlflow.spanOutputs": {"result": "Sunny."}})),
        span(2, "BaseWorkflowAgent.run_agent_step", parent=1, attrs=_mlflow("CHAIN", **{
            "mlflow.spanInputs": {"ctx": "<Context>", "ev": {"input": [SYSTEM, USER]}}})),
        span(3, "OpenAI._prepare_chat_with_tools", parent=2, attrs=_mlflow("LLM", **{
            "mlflow.message.format": message_format, "mlflow.spanInputs": {"chat_history": [SYSTEM, USER]},
            "mlflow.spanOutputs": {"messages": [SYSTEM, USER], "tools": TOOLS}})),
        _achat(4, 2, [SYSTEM, USER], ASSISTANT, message_format),
        span(5, "BaseWorkflowAgent.call_tool", parent=1, attrs=_mlflow("CHAIN", **{
            "mlflow.spanInputs": {"ctx": "<Context>", "ev": {k: step_output[k] for k in ("tool_name", "tool_kwargs",
                                                                                          "tool_id")}},
            "mlflow.spanOutputs": step_output})),
        span(6, "FunctionTool.acall", parent=5, attrs=_mlflow("TOOL", **{
            "mlflow.spanInputs": {"kwargs": {"city": "Paris"}},
            "name": "get_weather", "mlflow.spanOutputs": {"raw_output": "Paris: sunny", "is_error": False}})),
        span(7, "BaseWorkflowAgent.run_agent_step", parent=1, attrs=_mlflow("CHAIN", **{
            "mlflow.spanInputs": {"ctx": "<Context>", "ev": {"input": [SYSTEM, USER, ASSISTANT, RESULT]}}})),
        _achat(8, 7, [SYSTEM, USER, ASSISTANT, RESULT], answer, message_format),
    ]


def test_a_llamaindex_chat_span_proposes_the_calls_of_its_chat_response() -> None:
    trajectory = map_spans(_agent_turns())
    proposal = get_node(trajectory, node_id(4, "call:call_1"))
    assert proposal.kind is NodeKind.TOOL_PROPOSAL and proposal.tool_name == "get_weather"


def test_the_call_tool_step_gives_the_tool_run_inside_it_the_call_id_and_the_proposal_causes_it() -> None:
    trajectory = map_spans(_agent_turns())
    assert get_node(trajectory, node_id(6)).tool_call_id == "call_1"
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(4, "call:call_1"))


def test_a_later_chat_span_consumes_the_result_through_its_tool_message() -> None:
    trajectory = map_spans(_agent_turns())
    assert has_edge(trajectory, node_id(8), EdgeType.DEPENDS_ON, node_id(6))


def test_the_step_given_the_result_depends_on_the_tool_run() -> None:
    """The next ``run_agent_step`` is given the result (its ``ev.input`` tool message) before its model turn."""
    trajectory = map_spans(_agent_turns())
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(6))


def test_the_prepare_chat_span_is_no_model_call_and_an_agent_workflow_run_is_the_agent() -> None:
    spans = _agent_turns()
    spans[0] = span(1, "AgentWorkflow.run", attrs=_mlflow("CHAIN", **{"mlflow.spanInputs": {"user_msg": "Weather?"}}))
    trajectory = map_spans(spans)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(3)).kind is NodeKind.OTHER
    assert kinds(trajectory)["model_call"] == 2


def test_the_same_messages_under_another_format_are_read_only_by_their_shape() -> None:
    """Guard: only the ``llamaindex`` format's spans are read the LlamaIndex way (the request-building step no model
    call); under another format the ChatResponse is still read by its shape (:mod:`otel_mapper.mapping.wire_payloads`),
    and its proposal's edge says so."""
    trajectory = map_spans(_agent_turns(message_format="openai"))
    assert get_node(trajectory, node_id(3)).kind is NodeKind.MODEL_CALL
    proposals = [node for node in trajectory.nodes if node.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals
    for proposal in proposals:
        (made,) = edges_from(trajectory, proposal.id, EdgeType.CAUSED_BY)
        assert made.evidence == "chat response message in attribute mlflow.spanOutputs"


def _openinference_llm(number: int, mlflow_type: str) -> Any:
    return span(number, "OpenAIChat.invoke", attrs={
        "mlflow.traceRequestId": json.dumps("tr-1"), "mlflow.spanType": mlflow_type,
        "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "get_weather",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": ARGS})


def test_a_span_with_a_null_mlflow_type_is_read_by_its_own_convention() -> None:
    trajectory = map_spans([_openinference_llm(1, "null")])
    node = get_node(trajectory, node_id(1))
    assert node.kind is NodeKind.MODEL_CALL and node.convention == "openinference"
    assert get_node(trajectory, node_id(1, "call:call_1")).kind is NodeKind.TOOL_PROPOSAL


def test_a_span_with_an_mlflow_type_stays_mlflow_s() -> None:
    """Guard: a typed MLflow span is MLflow's, whatever else it carries."""
    trajectory = map_spans([_openinference_llm(1, json.dumps("CHAIN"))])
    node = get_node(trajectory, node_id(1))
    assert node.kind is NodeKind.WORKFLOW_STEP and node.convention == "mlflow"
