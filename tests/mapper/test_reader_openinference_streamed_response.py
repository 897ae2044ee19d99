"""OpenInference LLM spans of a streamed Agents SDK run on Chat Completions (openinference-instrumentation-openai-agents
on ``Runner.run_streamed``, corpus/NOTES-frameworks-as.md): the SDK assembles the stream into a Responses API response
object and records ``[response]`` as the generation's output, which the instrumentation writes as ``output.value``
with no ``llm.output_messages``; the next request's input replays the answer as one Chat Completions assistant
message."""

from __future__ import annotations

import json

from semconv.trajectory import EdgeType, NodeKind
from tests.support.spans import edges_from, get_node, kinds, map_spans, node_id, span

KIND = "openinference.span.kind"
QUESTION = {"role": "user", "content": "Will my order A-1001 to Paris be delayed?"}
CALLS = [("call_1", "lookup_order", {"order_id": "A-1001"}), ("call_2", "get_weather", {"city": "Paris"})]


def _function_call(call_id: str, name: str, arguments: str) -> dict[str, object]:
    return {
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
        "type": "function_call",
        "id": "__fake_id__",
        "status": None,
    }


def _response_object(
    calls: list[tuple[str, str, dict]] | None = None, text: str | None = None, raw_arguments: str | None = None
) -> dict[str, object]:
    """What the SDK records for a streamed answer: a response object whose items split one assistant message."""
    output: list[dict[str, object]] = []
    if text is not None:
        output.append(
            {
                "id": "__fake_id__",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    for call_id, name, args in calls or []:
        output.append(_function_call(call_id, name, raw_arguments if raw_arguments is not None else json.dumps(args)))
    return {"id": "__fake_id__", "object": "response", "model": "gpt-4o-mini", "output": output, "usage": None}


def _input_attrs(messages: list[dict]) -> dict[str, object]:
    attrs: dict[str, object] = {}
    for position, message in enumerate(messages):
        prefix = f"llm.input_messages.{position}.message."
        attrs[prefix + "role"] = message["role"]
        if message.get("content"):
            attrs[prefix + "content"] = message["content"]
        if "tool_call_id" in message:
            attrs[prefix + "tool_call_id"] = message["tool_call_id"]
        for index, (call_id, name, args) in enumerate(message.get("calls", [])):
            call = f"{prefix}tool_calls.{index}.tool_call."
            attrs.update({call + "id": call_id, call + "function.name": name})
            if args:
                attrs[call + "function.arguments"] = json.dumps(args)
    return attrs


def _generation(number: int, *, inputs: list[dict], output: object) -> object:
    attrs: dict[str, object] = {
        KIND: "LLM",
        "llm.system": "openai",
        "llm.model_name": "gpt-4o-mini",
        "output.value": json.dumps(output),
        "output.mime_type": "application/json",
    }
    attrs.update(_input_attrs(inputs))
    return span(number, "generation", parent=1, attrs=attrs)


def _tool(number: int, name: str, args: dict, result: str) -> object:
    return span(
        number,
        name,
        parent=1,
        attrs={KIND: "TOOL", "tool.name": name, "input.value": json.dumps(args), "output.value": result},
    )


AGENT = span(1, "support_agent", attrs={KIND: "AGENT", "agent.name": "support_agent"})


def _digest_edges(trajectory: object, number: int) -> list[tuple[str, str]]:
    return [
        (e.to_node, e.evidence)
        for e in edges_from(trajectory, node_id(number), EdgeType.DEPENDS_ON)
        if "output message digest" in e.evidence
    ]


def test_the_calls_of_a_response_object_output_are_proposals() -> None:
    """The last answer's calls are replayed by no later request (the run stopped): only the output holds them."""
    trajectory = map_spans([AGENT, _generation(2, inputs=[QUESTION], output=[_response_object(CALLS)])])
    assert get_node(trajectory, node_id(2, "call:call_1")).kind is NodeKind.TOOL_PROPOSAL
    assert get_node(trajectory, node_id(2, "call:call_2")).kind is NodeKind.TOOL_PROPOSAL
    assert kinds(trajectory).get("tool_proposal") == 2


def test_the_items_of_one_response_digest_as_the_assistant_message_that_replays_them() -> None:
    replayed = [
        QUESTION,
        {"role": "assistant", "content": None, "calls": CALLS},
        {"role": "tool", "tool_call_id": "call_1", "content": "shipped"},
        {"role": "tool", "tool_call_id": "call_2", "content": "sunny"},
    ]
    trajectory = map_spans(
        [
            AGENT,
            _generation(2, inputs=[QUESTION], output=[_response_object(CALLS)]),
            _tool(3, "lookup_order", CALLS[0][2], "shipped"),
            _tool(4, "get_weather", CALLS[1][2], "sunny"),
            _generation(5, inputs=replayed, output=[_response_object(text="Shipped; sunny in Paris, no delay.")]),
        ]
    )
    assert _digest_edges(trajectory, 5) == [(node_id(2), "input message 1 equals output message digest")]


def test_text_and_calls_of_one_response_are_one_message() -> None:
    """A message item and function-call items of one response: the text and the calls of one assistant message."""
    call = [("call_1", "lookup_order", {"order_id": "A-1001"})]
    replayed = [
        QUESTION,
        {"role": "assistant", "content": "Checking.", "calls": call},
        {"role": "tool", "tool_call_id": "call_1", "content": "shipped"},
    ]
    trajectory = map_spans(
        [
            AGENT,
            _generation(2, inputs=[QUESTION], output=[_response_object(call, text="Checking.")]),
            _generation(3, inputs=replayed, output=[_response_object(text="Shipped.")]),
        ]
    )
    assert _digest_edges(trajectory, 3) == [(node_id(2), "input message 1 equals output message digest")]


def test_empty_arguments_digest_as_the_replay_that_leaves_them_out() -> None:
    """OpenInference writes no arguments for a ``{}`` call (the SDK's handoff tool) in the replayed input."""
    call = [("call_1", "transfer_to_billing_agent", {})]
    replayed = [
        QUESTION,
        {"role": "assistant", "content": None, "calls": call},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"assistant": "billing_agent"}'},
    ]
    trajectory = map_spans(
        [
            AGENT,
            _generation(2, inputs=[QUESTION], output=[_response_object(call, raw_arguments="{}")]),
            _generation(3, inputs=replayed, output=[_response_object(text="Done.")]),
        ]
    )
    assert _digest_edges(trajectory, 3) == [(node_id(2), "input message 1 equals output message digest")]


def test_output_json_that_is_not_a_response_object_proposes_nothing() -> None:
    for output in (
        {"output": [_function_call("call_1", "lookup_order", "{}")]},
        [{"object": "chat.completion", "output": [_function_call("call_1", "lookup_order", "{}")]}],
        [_response_object(CALLS), {"object": "list"}],
    ):
        trajectory = map_spans([AGENT, _generation(2, inputs=[QUESTION], output=output)])
        assert "tool_proposal" not in kinds(trajectory), output


def test_flattened_output_messages_win_over_the_response_object() -> None:
    generation = _generation(2, inputs=[QUESTION], output=[_response_object(CALLS)])
    flat = {
        KIND: "LLM",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_9",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "search_docs",
    }
    attrs = {kv.key: kv.value for kv in generation.attributes}
    generation = span(
        2,
        "generation",
        parent=1,
        attrs={
            KIND: "LLM",
            "output.value": attrs["output.value"].string_value,
            "output.mime_type": "application/json",
            **flat,
        },
    )
    trajectory = map_spans([AGENT, generation])
    assert kinds(trajectory).get("tool_proposal") == 1
    assert get_node(trajectory, node_id(2, "call:call_9")).kind is NodeKind.TOOL_PROPOSAL
