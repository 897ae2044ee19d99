"""Runtime rejections of unknown tools, in each framework's own wording, and where a span may carry them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_mapper.mapping import tool_names
from otel_mapper.mapping.tool_names import function_style, unknown_tool_named
from tests.support.spans import get_node, map_spans, node_id, span


@pytest.mark.parametrize(
    "text",
    [
        "Tool not found: {'tool_name': 'fetch_invoice'}",  # OpenAI Agents SDK SpanError as the instrumentations render it
        "Tool fetch_invoice not found in agent support_agent",  # Agents SDK ModelBehaviorError
        "Unknown tool: fetch_invoice",  # Strands Agents
        "Unknown tool fetch_invoice, should be one of: get_weather, final_answer.",  # smolagents
        "Error: fetch_invoice is not a valid tool, try one of [get_weather].",  # LangGraph ToolNode
        "Unknown tool name: 'fetch_invoice'. Available tools: 'get_weather'",  # pydantic-ai
        "Tool 'fetch_invoice' not found. Available tools: get_weather",  # Google ADK
        'Error: Requested function "fetch_invoice" not found.',  # Microsoft Agent Framework
        "Error: Function fetch_invoice not found.",  # AG2 ConversableAgent.execute_function
        "ERROR: unknown tool 'fetch_invoice'; available tools are listed in the request.",
    ],
)
def test_rejections_name_the_tool(text: str) -> None:
    assert unknown_tool_named(text) == "fetch_invoice"


def test_crewai_names_tools_with_spaces() -> None:
    assert unknown_tool_named("You tried to use the tool fetch invoice, but it doesn't exist. You must use") == "fetch invoice"


@pytest.mark.parametrize("text", ["file not found", "Sunny, 18C", "The tool was not found in cache", "Tool is not available right now",
                                  "The function fetch_invoice not found in the cache"])
def test_other_texts_are_not_rejections(text: str) -> None:
    assert unknown_tool_named(text) is None


def test_function_style() -> None:
    assert function_style("Delegate work to coworker") == "delegate_work_to_coworker"
    assert function_style("  Ask question--to coworker ") == "ask_question_to_coworker"


def test_a_tool_span_only_counts_a_rejection_of_its_own_tool() -> None:
    trajectory = map_spans([
        span(1, "execute_tool a", attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a",
                                        "gen_ai.tool.call.result": "Unknown tool: b"}),
        span(2, "execute_tool b", attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b",
                                        "gen_ai.tool.call.result": "Unknown tool: b"}),
    ])
    assert get_node(trajectory, node_id(1)).unknown_tools == ()
    assert get_node(trajectory, node_id(2)).unknown_tools == ("b",)


def test_a_model_output_mentioning_an_unknown_tool_is_not_the_runtime_rejecting_it() -> None:
    trajectory = map_spans([span(1, "ChatCompletion", attrs={"openinference.span.kind": "LLM", "output.value": "Unknown tool: b"})])
    assert get_node(trajectory, node_id(1)).unknown_tools == ()


def test_smolagents_step_recovery_event_carries_the_rejection() -> None:
    trajectory = map_spans([span(1, "Step 1", attrs={"openinference.span.kind": "CHAIN"}, events=[
        ("agent.step_recovery", {"message": "Unknown tool fetch_invoice, should be one of: get_weather.", "severity": "expected"})])])
    assert get_node(trajectory, node_id(1)).unknown_tools == ("fetch_invoice",)



@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from([*tool_names._MARKERS, "Tool Not Found", "UNKNOWN TOOL", "Does Not", "exist",
                                 "tool", " ", "x", "\u212a", "\u0130", "\u017f"]), max_size=5).map("".join))
def test_the_marker_check_answers_as_the_marker_regex(text: str) -> None:
    assert tool_names._has_marker(text) == (tool_names._MARKER_SEARCH.search(text) is not None)
