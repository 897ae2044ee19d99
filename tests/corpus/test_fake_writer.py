"""The fake server's Writer face (`corpus/generate/corpusgen/fake_writer.py`): Writer's chat completion route answered
from the same script and log as the OpenAI face, in Writer's form; the OpenAI face's own route unchanged."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "corpus" / "generate"))

from corpusgen.fake_openai import ScriptedServer  # noqa: E402

_REQUEST = {"model": "palmyra-x5", "messages": [{"role": "user", "content": "Weather in Paris?"}],
            "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]}


@pytest.fixture
def server() -> Iterator[tuple[ScriptedServer, str]]:
    scripted = ScriptedServer("t", [{"tool_calls": [("get_weather", {"city": "Paris"})]}, {"text": "Sunny."},
                                    {"status": 429}])
    base = scripted.start().removesuffix("/v1")
    try:
        yield scripted, base
    finally:
        scripted.stop()


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_writer_route_answers_the_script_in_writers_form(server: tuple[ScriptedServer, str]) -> None:
    scripted, base = server

    status, answer = _post(base + "/v1/chat", _REQUEST)

    assert status == 200
    assert answer["model"] == "palmyra-x5" and answer["object"] == "chat.completion"
    assert len(answer["id"]) == 36 and answer["id"].count("-") == 4  # a UUID
    message = answer["choices"][0]["message"]
    assert message["tool_calls"] == [{"id": "call_t_1", "type": "function", "index": 0,
                                      "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
    assert {"graph_data", "llm_data", "translation_data", "web_search_data"} <= set(message)
    assert answer["usage"]["prompt_token_details"] == {"cached_tokens": 0}
    assert scripted.log[0]["path"] == "/v1/chat" and scripted.log[0]["proposed"][0]["id"] == "call_t_1"


def test_writer_route_errors_are_writers_error_body(server: tuple[ScriptedServer, str]) -> None:
    _, base = server
    _post(base + "/v1/chat", _REQUEST)
    _post(base + "/v1/chat", _REQUEST)

    status, answer = _post(base + "/v1/chat", _REQUEST)

    assert status == 429
    assert answer["tpe"] == "TooManyRequests" and answer["errors"][0]["key"]


def test_openai_route_is_answered_as_before(server: tuple[ScriptedServer, str]) -> None:
    _, base = server

    status, answer = _post(base + "/v1/chat/completions", dict(_REQUEST, model="gpt-4o-mini"))

    assert status == 200
    assert answer["model"] == "gpt-4o-mini-2024-07-18" and answer["id"] == "chatcmpl-t-1"
    assert "graph_data" not in answer["choices"][0]["message"]
