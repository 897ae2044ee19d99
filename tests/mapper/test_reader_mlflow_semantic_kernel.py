"""Semantic Kernel's own spans under MLflow's Semantic Kernel autolog, shaped as ``mlflow-skinny`` 3.18.0 writes them
(``corpus/NOTES-frameworks-dh.md``): Semantic Kernel's GenAI spans (its four scopes; no message on a ``chat`` span, the
call id on each ``execute_tool`` span) with MLflow's keys written in as each ended: ``mlflow.spanType`` from the
operation (``chat`` CHAT_MODEL, ``execute_tool`` TOOL, ``invoke_agent`` AGENT, else ``UNKNOWN``: the
``AutoFunctionInvocationLoop``), and on a ``chat`` span ``mlflow.spanInputs`` / ``mlflow.spanOutputs``
``{"messages": [...]}`` in the Chat Completions shape with call ids."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, kinds, map_scoped_spans, node_id, span

AGENT_SCOPE = "semantic_kernel.utils.telemetry.agent_diagnostics.decorators"
LOOP_SCOPE = "semantic_kernel.connectors.ai.chat_completion_client_base"
CHAT_SCOPE = "semantic_kernel.utils.telemetry.model_diagnostics.decorators"
TOOL_SCOPE = "semantic_kernel.functions.kernel_function"
MLFLOW_SCOPE = "mlflow.tracing.provider"

CALL = {"id": "call_1", "type": "function",
        "function": {"name": "SupportTools-get_weather", "arguments": json.dumps({"city": "Paris"})}}
SYSTEM = {"role": "system", "content": "You are a support agent.", "name": "support_agent"}
USER = {"role": "user", "content": "Weather in Paris?"}


def _mlflow(span_type: str, **attrs: Any) -> dict[str, str]:
    """MLflow's keys as its Semantic Kernel processor and wrappers write them: every value JSON text."""
    return {"mlflow.traceRequestId": json.dumps("tr-1"), "mlflow.spanType": json.dumps(span_type),
            **{key: json.dumps(value) for key, value in attrs.items()}}


def _chat(number: int, inputs: list[Any], outputs: list[Any] | None) -> Any:
    mlflow = {"mlflow.spanInputs": {"messages": inputs}}
    if outputs is not None:
        mlflow["mlflow.spanOutputs"] = {"messages": outputs}
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini",
             "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5,
             **_mlflow("CHAT_MODEL", **mlflow)}
    return span(number, "chat gpt-4o-mini", parent=2, attrs=attrs, error=None if outputs is not None else "500")


def _run(second_answer: list[Any] | None) -> list[tuple[str, list[Any]]]:
    """One agent run: its loop, a call proposed, run and consumed by the second request (failed when no answer)."""
    agent = span(1, "invoke_agent support_agent", attrs={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent", **_mlflow("AGENT")})
    loop = span(2, "AutoFunctionInvocationLoop", parent=1, attrs={
        "sk.available_functions": "SupportTools-get_weather", **_mlflow("UNKNOWN")})
    tool = span(4, "execute_tool SupportTools-get_weather", parent=2, attrs={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "SupportTools-get_weather",
        "gen_ai.tool.call.id": "call_1", **_mlflow("TOOL")})
    result = {"role": "tool", "content": "Paris: sunny", "tool_call_id": "call_1"}
    chats = [_chat(3, [SYSTEM, USER], [{"role": "assistant", "tool_calls": [CALL]}]),
             _chat(5, [SYSTEM, USER, {"role": "assistant", "tool_calls": [CALL]}, result], second_answer)]
    return [(AGENT_SCOPE, [agent]), (LOOP_SCOPE, [loop]), (CHAT_SCOPE, chats), (TOOL_SCOPE, [tool])]


def test_the_loop_span_typed_unknown_by_mlflow_is_semantic_kernel_s_workflow_step() -> None:
    trajectory = map_scoped_spans(_run([{"role": "assistant", "content": "Sunny."}]))
    loop = get_node(trajectory, node_id(2))
    assert loop.kind is NodeKind.WORKFLOW_STEP and loop.convention == "semantic_kernel"


def test_a_chat_span_proposes_the_call_mlflow_s_outputs_hold_and_the_tool_span_runs_it() -> None:
    trajectory = map_scoped_spans(_run([{"role": "assistant", "content": "Sunny."}]))
    assert get_node(trajectory, node_id(3, "call:call_1")).kind is NodeKind.TOOL_PROPOSAL
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:call_1"))


def test_the_next_chat_span_consumes_the_result_mlflow_s_inputs_replay() -> None:
    trajectory = map_scoped_spans(_run([{"role": "assistant", "content": "Sunny."}]))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))
    assert kinds(trajectory)["tool_proposal"] == 1


def test_a_failed_chat_span_with_inputs_and_no_outputs_still_consumes_and_proposes_nothing() -> None:
    trajectory = map_scoped_spans(_run(None))
    assert has_edge(trajectory, node_id(5), EdgeType.DEPENDS_ON, node_id(4))
    assert kinds(trajectory)["tool_proposal"] == 1


def test_an_unknown_typed_span_of_mlflow_s_own_scope_stays_mlflow_s() -> None:
    """Guard: a span MLflow's own tracer made and typed ``UNKNOWN`` (AG2's session root) is read by MLflow's keys."""
    root = span(1, "initiate_chat", attrs=_mlflow("UNKNOWN", **{"mlflow.spanInputs": {"message": "hi"}}))
    trajectory = map_scoped_spans([(MLFLOW_SCOPE, [root])])
    assert get_node(trajectory, node_id(1)).convention == "mlflow"


def test_the_span_s_own_genai_messages_are_read_before_mlflow_s() -> None:
    """Guard: a chat span whose own GenAI keys record its answer keeps that answer (MLflow's outputs not read)."""
    own = [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}], "finish_reason": "stop"}]
    chat = span(3, "chat gpt-4o-mini", parent=2, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.output.messages": json.dumps(own),
        **_mlflow("CHAT_MODEL", **{"mlflow.spanOutputs": {"messages": [{"role": "assistant", "tool_calls": [CALL]}]}})})
    trajectory = map_scoped_spans([(CHAT_SCOPE, [chat])])
    assert kinds(trajectory).get("tool_proposal", 0) == 0


def test_an_unknown_typed_span_of_another_scope_with_mlflow_inputs_stays_mlflow_s() -> None:
    """Guard: a span typed ``UNKNOWN`` on which MLflow recorded inputs is MLflow's record, whatever its scope."""
    root = span(1, "initiate_chat", attrs=_mlflow("UNKNOWN", **{"mlflow.spanInputs": {"message": "hi"}}))
    trajectory = map_scoped_spans([(LOOP_SCOPE, [root])])
    assert get_node(trajectory, node_id(1)).convention == "mlflow"
