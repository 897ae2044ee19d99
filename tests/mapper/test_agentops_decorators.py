"""AgentOps' SDK decorators (``agentops`` 0.4.21: :mod:`otel_mapper.mapping.readers.agentops_decorators`): a user's
workflow, agent and tool functions under ``@agentops.workflow`` / ``@agentops.agent`` / ``@agentops.tool``, spans
named ``<name>.<kind>`` that name their unit only in ``operation.name`` and record the call as
``agentops.<kind>.input`` (``{"args": [...], "kwargs": {...}}``) and the return value as ``agentops.<kind>.output``,
beside its OpenAI client spans, whose answers' tool calls are child spans ``tool_call.<name>``."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, map_scoped_spans, node_id, span

SESSION_SCOPE = "agentops"
CLIENT_SCOPE = "openai"
RECORD_SCOPE = "agentops.instrumentation.providers.openai.wrappers.chat"


def _decorated(number: int, parent: int, name: str, kind: str, **attrs: Any) -> Span:
    values = {"agentops.span.kind": kind, "operation.name": name, **attrs}
    return span(number, f"{name}.{kind}", parent=parent, attrs=values)


def _tool(number: int, parent: int, *, call: dict[str, Any], output: str | None = "shipped") -> Span:
    attrs: dict[str, Any] = {"agentops.tool.input": json.dumps(call)}
    if output is not None:
        attrs["agentops.tool.output"] = output
    return _decorated(number, parent, "lookup_order", "tool", **attrs)


def _run(call: dict[str, Any] | None = None, *, output: str | None = "shipped") -> list[tuple[str, list[Span]]]:
    """Session 1, workflow 2, agent 3; the client's span 4 proposing call_1 (its record 5), the tool 6, the client's
    span 7 whose input carries call_1's result."""
    call = call if call is not None else {"args": [], "kwargs": {"order_id": "A-1"}}
    decorated = [
        span(1, "default.session", attrs={"agentops.span.kind": "session", "operation.name": "default"}),
        _decorated(2, 1, "support_workflow", "workflow", **{"agentops.workflow.input": '{"args": [], "kwargs": {}}'}),
        _decorated(3, 2, "support_agent", "agent", **{"agentops.agent.input": '{"args": [], "kwargs": {}}'}),
        _tool(6, 3, call=call, output=output),
    ]
    common = {"gen_ai.request.type": "chat", "gen_ai.system": "OpenAI", "gen_ai.request.model": "gpt-4o-mini",
              "gen_ai.request.functions.0.name": "lookup_order"}
    clients = [
        span(4, "openai.chat.completion", parent=3, attrs={
            **common, "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Where is A-1?",
            "gen_ai.completion.0.finish_reason": "tool_calls", "gen_ai.completion.0.role": "assistant"}),
        span(7, "openai.chat.completion", parent=3, attrs={
            **common, "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Where is A-1?",
            "gen_ai.prompt.1.role": "assistant", "gen_ai.prompt.1.tool_calls.0.id": "call_1",
            "gen_ai.prompt.1.tool_calls.0.name": "lookup_order",
            "gen_ai.prompt.1.tool_calls.0.arguments": '{"order_id": "A-1"}',
            "gen_ai.prompt.2.role": "tool", "gen_ai.prompt.2.tool_call_id": "call_1", "gen_ai.prompt.2.content": "shipped",
            "gen_ai.completion.0.content": "It shipped."}),
    ]
    record = span(5, "tool_call.lookup_order", parent=4, attrs={
        "tool.name": "lookup_order", "tool.parameters": '{"order_id": "A-1"}', "tool.call.id": "call_1",
        "tool.call.type": "function"})
    return [(SESSION_SCOPE, decorated), (CLIENT_SCOPE, clients), (RECORD_SCOPE, [record])]


def test_a_decorated_tool_is_named_by_its_unit_and_joins_its_call_by_keyword_arguments() -> None:
    trajectory = map_scoped_spans(_run())
    run = get_node(trajectory, node_id(6))
    assert run.kind is NodeKind.TOOL_EXECUTION
    assert (run.tool_name, run.arguments_visible) == ("lookup_order", True)
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, node_id(4, "call:call_1"))
    assert has_edge(trajectory, node_id(7), EdgeType.DEPENDS_ON, node_id(6))


def test_a_decorated_tools_output_is_its_result() -> None:
    assert get_node(map_scoped_spans(_run()), node_id(6)).result_visible
    assert not get_node(map_scoped_spans(_run(output=None)), node_id(6)).result_visible


def test_positional_values_have_no_names_so_no_arguments_are_read() -> None:
    """Guard: a call with positional values records no arguments (they cannot be matched to the proposal's names)."""
    trajectory = map_scoped_spans(_run({"args": ["A-1"], "kwargs": {}}))
    run = get_node(trajectory, node_id(6))
    assert (run.tool_name, run.arguments_visible, run.arguments_digest) == ("lookup_order", False, None)


def test_a_decorated_agent_is_named_by_its_unit() -> None:
    trajectory = map_scoped_spans(_run())
    agent = get_node(trajectory, node_id(3))
    assert (agent.kind, agent.agent_name) == (NodeKind.AGENT_INVOCATION, "support_agent")
    assert get_node(trajectory, node_id(2)).kind is NodeKind.WORKFLOW_STEP
