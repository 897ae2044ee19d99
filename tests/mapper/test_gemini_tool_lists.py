"""A recorded tool list of Gemini ``Tool`` objects (``[{"function_declarations": [...]}]``, as OpenLLMetry's Google
Gen AI instrumentation writes a request's ``config.tools`` to ``gen_ai.tool.definitions``; corpus/NOTES-frameworks-aw.md)
declares each of their functions, so ``hallucinated_tool`` judges the calls by them."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.readers.genai import read_tool_definitions
from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from semconv.trajectory import FindingStatus
from tests.detectors.support import run
from tests.support.spans import get_node, map_spans, node_id, span

GEMINI_TOOLS = [{"function_declarations": [
    {"name": "lookup_order", "description": "Look up an order.", "parameters": {"type": "OBJECT"}},
    {"name": "search_docs", "description": "Search the knowledge base."}]}, {"google_search": {}}]


def test_a_gemini_tool_declares_each_of_its_functions() -> None:
    names, digests = read_tool_definitions(GEMINI_TOOLS)
    assert names == ("lookup_order", "search_docs")
    assert set(digests) == {"lookup_order", "search_docs"}


def test_the_wire_spelling_is_read_too() -> None:
    names, _ = read_tool_definitions([{"functionDeclarations": [{"name": "get_weather"}]}])
    assert names == ("get_weather",)


def test_a_gemini_tool_declaring_no_function_leaves_the_offered_tools_unknown() -> None:
    assert read_tool_definitions([{"google_search": {}}, {"function_declarations": []}]) == (None, {})


def _model_call(definitions: object) -> list[Span]:
    """A model call offering Gemini tools and proposing a tool none of them declares, and that tool's run."""
    return [
        span(1, "support_agent.agent", attrs={"gen_ai.agent.name": "support_agent"}),
        span(2, "generate_content gemini-2.5-flash", parent=1, attrs={
            "gen_ai.operation.name": "generate_content", "gen_ai.request.model": "gemini-2.5-flash",
            "gen_ai.tool.definitions": json.dumps(definitions),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "tool_call", "id": "call_1", "name": "refund_order", "arguments": {"order_id": "A-1"}}]}])}),
        span(3, "execute_tool refund_order", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "refund_order",
            "gen_ai.tool.call.id": "call_1"}),
    ]


def test_a_call_to_a_function_no_gemini_tool_declares_is_judged() -> None:
    trajectory = map_spans(_model_call(GEMINI_TOOLS))
    assert get_node(trajectory, node_id(2)).tool_definitions == ("lookup_order", "search_docs")
    failed = [f for f in run(HallucinatedToolDetector(), trajectory) if f.status is FindingStatus.FAIL]
    assert failed and "refund_order" in failed[0].evidence
