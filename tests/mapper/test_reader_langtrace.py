"""Langtrace's spans (:mod:`otel_mapper.mapping.readers.langtrace`, :mod:`otel_mapper.mapping.wrapped_model_calls`):
method wrappers of a LangChain chat model around the OpenAI client's request span, as ``langtrace-python-sdk`` 3.8.21
writes them (attribute values as its wrappers serialise them: JSON text)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import envelopes, get_node, has_edge, kinds, map_envelopes, map_spans, node_id, span

CORE = {
    "langtrace.sdk.name": "langtrace-python-sdk",
    "langtrace.service.type": "framework",
    "langtrace.service.name": "Langchain Core",
}
CLIENT = {
    "langtrace.sdk.name": "langtrace-python-sdk",
    "langtrace.service.type": "llm",
    "langtrace.service.name": "OpenAI",
    "gen_ai.operation.name": "chat",
    "gen_ai.system": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
}
TOOLS = [{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]
AI_MESSAGE = {
    "type": "ai",
    "id": "lc_run--1-0",
    "response_metadata": {"finish_reason": "tool_calls"},
    "tool_calls": [{"name": "lookup_order", "args": {"order_id": "A-1"}, "id": "call_1", "type": "tool_call"}],
}
LLM_RESULT = {
    "generations": [[{"generation_info": {"finish_reason": "tool_calls"}, "type": "ChatGeneration"}]],
    "type": "LLMResult",
}
ROOT_SCOPE = "langtrace_python_sdk.utils.with_root_span"


def _method(
    number: int, name: str, parent: int | None, output: Any = None, *, error: str | None = None, **extra: Any
) -> Any:
    attrs: dict[str, Any] = {**CORE, "langchain.task.name": "chatmodel", "gen_ai.request.model": "gpt-4o-mini", **extra}
    if output is not None:
        attrs["langchain.outputs"] = json.dumps(output)
    return span(number, name, parent=parent, attrs=attrs, error=error)


def _client(number: int, parent: int, messages: list[Any], *, error: str | None = None) -> Any:
    attrs = {**CLIENT, "gen_ai.request.tools": json.dumps([json.dumps(TOOLS)])}
    return span(
        number,
        "openai.chat.completions.create",
        parent=parent,
        attrs=attrs,
        error=error,
        events=[("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(messages)})],
    )


def _model_call(first: int, parent: int, messages: list[Any], *, error: str | None = None) -> list[Any]:
    """``invoke`` -> ``generate_prompt`` -> ``generate`` (with an ``asdict`` beside the request) -> the request."""
    answer = None if error else AI_MESSAGE
    result = None if error else LLM_RESULT
    usage = {} if error else {"gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 20}
    return [
        _method(first, "BaseChatModel.invoke", parent, answer, error=error, **usage),
        _method(first + 1, "BaseChatModel.generate_prompt", first, result, error=error),
        _method(first + 2, "BaseChatModel.generate", first + 1, result, error=error),
        _method(first + 3, "BaseChatModel.asdict", first + 2, {"model_name": "gpt-4o-mini", "_type": "openai-chat"}),
        _client(first + 4, first + 2, messages, error=error),
    ]


def _sequence(number: int, parent: int | None) -> Any:
    return span(
        number,
        "RunnableSequence.invoke",
        parent=parent,
        attrs={**CORE, "langchain.task.name": "runnable", "langchain.inputs": '{"messages": "HumanMessage"}'},
    )


USER = [{"role": "system", "content": "be helpful"}, {"role": "user", "content": "where is A-1?"}]


def test_the_layers_of_one_model_call_are_one_node_the_request_s() -> None:
    trajectory = map_spans([_sequence(1, None), *_model_call(2, 1, USER)])
    assert kinds(trajectory).get("model_call") == 1
    call = get_node(trajectory, node_id(6))
    assert (call.kind, call.convention) == (NodeKind.MODEL_CALL, "langtrace")
    assert call.usage is not None and (call.usage.input_tokens, call.usage.output_tokens) == (120, 20)
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(5)).kind is NodeKind.OTHER  # asdict: a helper, no call


def test_the_answer_of_the_invoke_layer_gives_the_call_s_proposals() -> None:
    trajectory = map_spans([_sequence(1, None), *_model_call(2, 1, USER)])
    proposal = get_node(trajectory, node_id(6, "call:call_1"))
    assert (proposal.kind, proposal.tool_name) == (NodeKind.TOOL_PROPOSAL, "lookup_order")
    assert has_edge(trajectory, node_id(6, "call:call_1"), EdgeType.CAUSED_BY, node_id(6))


def test_the_request_s_prompt_event_gives_the_results_it_consumed_and_its_tools_are_declared() -> None:
    second = [
        *USER,
        [{"id": "", "type": ""}],  # Langtrace's text of an assistant message with tool calls
        {"role": "tool", "tool_call_id": "call_1", "content": "shipped"},
    ]
    trajectory = map_spans(
        [
            span(100, "LangtraceRootSpan"),
            _sequence(1, 100),
            *_model_call(2, 1, USER),
            _sequence(10, 100),
            *_model_call(11, 10, second),
        ]
    )
    consumer = get_node(trajectory, node_id(15))
    assert consumer.tool_definitions == ("lookup_order",)
    assert has_edge(trajectory, node_id(15), EdgeType.DEPENDS_ON, node_id(6, "call:call_1"))


def test_a_failed_call_failing_at_every_layer_is_one_failed_model_call() -> None:
    trajectory = map_spans([_sequence(1, None), *_model_call(2, 1, USER, error="Error code: 500")])
    failed = [node for node in trajectory.nodes if node.kind is NodeKind.MODEL_CALL]
    assert [node.id for node in failed] == [node_id(6)]
    assert failed[0].status is NodeStatus.FAILED


def test_a_model_method_with_no_request_below_it_stays_the_call() -> None:
    """A chat model whose client Langtrace does not wrap: the innermost layer that answered is the call."""
    trajectory = map_spans(
        [
            _method(1, "BaseChatModel.invoke", None, AI_MESSAGE),
            _method(2, "BaseChatModel.generate", 1, LLM_RESULT),
        ]
    )
    assert kinds(trajectory).get("model_call") == 1
    assert get_node(trajectory, node_id(2)).kind is NodeKind.MODEL_CALL


def test_the_root_span_langtrace_opens_around_a_run_is_a_workflow_step() -> None:
    root = envelopes([span(100, "LangtraceRootSpan")], scope=ROOT_SCOPE)
    rest = envelopes([_sequence(1, 100), *_model_call(2, 1, USER)], scope="langtrace_python_sdk.instrumentation")
    trajectory = map_envelopes(root + rest).trajectory
    node = get_node(trajectory, node_id(100))
    assert (node.kind, node.convention) == (NodeKind.WORKFLOW_STEP, "langtrace")
