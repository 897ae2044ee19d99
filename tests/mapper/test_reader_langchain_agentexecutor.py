"""LangChain's classic ``AgentExecutor`` (``langchain_classic.agents``) under OpenInference's and OpenLLMetry's LangChain
instrumentations (corpus/NOTES-frameworks-bs.md), in the shapes they record: the agent's steps, whose output is its
decision (AgentAction / AgentFinish), run by the executor's run; ``InvalidTool``'s run for a tool the executor does not
have; a tool error handed to the model as the observation by ``handle_tool_error``."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.model import Trajectory
from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
OI_SCOPE = "openinference.instrumentation.langchain"
TL_SCOPE = "opentelemetry.instrumentation.langchain"


def _action(tool: str, call_id: str) -> dict[str, object]:
    return {"tool": tool, "tool_input": {"order_id": "A-1001"}, "log": f"\nInvoking: `{tool}`\n",
            "type": "AgentActionMessageLog", "message_log": [], "tool_call_id": call_id}


FINISH = json.dumps({"return_values": {"output": "Done."}, "log": "Done.", "type": "AgentFinish"})


def _oi(number: int, name: str, kind: str, parent: int | None = None, output: str | None = None,
        error: str | None = None, **extra: object) -> Span:
    attrs: dict[str, object] = {KIND: kind, **extra}
    if output is not None:
        attrs["output.value"] = output
    return span(number, name, parent=parent, attrs=attrs, error=error)


def _oi_step(number: int, parent: int, output: str) -> list[Span]:
    """A tool-calling agent's step as OpenInference records it: the agent's RunnableSequence and the runnables in it
    that its tracer types AGENT by their name."""
    return [_oi(number, "RunnableSequence", "CHAIN", parent, output),
            _oi(number + 1, "RunnableAssign<agent_scratchpad>", "AGENT", number, "{}"),
            _oi(number + 2, "RunnableParallel<agent_scratchpad>", "AGENT", number + 1, "{}"),
            _oi(number + 3, "ToolsAgentOutputParser", "AGENT", number, output)]


def _kinds(trajectory: Trajectory, *numbers: int) -> list[NodeKind]:
    return [get_node(trajectory, node_id(number)).kind for number in numbers]


def test_the_run_holding_the_agents_steps_is_the_agent_and_runnables_in_a_step_are_steps() -> None:
    decided = json.dumps([_action("lookup_order", "call_1")])
    spans = [_oi(1, "support", "CHAIN"), *_oi_step(2, 1, decided),
             _oi(6, "lookup_order", "TOOL", 1, "shipped", **{"tool.name": "lookup_order"}), *_oi_step(7, 1, FINISH)]
    trajectory = map_spans(spans, scope=OI_SCOPE)
    agent = get_node(trajectory, node_id(1))
    assert agent.kind is NodeKind.AGENT_INVOCATION and agent.agent_name == "support"
    assert set(_kinds(trajectory, 2, 3, 4, 5, 7, 8, 9, 10)) == {NodeKind.WORKFLOW_STEP}
    assert sum(node.kind is NodeKind.AGENT_INVOCATION for node in trajectory.nodes) == 1


def test_a_step_that_raised_still_holds_its_runnables() -> None:
    decided = json.dumps([_action("lookup_order", "call_1")])
    failed = [_oi(6, "RunnableSequence", "CHAIN", 1, error="InternalServerError"),
              _oi(7, "RunnableAssign<agent_scratchpad>", "AGENT", 6, "{}")]
    trajectory = map_spans([_oi(1, "support_agent", "AGENT"), *_oi_step(2, 1, decided), *failed], scope=OI_SCOPE)
    assert _kinds(trajectory, 1, 7) == [NodeKind.AGENT_INVOCATION, NodeKind.WORKFLOW_STEP]


def test_without_a_decision_nothing_is_read_as_a_step() -> None:
    # Outputs that are no agent step (a chain's plain dict) leave the instrumentation's kinds as they are.
    spans = [_oi(1, "support", "CHAIN"), _oi(2, "RunnableSequence", "CHAIN", 1, json.dumps({"type": "Answer"})),
             _oi(3, "RunnableAssign<agent_scratchpad>", "AGENT", 2, "{}")]
    trajectory = map_spans(spans, scope=OI_SCOPE)
    assert _kinds(trajectory, 1, 3) == [NodeKind.WORKFLOW_STEP, NodeKind.AGENT_INVOCATION]


def _oi_llm(number: int, parent: int, call_id: str, tool: str) -> Span:
    prefix = "llm.output_messages.0.message.tool_calls.0.tool_call."
    return _oi(number, "ChatOpenAI", "LLM", parent, **{
        "llm.model_name": "gpt-4o-mini", "llm.output_messages.0.message.role": "assistant",
        prefix + "id": call_id, prefix + "function.name": tool,
        prefix + "function.arguments": json.dumps({"order_id": "A-1001"}),
        "llm.tools.0.tool.json_schema": json.dumps({"type": "function", "function": {"name": "lookup_order"}})})


def test_the_invalid_tool_run_is_the_rejected_execution_of_the_call_its_agent_decided() -> None:
    decided = json.dumps([_action("fetch_invoice", "call_1")])
    invalid = _oi(7, "invalid_tool", "TOOL", 1, "fetch_invoice is not a valid tool, try one of [lookup_order].", **{
        "tool.name": "invalid_tool", "input.mime_type": "application/json",
        "input.value": json.dumps({"requested_tool_name": "fetch_invoice", "available_tool_names": ["lookup_order"]})})
    spans = [_oi(1, "support_agent", "AGENT"), _oi(2, "RunnableSequence", "CHAIN", 1, decided),
             _oi_llm(3, 2, "call_1", "fetch_invoice"), invalid]
    trajectory = map_spans(spans, scope=OI_SCOPE)
    execution = get_node(trajectory, node_id(7))
    assert (execution.tool_name, execution.tool_call_id) == ("fetch_invoice", "call_1")
    assert has_edge(trajectory, node_id(7), EdgeType.CAUSED_BY, f"{node_id(3)}#call:call_1")


def test_a_tool_error_handed_to_the_model_as_the_observation_fails_the_run() -> None:
    def tool(number: int, output: str) -> Span:
        return _oi(number, "lookup_order", "TOOL", 1, output, **{"tool.name": "lookup_order"})

    spans = [_oi(1, "support_agent", "AGENT"), tool(2, "Error: order 'A-10O1' not found"), tool(3, "order shipped")]
    trajectory = map_spans(spans, scope=OI_SCOPE)
    failed, ok = get_node(trajectory, node_id(2)), get_node(trajectory, node_id(3))
    assert (failed.status, ok.status) == (NodeStatus.FAILED, NodeStatus.COMMITTED)
    assert failed.error_message == "Error: order 'A-10O1' not found"
    # Another instrumentation's tool span that returned the same text is left as it ended (the rule is LangChain's).
    other = map_spans([_oi(1, "support_agent", "AGENT"), tool(2, "Error: order 'A-10O1' not found")])
    assert get_node(other, node_id(2)).status is NodeStatus.COMMITTED


def _tl(number: int, name: str, kind: str, parent: int | None = None, output: object = None,
        extra: dict[str, object] | None = None) -> Span:
    operation = {"workflow": "invoke_agent", "task": "execute_task", "tool": "execute_tool"}[kind]
    attrs: dict[str, object] = {"traceloop.span.kind": kind, "gen_ai.operation.name": operation,
                                "gen_ai.provider.name": "langchain", **(extra or {})}
    if output is not None:
        attrs["traceloop.entity.output"] = json.dumps(output)
    return span(number, name, parent=parent, attrs=attrs)


def _lc_action(tool: str, call_id: str) -> dict[str, object]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "agent", "ToolAgentAction"],
            "kwargs": {"tool": tool, "tool_input": {}, "log": "", "tool_call_id": call_id}}


def test_openllmetry_executor_runs_and_an_agent_run_by_a_tool() -> None:
    finish = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "agent", "AgentFinish"],
              "kwargs": {"return_values": {"output": "Done."}, "log": "Done."}}
    spans = [
        _tl(1, "triage_agent.workflow", "workflow", extra={"gen_ai.agent.name": "triage_agent"}),
        _tl(2, "execute_task RunnableSequence", "task", 1, {"outputs": [_lc_action("transfer_to_billing_agent", "c1")]}),
        _tl(3, "execute_task ToolsAgentOutputParser", "task", 2, {"outputs": [_lc_action("transfer_to_billing_agent", "c1")]}),
        _tl(4, "execute_tool transfer_to_billing_agent", "tool", 1, {"output": "Refund opened."},
            extra={"gen_ai.tool.name": "transfer_to_billing_agent"}),
        _tl(5, "execute_task billing_agent", "task", 4),
        _tl(6, "execute_task RunnableSequence", "task", 5, {"outputs": finish}),
    ]
    trajectory = map_spans(spans, scope=TL_SCOPE)
    triage, billing = get_node(trajectory, node_id(1)), get_node(trajectory, node_id(5))
    assert (triage.kind, triage.agent_name) == (NodeKind.AGENT_INVOCATION, "triage_agent")
    assert (billing.kind, billing.agent_name) == (NodeKind.AGENT_INVOCATION, "billing_agent")
    assert _kinds(trajectory, 2, 3, 4, 6) == [NodeKind.WORKFLOW_STEP, NodeKind.WORKFLOW_STEP, NodeKind.HANDOFF,
                                             NodeKind.WORKFLOW_STEP]


def test_openllmetry_tool_error_in_the_entity_output() -> None:
    spans = [_tl(1, "support_agent.workflow", "workflow"),
             _tl(2, "execute_tool lookup_order", "tool", 1, {"output": "Error: order 'A-10O1' not found", "kwargs": {}},
                 extra={"gen_ai.tool.name": "lookup_order"})]
    trajectory = map_spans(spans, scope=TL_SCOPE)
    assert get_node(trajectory, node_id(2)).status is NodeStatus.FAILED
