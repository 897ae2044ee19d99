"""OpenLIT's Pydantic AI spans (:mod:`otel_mapper.mapping.readers.openlit_pydantic_ai`) and Pydantic AI's retry prompt
as a tool result that reports a failure (:func:`otel_mapper.mapping.tool_failures.tool_failure`). Shapes as ``openlit``
1.45 records Pydantic AI 2.31 (``corpus/NOTES-frameworks-aj.md``): the agent's run (``execute_task <agent>``), the
graph and node wrappers' spans (ended before what they name runs), and the model calls of OpenLIT's OpenAI
instrumentor beside them under the run; no span for a tool's run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.build import map_trace
from otel_mapper.mapping.tool_failures import tool_failure
from otel_mapper.model import Trajectory
from processor.detectors.tool_error import ToolErrorDetector
from semconv import openlit
from semconv.trajectory import FindingStatus, NodeKind, NodeStatus
from tests.detectors.support import run
from tests.support.spans import envelopes, get_node, node_id, span

PYD = {"gen_ai.provider.name": "pydantic_ai", "gen_ai.sdk.version": "2.31.1", "gen_ai.agent.name": "support_agent",
       "gen_ai.request.model": "gpt-4o-mini"}
USER = {"role": "user", "parts": [{"type": "text", "content": "Where is order A-1001?"}]}
RETRY = "order 'A-10O1' not found\n\nFix the errors and try again."


def _map(pyd: Sequence[Span], openai: Sequence[Span], *, pyd_scope: str = openlit.PYDANTIC_AI_SCOPE) -> Trajectory:
    items = envelopes(pyd, scope=pyd_scope) + envelopes(openai, scope="openlit.instrumentation.openai")
    return map_trace(items).trajectory


def _pyd(operation: str, phase: str, **extra: Any) -> dict[str, Any]:
    return {**PYD, "gen_ai.operation.name": operation, "gen_ai.agent.lifecycle.phase": phase, **extra}


def _chat(number: int, inputs: list[dict[str, Any]], output: list[dict[str, Any]]) -> Span:
    return span(number, "chat gpt-4o-mini", parent=1, attrs={
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.id": f"resp-{number}", "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(output)})


def _call(call_id: str, order_id: str) -> dict[str, Any]:
    return {"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": "lookup_order",
                                            "arguments": {"order_id": order_id}}]}


def _result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": text}]}


def _run() -> tuple[list[Span], list[Span]]:
    """Run 1 with its graph span 2 and node spans 3-5; model call 6 asks for lookup_order, whose tool raised
    ModelRetry; model call 7 reads the retry prompt and asks again; model call 8 reads the order and answers."""
    pyd = [span(1, "execute_task support_agent", attrs=_pyd("execute_task", "execute")),
           span(2, "invoke_workflow support_agent", parent=1, attrs=_pyd("invoke_workflow", "graph_execution")),
           span(3, "user_prompt_processing gpt-4o-mini", parent=1,
                attrs=_pyd("user_prompt_processing", "user_prompt_processing")),
           span(4, "model_request gpt-4o-mini", parent=1, attrs=_pyd("model_request", "model_request")),
           span(5, "execute_tool gpt-4o-mini", parent=1, attrs=_pyd("execute_tool", "tool_execution"))]
    first, second = _call("call_1", "A-10O1"), _call("call_2", "A-1001")
    history = [USER, first, _result("call_1", RETRY)]
    openai = [_chat(6, [USER], [first]), _chat(7, history, [second]),
              _chat(8, [*history, second, _result("call_2", '{"status": "shipped"}')],
                    [{"role": "assistant", "parts": [{"type": "text", "content": "Shipped."}]}])]
    return pyd, openai


def test_the_run_is_an_agent_invocation_and_the_wrappers_hold_nothing() -> None:
    trajectory = _map(*_run())
    run_node = get_node(trajectory, node_id(1))
    assert run_node.kind is NodeKind.AGENT_INVOCATION and run_node.agent_name == "support_agent"
    for number in (2, 3, 4, 5):
        assert get_node(trajectory, node_id(number)).kind is NodeKind.OTHER
    kinds = [node.kind for node in trajectory.nodes]
    assert NodeKind.TOOL_EXECUTION not in kinds and NodeKind.WORKFLOW_STEP not in kinds


def test_the_same_spans_on_another_scope_keep_the_operation_reading() -> None:
    trajectory = _map(*_run(), pyd_scope="some.other.scope")
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP  # execute_task: a step's operation
    assert get_node(trajectory, node_id(5)).kind is NodeKind.TOOL_EXECUTION


def test_a_retry_prompt_is_a_failed_result_and_tool_error_fires_on_the_proposal() -> None:
    assert tool_failure(RETRY) == RETRY
    assert tool_failure("2 validation errors:\n```json\n[]\n```\n\nFix the errors and try again.\n")
    assert tool_failure("Fix the errors and try again, the docs say.") is None
    trajectory = _map(*_run())
    failed = get_node(trajectory, f"{node_id(6)}#call:call_1")
    assert failed.status is NodeStatus.PROPOSED and failed.result_status is NodeStatus.FAILED
    (finding,) = run(ToolErrorDetector(), trajectory)
    assert finding.node_id == failed.id and finding.status is FindingStatus.FAIL
