"""Genkit's own spans, shaped as ``genkit`` 1.42 writes them (``corpus/NOTES-frameworks-cg.md``): tracer
``genkit-tracer``, a span per action (``genkit:type`` ``action``, the action type in ``genkit:metadata:subtype``) and
per turn of ``generate`` (``util``), content as JSON text in ``genkit:input`` / ``genkit:output``; a tool span names
no call id."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

SCOPE = "genkit-tracer"
MODEL = "openai/gpt-4o-mini"
SYSTEM = {"role": "system", "content": [{"text": "You are a support agent."}]}
USER = {"role": "user", "content": [{"text": "Weather in Paris?"}]}
ASKED = {"role": "model", "content": [{"toolRequest": {"name": "get_weather", "ref": "c1", "input": {"city": "Paris"}}}]}
ANSWERED = {"role": "tool", "content": [{"toolResponse": {"name": "get_weather", "ref": "c1", "output": "Paris: sunny"}}]}
TOOLS = [{"name": "get_weather", "description": "d", "inputSchema": {"type": "object"}, "key": "/tool/get_weather"}]


def _action(number: int, subtype: str, name: str, *, parent: int | None = None, error: str | None = None,
            **content: object) -> Span:
    attrs: dict[str, object] = {"genkit:type": "action", "genkit:metadata:subtype": subtype, "genkit:name": name,
                                "genkit:state": "error" if error else "success"}
    attrs.update({f"genkit:{key}": value if isinstance(value, str) else json.dumps(value)
                  for key, value in content.items()})
    events = [("exception", {"exception.type": "429", "exception.message": error})] if error else []
    return span(number, name, parent=parent, attrs=attrs, error=error, events=events)


def _turn(number: int, parent: int) -> Span:
    return span(number, "generate", parent=parent, attrs={"genkit:type": "util", "genkit:name": "generate"})


def _model(number: int, parent: int, messages: list[dict[str, object]], answer: dict[str, object] | None,
           error: str | None = None) -> Span:
    output = None if answer is None else {
        "finishReason": "stop", "message": answer, "usage": {"inputTokens": 120, "outputTokens": 30, "totalTokens": 150}}
    content: dict[str, object] = {"input": {"messages": messages, "tools": TOOLS, "config": {}}}
    if output is not None:
        content["output"] = output
    return _action(number, "model", MODEL, parent=parent, error=error, **content)


def test_genkit_spans_are_read_as_their_kinds() -> None:
    trajectory = map_spans([
        _action(1, "flow", "support_agent", input='"Weather in Paris?"'),
        _turn(2, 1),
        _model(3, 2, [SYSTEM, USER], ASKED),
        _action(4, "tool", "get_weather", parent=2, input={"city": "Paris"}, output="Paris: sunny"),
        span(5, "render", parent=1, attrs={"genkit:type": "promptTemplate"}),
        _action(6, "retriever", "devLocalVectorstore/docs", parent=1),
        _action(7, "embedder", "openai/text-embedding-3-small", parent=1),
    ], scope=SCOPE)

    assert kinds(trajectory) == {"agent_invocation": 1, "workflow_step": 1, "model_call": 1, "tool_execution": 1,
                                 "tool_proposal": 1, "other": 2, "retrieval": 1}
    assert get_node(trajectory, node_id(1)).agent_name == "support_agent"
    model = get_node(trajectory, node_id(3))
    assert (model.model, model.provider) == ("gpt-4o-mini", "openai")
    assert model.usage is not None and (model.usage.input_tokens, model.usage.output_tokens) == (120, 30)
    assert get_node(trajectory, node_id(4)).tool_name == "get_weather"


def test_a_tool_request_is_proposed_by_its_ref_run_by_the_tool_span_and_its_response_consumed() -> None:
    trajectory = map_spans([
        _action(1, "flow", "support_agent"),
        _turn(2, 1),
        _model(3, 2, [SYSTEM, USER], ASKED),
        _action(4, "tool", "get_weather", parent=2, input={"city": "Paris"}, output="Paris: sunny"),
        _turn(5, 2),
        _model(6, 5, [SYSTEM, USER, ASKED, ANSWERED], {"role": "model", "content": [{"text": "Sunny."}]}),
    ], scope=SCOPE)

    proposal = node_id(3, "call:c1")
    assert get_node(trajectory, proposal).kind is NodeKind.TOOL_PROPOSAL
    assert has_edge(trajectory, proposal, EdgeType.CAUSED_BY, node_id(3))
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, proposal)
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))
    assert get_node(trajectory, node_id(3)).tool_definitions == ("get_weather",)


def test_a_request_for_a_tool_not_offered_is_a_proposal_of_an_unknown_tool() -> None:
    asked = {"role": "model", "content": [{"toolRequest": {"name": "fetch_invoice", "ref": "c9", "input": {}}}]}
    trajectory = map_spans([
        _action(1, "flow", "support_agent", error="NOT_FOUND: Tool fetch_invoice not found"),
        _turn(2, 1),
        _model(3, 2, [SYSTEM, USER], asked),
    ], scope=SCOPE)

    proposal = get_node(trajectory, node_id(3, "call:c9"))
    assert proposal.tool_name == "fetch_invoice"
    assert "fetch_invoice" not in (get_node(trajectory, node_id(3)).tool_definitions or ())


def test_failed_actions_fail_with_genkit_s_error() -> None:
    trajectory = map_spans([
        _action(1, "flow", "support_agent", error="RESOURCE_EXHAUSTED: 429 Rate limit reached"),
        _turn(2, 1),
        _model(3, 2, [SYSTEM, USER], None, error="RESOURCE_EXHAUSTED: 429 Rate limit reached"),
        _action(4, "tool", "lookup_order", parent=2, input={"order_id": "A-1"}, error="order 'A-1' not found"),
    ], scope=SCOPE)

    model, tool = get_node(trajectory, node_id(3)), get_node(trajectory, node_id(4))
    assert model.kind is NodeKind.MODEL_CALL and model.status is NodeStatus.FAILED
    assert "RESOURCE_EXHAUSTED" in (model.error_message or "")
    assert tool.kind is NodeKind.TOOL_EXECUTION and tool.status is NodeStatus.FAILED


def test_a_multipart_tool_action_with_a_structured_output_is_a_tool_execution() -> None:
    result = {"order_id": "A-1", "status": "shipped"}
    answered = {"role": "tool", "content": [{"toolResponse": {"name": "lookup_order", "ref": "c2", "output": result}}]}
    asked = {"role": "model", "content": [{"toolRequest": {"name": "lookup_order", "ref": "c2",
                                                            "input": {"order_id": "A-1"}}}]}
    trajectory = map_spans([
        _action(1, "flow", "support_agent"),
        _turn(2, 1),
        _model(3, 2, [SYSTEM, USER], asked),
        _action(4, "tool.v2", "lookup_order", parent=2, input={"order_id": "A-1"}, output={"output": result}),
        _turn(5, 2),
        _model(6, 5, [SYSTEM, USER, asked, answered], {"role": "model", "content": [{"text": "Shipped."}]}),
    ], scope=SCOPE)

    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(3, "call:c2"))
    assert has_edge(trajectory, node_id(6), EdgeType.DEPENDS_ON, node_id(4))
