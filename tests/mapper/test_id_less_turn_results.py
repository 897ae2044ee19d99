"""Tool results without call ids answering tool calls without call ids (Ollama's chat API under OpenInference,
corpus/NOTES-frameworks-bg.md): the model call whose input is the consumer's input before the replayed assistant
message made the calls, and the k-th tool message after it answers its k-th call
(:mod:`otel_mapper.mapping.prefix`)."""

from __future__ import annotations

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import has_edge, map_spans, node_id, span

KIND = "openinference.span.kind"
IN = "llm.input_messages"
OUT = "llm.output_messages"
CALLS = (("lookup_order", '{"order_id": "A-1001"}', "A-1001: shipped"), ("get_weather", '{"city": "Paris"}', "Paris: sunny"))


def _first_turn() -> dict[str, object]:
    attrs: dict[str, object] = {KIND: "LLM", "llm.model_name": "llama3.2", "llm.provider": "ollama",
                                f"{IN}.0.message.role": "user", f"{IN}.0.message.content": "Will A-1001 be late?",
                                f"{OUT}.0.message.role": "assistant"}
    for index, (name, arguments, _) in enumerate(CALLS):
        attrs[f"{OUT}.0.message.tool_calls.{index}.tool_call.function.name"] = name
        attrs[f"{OUT}.0.message.tool_calls.{index}.tool_call.function.arguments"] = arguments
    return attrs


def _second_turn(results: list[str]) -> dict[str, object]:
    attrs: dict[str, object] = {KIND: "LLM", "llm.model_name": "llama3.2", "llm.provider": "ollama",
                                f"{IN}.0.message.role": "user", f"{IN}.0.message.content": "Will A-1001 be late?",
                                f"{IN}.1.message.role": "assistant",
                                f"{OUT}.0.message.role": "assistant", f"{OUT}.0.message.content": "On time."}
    for index, (name, arguments, _) in enumerate(CALLS):
        attrs[f"{IN}.1.message.tool_calls.{index}.tool_call.function.name"] = name
        attrs[f"{IN}.1.message.tool_calls.{index}.tool_call.function.arguments"] = arguments
    for offset, (name, text) in enumerate(zip([c[0] for c in CALLS], results, strict=True)):
        attrs[f"{IN}.{2 + offset}.message.role"] = "tool"
        attrs[f"{IN}.{2 + offset}.message.content"] = text
        attrs[f"{IN}.{2 + offset}.message.name"] = name
    return attrs


def _spans(results: list[str]) -> list:
    spans = [span(1, "support_agent", attrs={KIND: "AGENT"}), span(2, "Chat", parent=1, attrs=_first_turn())]
    for offset, (name, arguments, text) in enumerate(CALLS):
        spans.append(span(3 + offset, name, parent=1, attrs={
            KIND: "TOOL", "tool.name": name, "input.value": arguments, "output.value": text}))
    spans.append(span(9, "Chat", parent=1, attrs=_second_turn(results)))
    return spans


def test_each_tool_message_answers_the_call_at_its_place() -> None:
    trajectory = map_spans(_spans([text for _, _, text in CALLS]))
    proposals = sorted(n.id for n in trajectory.nodes if n.kind is NodeKind.TOOL_PROPOSAL)
    assert proposals == [f"{node_id(2)}#call#0", f"{node_id(2)}#call#1"], proposals
    for offset in range(len(CALLS)):
        assert has_edge(trajectory, node_id(3 + offset), EdgeType.CAUSED_BY, f"{node_id(2)}#call#{offset}")
        assert has_edge(trajectory, node_id(9), EdgeType.DEPENDS_ON, node_id(3 + offset))


def test_fewer_answers_than_calls_join_nothing() -> None:
    spans = _spans([CALLS[0][2], CALLS[1][2]])
    last = spans[-1]
    kept = [kv for kv in last.attributes if not kv.key.startswith(f"{IN}.3.")]
    del last.attributes[:]
    last.attributes.extend(kept)
    trajectory = map_spans(spans)
    assert not any(has_edge(trajectory, node_id(9), EdgeType.DEPENDS_ON, node_id(3 + offset)) for offset in range(2))
