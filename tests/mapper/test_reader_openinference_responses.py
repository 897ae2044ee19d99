"""OpenInference LLM spans of the OpenAI Responses API (openinference-instrumentation-openai-agents on the Agents SDK's
default model API, corpus/NOTES-frameworks-ap.md): the request's ``input`` replays one model turn's function calls as
one ``function_call`` item each, which the instrumentation writes as one assistant message each
(``llm.input_messages.N.message.tool_calls.0``), while the turn's output holds them in one message."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType
from tests.support.spans import edges_from, map_spans, node_id, span

KIND = "openinference.span.kind"
QUESTION = {"role": "user", "content": "Will my order A-1001 to Paris be delayed?"}
CALLS = [("call_1", "lookup_order", {"order_id": "A-1001"}), ("call_2", "get_weather", {"city": "Paris"})]


def _call_attrs(prefix: str, calls: list[tuple[str, str, dict]]) -> dict[str, object]:
    attrs: dict[str, object] = {f"{prefix}role": "assistant"}
    for index, (call_id, name, args) in enumerate(calls):
        call = f"{prefix}tool_calls.{index}.tool_call."
        attrs.update({call + "id": call_id, call + "function.name": name, call + "function.arguments": json.dumps(args)})
    return attrs


def _response(number: int, *, inputs: list[dict], calls: list | None = None, text: str | None = None) -> object:
    """An LLM ``response`` span: the input items one message each; the output (None: not recorded) one message."""
    attrs: dict[str, object] = {KIND: "LLM", "llm.system": "openai", "llm.model_name": "gpt-4o-mini-2024-07-18"}
    for position, message in enumerate(inputs):
        prefix = f"llm.input_messages.{position}.message."
        if "calls" in message:
            attrs.update(_call_attrs(prefix, message["calls"]))
            continue
        attrs[prefix + "role"] = message["role"]
        attrs[prefix + "content"] = message["content"]
        if "tool_call_id" in message:
            attrs[prefix + "tool_call_id"] = message["tool_call_id"]
    if calls:
        attrs.update(_call_attrs("llm.output_messages.0.message.", calls))
    if text is not None:
        attrs.update({"llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": text})
    return span(number, "response", parent=1, attrs=attrs)


def _tool(number: int, name: str, args: dict, result: str) -> object:
    return span(number, name, parent=1, attrs={KIND: "TOOL", "tool.name": name, "input.value": json.dumps(args),
                                                "output.value": result})


def _turns(first_output: list | None) -> list:
    """An agent; a first response proposing two calls in one turn; both runs; a second response whose input replays
    each call as its own assistant message, then their results."""
    replayed = [QUESTION, {"calls": [CALLS[0]]}, {"calls": [CALLS[1]]},
                {"role": "tool", "tool_call_id": "call_1", "content": "shipped"},
                {"role": "tool", "tool_call_id": "call_2", "content": "sunny"}]
    return [
        span(1, "support_agent", attrs={KIND: "AGENT", "agent.name": "support_agent"}),
        _response(2, inputs=[QUESTION], calls=first_output),
        _tool(3, "lookup_order", CALLS[0][2], "shipped"),
        _tool(4, "get_weather", CALLS[1][2], "sunny"),
        _response(5, inputs=replayed, text="Shipped; sunny in Paris, no delay."),
    ]


def test_a_turn_replayed_one_call_a_message_is_the_output_message_that_proposed_it() -> None:
    trajectory = map_spans(_turns(CALLS))
    digest_edges = [e for e in edges_from(trajectory, node_id(5), EdgeType.DEPENDS_ON) if "output message digest" in e.evidence]
    assert [(e.to_node, e.evidence) for e in digest_edges] == [(node_id(2), "input message 1 equals output message digest")]


def test_a_call_without_recorded_output_proposed_every_call_its_split_replay_holds() -> None:
    trajectory = map_spans(_turns(None))
    proposed = sorted(e.from_node for e in trajectory.edges if e.type is EdgeType.CAUSED_BY and e.to_node == node_id(2)
                      and "#call:" in e.from_node)
    assert proposed == [node_id(2, "call:call_1"), node_id(2, "call:call_2")]


def test_assistant_messages_with_text_are_not_merged_with_calls() -> None:
    """A message that carries text besides its calls is a turn of its own (the run is only call-only messages)."""
    spans = _turns(CALLS)
    spans[-1] = _response(5, inputs=[QUESTION, {"role": "assistant", "content": "Checking."}, {"calls": [CALLS[0]]},
                                     {"calls": [CALLS[1]]}, {"role": "tool", "tool_call_id": "call_1", "content": "x"}],
                          text="Done.")
    trajectory = map_spans(spans)
    digest_edges = [e for e in edges_from(trajectory, node_id(5), EdgeType.DEPENDS_ON) if "output message digest" in e.evidence]
    assert [(e.to_node, e.evidence) for e in digest_edges] == [(node_id(2), "input message 2 equals output message digest")]
