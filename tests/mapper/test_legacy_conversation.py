"""Indexed legacy prompts read as a conversation (OpenLLMetry's Ollama instrumentation, corpus/NOTES-frameworks-bg.md):
an answer recorded as its role alone records nothing of the answer (its proposals unknown, not none), and a later
request's replay of it gives it its calls and their results by conversation prefix, without any call id
(:mod:`otel_mapper.mapping.readers.legacy_conversation`, :mod:`otel_mapper.mapping.prefix`)."""

from __future__ import annotations

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

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
