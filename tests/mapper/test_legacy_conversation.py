"""Indexed legacy prompts read as a conversation (OpenLLMetry's Ollama instrumentation, corpus/NOTES-frameworks-bg.md):
an answer recorded as its role alone records nothing of the answer (its proposals unknown, not none), and a later
request's replay of it gives it its calls and their results by conversation prefix, without any call id
(:mod:`otel_mapper.mapping.readers.legacy_conversation`, :mod:`otel_mapper.mapping.prefix`)."""

from __future__ import annotations

from semconv.trajectory import EdgeType, NodeKind, NodeStatus
from tests.support.spans import get_node, has_edge, map_spans, node_id, span

PROMPT = "gen_ai.prompt"
SYSTEM = "You are a support agent."
USER = "What's the weather in Paris?"


def _chat(messages: list[dict[str, str]], answer: str | None) -> dict[str, object]:
    attrs: dict[str, object] = {"gen_ai.system": "Ollama", "llm.request.type": "chat", "gen_ai.request.model": "llama3.2",
                                "gen_ai.completion.0.role": "assistant"}
    for index, message in enumerate(messages):
        for key, value in message.items():
            attrs[f"{PROMPT}.{index}.{key}"] = value
    if answer is not None:
        attrs["gen_ai.completion.0.content"] = answer
    return attrs


def _spans(replayed: bool) -> list:
    first = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
    second = [*first, {"role": "assistant", "tool_calls.0.name": "get_weather", "tool_calls.0.arguments": '{"city": "Paris"}'},
              {"role": "tool", "content": "Paris: sunny"}]
    spans = [
        span(1, "support_agent.agent", attrs={"traceloop.span.kind": "agent", "traceloop.entity.name": "support_agent"}),
        span(2, "ollama.chat", parent=1, attrs=_chat(first, None)),
        span(3, "get_weather.tool", parent=1, attrs={
            "traceloop.span.kind": "tool", "traceloop.entity.name": "get_weather", "gen_ai.tool.name": "get_weather",
            "traceloop.entity.input": '{"args": [], "kwargs": {"city": "Paris"}}',
            "traceloop.entity.output": '"Paris: sunny"'}),
    ]
    if replayed:
        spans.append(span(4, "ollama.chat", parent=1, attrs=_chat(second, "It is sunny in Paris.")))
    return spans


def test_a_replayed_turn_gives_its_request_the_calls_and_their_results() -> None:
    trajectory = map_spans(_spans(replayed=True))
    proposals = [n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL]
    assert proposals == [node_id(2, "call#0")], proposals
    assert has_edge(trajectory, node_id(2, "call#0"), EdgeType.CAUSED_BY, node_id(2))
    assert has_edge(trajectory, node_id(3), EdgeType.CAUSED_BY, node_id(2, "call#0"))
    assert has_edge(trajectory, node_id(4), EdgeType.DEPENDS_ON, node_id(3))


def test_an_answer_recorded_as_its_role_alone_is_declared_not_captured() -> None:
    trajectory = map_spans(_spans(replayed=False))
    assert not any(n.kind is NodeKind.TOOL_PROPOSAL for n in trajectory.nodes)
    assert any(d.qualifier == "not_captured" and d.category.value == "tool_proposal" for d in trajectory.declarations)


def _client_chat(messages: list[dict[str, str]], calls: dict[str, str] | None = None,
                 functions: tuple[str, ...] = ()) -> dict[str, object]:
    """An OpenAI client span in the indexed legacy form with call ids (AgentOps' OpenAI wrapper): the request's
    messages, the tools it offered as ``gen_ai.request.functions.N.*``, the answer's calls (when any)."""
    attrs: dict[str, object] = {"gen_ai.system": "OpenAI", "gen_ai.request.type": "chat",
                                "gen_ai.request.model": "gpt-4o-mini", "gen_ai.completion.0.role": "assistant"}
    for index, message in enumerate(messages):
        for key, value in message.items():
            attrs[f"{PROMPT}.{index}.{key}"] = value
    for index, name in enumerate(functions):
        attrs[f"gen_ai.request.functions.{index}.name"] = name
        attrs[f"gen_ai.request.functions.{index}.description"] = f"The {name} tool."
    for key, value in (calls or {}).items():
        attrs[f"gen_ai.completion.0.tool_calls.0.{key}"] = value
    return attrs


def _failed_then_retried(first_result: str) -> list:
    """Model call 2 proposes call_1, whose result (``first_result``) model call 3 receives; 3 proposes call_2, whose
    result model call 4 receives beside call_1's. No span runs a tool."""
    base = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Where is order A-1?"}]
    first = {"id": "call_1", "name": "lookup_order", "arguments": '{"order_id": "A-l"}'}
    second = {"id": "call_2", "name": "lookup_order", "arguments": '{"order_id": "A-1"}'}
    turn_1 = [{"role": "assistant", **{f"tool_calls.0.{k}": v for k, v in first.items()}},
              {"role": "tool", "tool_call_id": "call_1", "content": first_result}]
    turn_2 = [{"role": "assistant", **{f"tool_calls.0.{k}": v for k, v in second.items()}},
              {"role": "tool", "tool_call_id": "call_2", "content": '{"status": "shipped"}'}]
    return [
        span(1, "support_agent.agent", attrs={"agentops.span.kind": "agent", "agent.name": "support_agent"}),
        span(2, "openai.chat.completion", parent=1, attrs=_client_chat(base, first, ("lookup_order",))),
        span(3, "openai.chat.completion", parent=1, attrs=_client_chat(base + turn_1, second, ("lookup_order",))),
        span(4, "openai.chat.completion", parent=1, attrs=_client_chat(base + turn_1 + turn_2, None, ("lookup_order",))),
    ]


def test_a_tool_message_reporting_a_failure_fails_the_call_no_span_ran() -> None:
    trajectory = map_spans(_failed_then_retried("Error executing tool: order 'A-l' not found"))
    failed, retried = (get_node(trajectory, node_id(n, f"call:call_{n - 1}")) for n in (2, 3))
    assert (failed.result_status, failed.result_error) == (
        NodeStatus.FAILED, "Error executing tool: order 'A-l' not found")
    assert (retried.result_status, retried.result_error) == (NodeStatus.COMMITTED, None)
    # Read only as new results: the failure replayed in model call 4's input is not a second report of it.
    ok = map_spans(_failed_then_retried('{"status": "not found"}'))
    assert get_node(ok, node_id(2, "call:call_1")).result_status is NodeStatus.COMMITTED


def test_a_tool_message_rejecting_an_unknown_tool_is_no_failure() -> None:
    trajectory = map_spans(_failed_then_retried('Error: Requested function "lookup_order" not found.'))
    assert get_node(trajectory, node_id(2, "call:call_1")).result_status is None


def test_the_requests_indexed_functions_are_the_model_calls_tool_definitions() -> None:
    trajectory = map_spans(_failed_then_retried("{}"))
    assert get_node(trajectory, node_id(2)).tool_definitions == ("lookup_order",)
    spans = _failed_then_retried("{}")
    plain = map_spans([spans[0], span(2, "openai.chat.completion", parent=1, attrs=_client_chat(
        [{"role": "user", "content": USER}]))])
    assert get_node(plain, node_id(2)).tool_definitions is None  # none written: not "none offered"
    nameless = _client_chat([{"role": "user", "content": USER}])
    nameless["gen_ai.request.functions.0.name"] = " "
    unnamed = map_spans([spans[0], span(2, "openai.chat.completion", parent=1, attrs=nameless)])
    assert get_node(unnamed, node_id(2)).tool_definitions is None  # written but naming no tool: unknown, not none
