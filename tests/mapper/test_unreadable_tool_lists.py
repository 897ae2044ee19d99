"""A recorded list of offered tools none of whose entries the reader can name is a shape not read, not a declaration
that nothing was offered: the declared set stays unknown (``None``) and ``hallucinated_tool`` has nothing to judge the
calls by (``indeterminate``), where an empty declared set would call every tool run undeclared."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.readers.genai import read_tool_definitions
from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from semconv.trajectory import FindingStatus
from tests.detectors.support import run
from tests.support.spans import get_node, map_spans, node_id, span

UNNAMED = [{"schema": {"type": "object", "properties": {"city": {"type": "string"}}}}, 7]
"""Entries of a shape no reader names a tool from (a schema without a name, a number)."""


def test_a_list_of_unnamed_entries_declares_nothing_known() -> None:
    assert read_tool_definitions(UNNAMED) == (None, {})


def test_an_empty_list_still_declares_no_tools() -> None:
    assert read_tool_definitions([]) == ((), {})


def test_one_named_entry_among_unnamed_ones_is_read() -> None:
    names, _ = read_tool_definitions([{"type": "web_search"}, {"name": "get_weather"}])
    assert names == ("get_weather",)


def _genai_run(definitions: object) -> list[Span]:
    """An agent run listing its tools, a chat call proposing get_weather, the tool's run."""
    return [
        span(1, "invoke_agent support_agent", attrs={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent",
            "gen_ai.tool.definitions": json.dumps(definitions)}),
        span(2, "chat gpt-4o-mini", parent=1, attrs={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]}])}),
        span(3, "execute_tool get_weather", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1"}),
    ]


def test_a_run_whose_tool_list_is_not_read_raises_no_hallucinated_tool() -> None:
    trajectory = map_spans(_genai_run(UNNAMED))
    assert get_node(trajectory, node_id(1)).tool_definitions is None
    statuses = {f.status for f in run(HallucinatedToolDetector(), trajectory)}
    assert FindingStatus.FAIL not in statuses


def test_a_run_whose_tool_list_is_read_still_judges_its_calls() -> None:
    trajectory = map_spans(_genai_run([{"name": "lookup_order"}]))
    failed = [f for f in run(HallucinatedToolDetector(), trajectory) if f.status is FindingStatus.FAIL]
    assert failed and "get_weather" in failed[0].evidence


def _openinference_call(schemas: list[str]) -> list[Span]:
    attrs: dict[str, object] = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
                                "llm.output_messages.0.message.role": "assistant"}
    for index, schema in enumerate(schemas):
        attrs[f"llm.tools.{index}.tool.json_schema"] = schema
    return [span(1, "ChatCompletion", attrs=attrs)]


def test_openinference_schemas_naming_no_tool_leave_the_offered_tools_unknown() -> None:
    unread = map_spans(_openinference_call([json.dumps({"type": "object"}), "not json"]))
    assert get_node(unread, node_id(1)).tool_definitions is None
    read = map_spans(_openinference_call([json.dumps({"type": "function", "function": {"name": "get_weather"}})]))
    assert get_node(read, node_id(1)).tool_definitions == ("get_weather",)
