"""Requests and responses recognised by their fields alone (:mod:`otel_mapper.mapping.wire_messages`): each known
shape gives its messages in the GenAI parts schema, with the calls and results that link a trajectory; a value of no
known shape, or an assistant message where it may be an input's, gives nothing."""

from __future__ import annotations

import json
from typing import Any

from otel_mapper.mapping.wire_messages import chat_message_list, request_messages, response_messages

ARGUMENTS = {"city": "Paris"}


def _calls(messages: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    return [(part.get("id"), part.get("name")) for message in messages for part in message.get("parts", [])
            if part.get("type") == "tool_call"]


def _results(messages: list[dict[str, Any]]) -> list[Any]:
    return [part.get("id") for message in messages for part in message.get("parts", [])
            if part.get("type") == "tool_call_response"]


def test_each_response_shape_gives_its_calls_and_names_itself() -> None:
    responses = {
        "Chat Completions response": {"id": "c1", "choices": [{"message": {"role": "assistant", "tool_calls": [
            {"id": "a", "function": {"name": "get_weather", "arguments": json.dumps(ARGUMENTS)}}]}}]},
        "Anthropic Messages response": {"id": "m1", "type": "message", "role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "get_weather", "input": ARGUMENTS}]},
        "Bedrock Converse response": {"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "a", "name": "get_weather", "input": ARGUMENTS}}]}}},
        "Gemini response": {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"id": "a", "name": "get_weather", "args": ARGUMENTS}}]}}]},
        "OpenAI Responses response": {"object": "response", "output": [
            {"type": "function_call", "call_id": "a", "name": "get_weather", "arguments": "{}"}]},
        "Pydantic AI model response": {"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": "get_weather", "args": ARGUMENTS, "tool_call_id": "a"}]},
    }
    for shape, value in responses.items():
        found = response_messages(value)
        assert found is not None and found.shape == shape, shape
        assert _calls(found.messages) == [("a", "get_weather")], shape


def test_each_request_shape_gives_the_results_it_carries() -> None:
    requests = {
        "request messages": {"messages": [{"role": "user", "content": "Weather?"},
                                          {"role": "tool", "tool_call_id": "a", "content": "Sunny"}]},
        "Gemini request contents": {"contents": [{"role": "user", "parts": [
            {"function_response": {"id": "a", "name": "get_weather", "response": {"output": "Sunny"}}}]}]},
        "OpenAI Responses request input": {"input": [{"role": "user", "content": "Weather?"},
                                                     {"type": "function_call_output", "call_id": "a", "output": "Sunny"}]},
    }
    for shape, value in requests.items():
        found = request_messages(value)
        assert found is not None and found.shape == shape, shape
        assert _results(found.messages) == ["a"], shape


def test_a_bare_assistant_message_is_an_output_only_where_it_is_a_whole_value() -> None:
    message = {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "get_weather", "arguments": "{}"}}]}
    assert response_messages(message) is not None
    assert response_messages(message, bare=False) is None
    assert response_messages([message], bare=False) is None
    assert request_messages([{"role": "user", "content": "hi"}, message], bare=False) is None


def test_values_of_no_known_shape_give_nothing() -> None:
    for value in ({"result": {"text": "Sunny"}}, {"choices": "none"}, [1, 2], "text", None,
                  {"choices": [{"message": {"role": "tool", "content": "x"}}]}):
        assert response_messages(value) is None, value
    assert request_messages({"prompt": "Weather?"}) is None


def test_a_chat_list_keeps_chat_messages_as_before_and_reads_others_by_their_shape() -> None:
    chat = {"role": "assistant", "content": "ok"}
    anthropic = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "Sunny"}]}
    llama_index = {"role": "tool", "blocks": [{"block_type": "text", "text": "Sunny"}],
                   "additional_kwargs": {"tool_call_id": "b"}}
    langchain = {"type": "ai", "content": "", "tool_calls": [{"name": "get_weather", "args": ARGUMENTS, "id": "c"}]}
    messages = chat_message_list([chat, anthropic, llama_index, langchain, "not a message"])
    assert [message["role"] for message in messages] == ["assistant", "user", "tool", "assistant"]
    assert messages[0]["parts"] == [{"type": "text", "content": "ok"}]
    assert _results(messages) == ["a", "b"]
    assert _calls(messages) == [("c", "get_weather")]
