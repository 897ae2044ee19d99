"""BeeAI Framework under OpenInference's BeeAI instrumentation, shaped as ``openinference-instrumentation-beeai``
0.1.30 writes it on beeai-framework 0.1.85 (``corpus/NOTES-frameworks-ac.md``): run spans with ``metadata.class_name``,
zero-length event spans with ``metadata.path``, tool runs' ``{"input": ..., "options": ...}`` inputs, the error's
explanation as a failed run's text output, one answer's calls merged into its first output call, and tool results as
content items that name their call id."""

from __future__ import annotations

import json

from processor.detectors.failures import FailureClass, classify
from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import get_node, has_edge, kinds, map_spans, node_id, span

SCOPE = "openinference.instrumentation.beeai"
KIND = "openinference.span.kind"
IN = "llm.input_messages"
OUT = "llm.output_messages.0.message"


def _agent(number: int) -> object:
    return span(number, "support_agent", attrs={KIND: "AGENT", "agent.name": "support_agent",
                                                "metadata.class_name": "RequirementAgent"})


def _tool(number: int, parent: int, tool: str, arguments: dict[str, object], result: str) -> object:
    return span(number, tool, parent=parent, attrs={
        KIND: "TOOL", "tool.name": tool, "metadata.class_name": "FunctionTool",
        "input.value": json.dumps({"input": arguments, "options": None}), "input.mime_type": "application/json",
        "output.value": result, "output.mime_type": "text/plain"})


def _user_turn(prefix: str) -> dict[str, object]:
    return {f"{prefix}.0.message.role": "system",
            f"{prefix}.0.message.contents.0.message_content.type": "text",
            f"{prefix}.0.message.contents.0.message_content.text": "You are a support agent.",
            f"{prefix}.1.message.role": "user",
            f"{prefix}.1.message.contents.0.message_content.type": "text",
            f"{prefix}.1.message.contents.0.message_content.text": "Weather in Paris, and order A-1001?"}


def _llm(number: int, parent: int, attrs: dict[str, object], error: str | None = None) -> object:
    return span(number, "OpenAIChatModel", parent=parent, error=error, attrs={
        KIND: "LLM", "llm.model_name": "gpt-4o-mini", "metadata.class_name": "OpenAIChatModel", **attrs})


def _call(prefix: str, index: int, call_id: str, tool: str, arguments: str) -> dict[str, object]:
    key = f"{prefix}.tool_calls.{index}.tool_call"
    return {f"{key}.id": call_id, f"{key}.function.name": tool, f"{key}.function.arguments": arguments}


def _result(prefix: str, call_id: str, text: str) -> dict[str, object]:
    return {f"{prefix}.message.role": "tool", f"{prefix}.message.contents.0.message.tool_call_id": call_id,
            f"{prefix}.message.contents.0.message_content.type": "text",
            f"{prefix}.message.contents.0.message_content.text": text}


def test_a_span_recording_one_emitter_event_is_no_node_of_its_kind() -> None:
    trajectory = map_spans([
        _agent(1),
        span(2, "final_answer", parent=1, attrs={KIND: "AGENT", "input.value": '{"delta": "Done."}',
                                                 "metadata.path": "agent.requirement.final_answer",
                                                 "metadata.trace.run_id": "r1"}),
    ], scope=SCOPE)

    assert kinds(trajectory) == {"agent_invocation": 1, "other": 1}


def test_a_tool_run_input_pair_gives_the_arguments_that_join_the_proposal() -> None:
    trajectory = map_spans([
        _agent(1),
        _llm(2, 1, {**_user_turn(IN), f"{OUT}.role": "assistant",
                    **_call(OUT, 0, "c1", "get_weather", '{"city": "Paris"}')}),
        _tool(3, 1, "get_weather", {"city": "Paris"}, "Paris: sunny"),
    ], scope=SCOPE)

    assert get_node(trajectory, node_id(3)).tool_name == "get_weather"
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call:c1"))


def test_a_failed_run_reads_its_error_explanation_as_the_message() -> None:
    explanation = ("ChatModelError(beeai_framework.backend.errors): Chat Model error\n"
                   "  Timeout(litellm.exceptions): litellm.Timeout: APITimeoutError - Request timed out.")
    trajectory = map_spans([
        _agent(1),
        _llm(2, 1, {**_user_turn(IN), "output.value": explanation, "output.mime_type": "text/plain"}, error=""),
    ], scope=SCOPE)

    node = get_node(trajectory, node_id(2))
    assert classify(node) is FailureClass.TIMEOUT


def test_merged_output_calls_leave_the_proposals_to_the_replaying_input() -> None:
    replayed = f"{IN}.2.message"
    trajectory = map_spans([
        _agent(1),
        _llm(2, 1, {**_user_turn(IN), f"{OUT}.role": "assistant",
                    **_call(OUT, 0, "c1", "lookup_order", '{"order_id": "A-1001"}{"city": "Paris"}')}),
        _tool(3, 1, "lookup_order", {"order_id": "A-1001"}, '{"status": "shipped"}'),
        _tool(4, 1, "get_weather", {"city": "Paris"}, "Paris: sunny"),
        _llm(5, 1, {**_user_turn(IN), f"{replayed}.role": "assistant",
                    **_call(replayed, 0, "c1", "lookup_order", '{"order_id": "A-1001"}'),
                    **_call(replayed, 1, "c2", "get_weather", '{"city": "Paris"}'),
                    **_result(f"{IN}.3", "c1", '{"status": "shipped"}'),
                    **_result(f"{IN}.4", "c2", "Paris: sunny"),
                    f"{OUT}.role": "assistant", f"{OUT}.contents.0.message_content.text": "Shipped; sunny."}),
    ], scope=SCOPE)

    assert get_node(trajectory, node_id(2, "call:c1")).kind is NodeKind.TOOL_PROPOSAL
    assert get_node(trajectory, node_id(2, "call:c2")).kind is NodeKind.TOOL_PROPOSAL
    assert has_edge(trajectory, node_id(4), EdgeType.CAUSED_BY, node_id(2, "call:c2"))


def test_a_content_item_naming_a_call_id_is_that_calls_result() -> None:
    trajectory = map_spans([
        _agent(1),
        _llm(2, 1, {**_user_turn(IN), f"{OUT}.role": "assistant",
                    **_call(OUT, 0, "c1", "get_weather", '{"city": "Paris"}')}),
        span(3, "get_weather", parent=1, attrs={KIND: "TOOL", "tool.name": "get_weather",
                                                "input.value": '{"city": "Paris"}', "input.mime_type": "application/json",
                                                "output.value": "Paris: sunny"}),
        _llm(4, 1, {**_user_turn(IN), f"{IN}.2.message.role": "assistant",
                    **_call(f"{IN}.2.message", 0, "c1", "get_weather", '{"city": "Paris"}'),
                    **_result(f"{IN}.3", "c1", "Paris: sunny")}),
    ])

    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))
