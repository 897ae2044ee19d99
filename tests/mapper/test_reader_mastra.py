"""Mastra's spans under its OpenTelemetry exporter (:mod:`otel_mapper.mapping.readers.mastra`,
:mod:`otel_mapper.mapping.error_finishes`, bare tool names in ``gen_ai.tool.definitions``). Shapes as
``@mastra/otel-exporter`` 1.4 writes ``@mastra/core`` 1.71's spans (``corpus/NOTES-frameworks-ao.md``): the run
(``invoke_agent``), the loop (``model_generation``), one ``agent_step`` per turn with the turn's ``chat`` call and the
tools it ran below it, ``model_chunk`` spans under a call; the call's tool calls only in the step's output."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.readers.genai import read_tool_definitions
from otel_mapper.model import Trajectory
from processor.detectors.failures import FailureClass, classify
from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.detectors.support import run
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

SCOPE = "@mastra/otel-exporter"


def _attrs(span_type: str, operation: str, **extra: Any) -> dict[str, Any]:
    return {"gen_ai.operation.name": operation, "mastra.span.type": span_type, **extra}


def _step(number: int, parent: int, index: int, calls: list[dict[str, Any]], text: str = "") -> Span:
    return span(number, "agent_step support_agent", parent=parent, attrs=_attrs(
        "model_step", "agent_step", **{"mastra.model_step.step_index": index,
                                       "mastra.model_step.output": json.dumps({"text": text, "toolCalls": calls})}))


def _chat(number: int, parent: int, text: str = "", finish: str = "tool-calls") -> Span:
    return span(number, "chat gpt-4o-mini", parent=parent, attrs=_attrs(
        "model_inference", "chat", **{
            "gen_ai.request.model": "gpt-4o-mini", "gen_ai.provider.name": "openai.chat",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}]),
            "gen_ai.response.finish_reasons": json.dumps([finish]),
            "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}))


def _tool(number: int, parent: int, call_id: str, name: str = "get_weather") -> Span:
    return span(number, f"execute_tool {name}", parent=parent, attrs=_attrs(
        "tool_call", "execute_tool", **{"gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
                                        "gen_ai.tool.call.arguments": '{"city":"Paris"}',
                                        "gen_ai.tool.call.result": "Paris: Sunny"}))


def _run_span(tools: list[str], error: str | None = None) -> Span:
    extra = {"error.type": "unknown", "error.message": error} if error else {}
    return span(1, "invoke_agent support_agent", attrs=_attrs(
        "agent_run", "invoke_agent", **{"gen_ai.agent.name": "support_agent",
                                        "gen_ai.tool.definitions": json.dumps(tools), **extra}), error=error)


def _map(spans: list[Span]) -> Trajectory:
    return map_spans(spans, scope=SCOPE)


def _plain_tool_use(calls: tuple[tuple[str, str], ...] = (("call_1", "get_weather"),)) -> list[Span]:
    """Run 1, loop 2; step 3 (call 4, chunk 5, tool 6), step 7 (call 8) answers; a client tool call 9 under the run."""
    proposed = [{"toolCallId": cid, "toolName": name, "args": {"city": "Paris"}} for cid, name in calls]
    return [
        _run_span(["get_weather", "search_docs"]),
        span(2, "model_generation gpt-4o-mini", parent=1, attrs=_attrs("model_generation", "model_generation")),
        _step(3, 2, 0, proposed),
        _chat(4, 3),
        span(5, "model_chunk support_agent", parent=4, attrs=_attrs(
            "model_chunk", "model_chunk", **{"mastra.model_chunk.output": json.dumps(proposed[0])})),
        _tool(6, 3, calls[0][0], calls[0][1]),
        _step(7, 2, 1, [], text="Sunny."),
        _chat(8, 7, text="Sunny.", finish="stop"),
        span(9, "mapping agent-billing_agent", parent=2, attrs=_attrs("mapping", "mapping")),
        span(10, "client_tool_call fetch_invoice", parent=1, attrs=_attrs("client_tool_call", "client_tool_call")),
    ]


def test_the_loop_chunks_mappings_and_client_tool_calls_are_no_steps() -> None:
    trajectory = _map(_plain_tool_use())
    for number in (2, 5, 9, 10):
        assert get_node(trajectory, node_id(number)).kind is NodeKind.OTHER
    assert kinds(trajectory).get("workflow_step", 0) == 0
    assert kinds(trajectory).get("tool_execution", 0) == 1


def test_a_step_is_a_layer_of_its_call_and_gives_it_the_tool_calls() -> None:
    trajectory = _map(_plain_tool_use())
    assert kinds(trajectory)["model_call"] == 2  # the two chat spans; each step folded into its call
    proposal = get_node(trajectory, f"{node_id(4)}#call:call_1")
    assert proposal.kind is NodeKind.TOOL_PROPOSAL and proposal.tool_name == "get_weather"
    assert has_edge(trajectory, proposal.id, EdgeType.CAUSED_BY, node_id(4))
    assert has_edge(trajectory, node_id(6), EdgeType.CAUSED_BY, proposal.id)


def test_a_call_of_a_tool_the_agent_does_not_have_is_found() -> None:
    spans = [s for s in _plain_tool_use((("call_1", "fetch_invoice"),)) if s.name != "execute_tool fetch_invoice"]
    findings = [f for f in run(HallucinatedToolDetector(), _map(spans)) if f.status.value == "fail"]
    assert [f.node_id for f in findings] == [f"{node_id(4)}#call:call_1"]  # proposed by the chat call, never run


def test_bare_names_declare_tools() -> None:
    names, digests = read_tool_definitions(["get_weather", "", {"name": "search_docs"}, 3])
    assert names == ("get_weather", "search_docs") and set(digests) == {"search_docs"}
    trajectory = _map(_plain_tool_use())
    assert not [f for f in run(HallucinatedToolDetector(), trajectory) if f.status.value == "fail"]


def _failed_second_call(error: str) -> list[Span]:
    """The second request failed: its chat span 8 ends OK with finish reason ``error``; the run 1 carries the error."""
    return [
        _run_span(["get_weather"], error=error),
        span(2, "model_generation gpt-4o-mini", parent=1, attrs=_attrs("model_generation", "model_generation")),
        _step(3, 2, 0, [{"toolCallId": "call_1", "toolName": "get_weather", "args": {"city": "Paris"}}]),
        _chat(4, 3),
        _tool(6, 3, "call_1"),
        _step(7, 2, 1, []),
        _chat(8, 7, finish="error"),
    ]


def test_an_error_finish_is_a_failed_call_with_the_error_of_the_run_it_ended() -> None:
    trajectory = _map(_failed_second_call("The operation was aborted due to timeout"))
    call = get_node(trajectory, node_id(8))
    assert call.status is NodeStatus.FAILED
    assert call.error_message == "The operation was aborted due to timeout"
    assert classify(call) is FailureClass.TIMEOUT
    assert get_node(trajectory, node_id(4)).status is not NodeStatus.FAILED
    server = get_node(_map(_failed_second_call("The server had an error")), node_id(8))
    assert classify(server) is FailureClass.OTHER


def test_an_error_finish_under_no_failed_span_keeps_no_error() -> None:
    spans = _failed_second_call("x")
    spans[0] = _run_span(["get_weather"])
    call = get_node(_map(spans), node_id(8))
    assert call.status is NodeStatus.FAILED and call.error_message is None
