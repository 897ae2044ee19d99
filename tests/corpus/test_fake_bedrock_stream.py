"""The fake server's ConverseStream face (`corpus/generate/corpusgen/fake_bedrock_stream.py`) read back by botocore's
own event-stream decoder and its Bedrock Runtime client: the frames, the events, and the errors as botocore raises
them."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

botocore = pytest.importorskip("botocore")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "corpus" / "generate"))

from botocore.config import Config  # noqa: E402
from botocore.eventstream import EventStream, EventStreamBuffer  # noqa: E402
from botocore.exceptions import ClientError, EventStreamError  # noqa: E402
from botocore.parsers import create_parser  # noqa: E402
from botocore.session import get_session  # noqa: E402
from corpusgen.fake_bedrock_stream import encode_message, event_stream, exception_message  # noqa: E402
from corpusgen.fake_openai import ScriptedServer  # noqa: E402

MODEL_ID = "anthropic.claude-3-5-haiku-20241022-v1:0"

_ANSWER = {
    "output": {"message": {"role": "assistant", "content": [
        {"text": "Let me look that up for you."},
        {"toolUse": {"toolUseId": "tooluse_t_1", "name": "get_weather", "input": {"city": "Paris"}}},
    ]}},
    "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 7, "totalTokens": 17},
    "metrics": {"latencyMs": 240},
}


def _client(endpoint: str) -> Any:
    return get_session().create_client(
        "bedrock-runtime", region_name="us-east-1", endpoint_url=endpoint, aws_access_key_id="AKIAFAKE",
        aws_secret_access_key="fake", config=Config(retries={"total_max_attempts": 1}, read_timeout=5))


def test_frames_decode_with_their_headers_and_payload() -> None:
    frame = encode_message({":event-type": "messageStart", ":message-type": "event"}, b'{"role": "assistant"}')
    buffer = EventStreamBuffer()
    buffer.add_data(frame[:7])  # a frame split across reads still decodes once whole
    assert list(buffer) == []
    buffer.add_data(frame[7:])
    (message,) = list(buffer)
    assert message.headers == {":event-type": "messageStart", ":message-type": "event"}
    assert message.payload == b'{"role": "assistant"}'
    assert message.prelude.total_length == len(frame)


def test_answer_events_in_converse_stream_order() -> None:
    buffer = EventStreamBuffer()
    buffer.add_data(event_stream(_ANSWER))
    types = [m.headers[":event-type"] for m in buffer]
    assert types[0] == "messageStart" and types[-2:] == ["messageStop", "metadata"]
    assert types.count("contentBlockStart") == 1  # a text block has no start event; a tool use has one
    assert types.count("contentBlockStop") == 2


def test_botocore_client_reads_the_stream_back() -> None:
    server = ScriptedServer("t", [{"text": "Let me check.", "tool_calls": [("get_weather", {"city": "Paris"})],
                                   "usage": (10, 7)}])
    base = server.start()
    try:
        response = _client(base[:-3]).converse_stream(
            modelId=MODEL_ID, messages=[{"role": "user", "content": [{"text": "weather?"}]}])
        events = list(response["stream"])
    finally:
        server.stop()
    text = "".join(e["contentBlockDelta"]["delta"].get("text", "") for e in events if "contentBlockDelta" in e)
    tool_input = "".join(e["contentBlockDelta"]["delta"]["toolUse"]["input"] for e in events
                         if "contentBlockDelta" in e and "toolUse" in e["contentBlockDelta"]["delta"])
    (start,) = [e["contentBlockStart"] for e in events if "contentBlockStart" in e]
    assert text == "Let me check."
    assert json.loads(tool_input) == {"city": "Paris"}
    assert start == {"start": {"toolUse": {"toolUseId": "tooluse_t_1", "name": "get_weather"}},
                     "contentBlockIndex": 1}
    assert [e["messageStop"]["stopReason"] for e in events if "messageStop" in e] == ["tool_use"]
    assert events[-1]["metadata"]["usage"] == {"inputTokens": 10, "outputTokens": 7, "totalTokens": 17}
    assert server.log[0]["api"] == "bedrock.converse_stream" and server.log[0]["model_id"] == MODEL_ID


def test_throttle_is_a_client_error_before_the_stream() -> None:
    server = ScriptedServer("t", [{"status": 429}])
    base = server.start()
    try:
        with pytest.raises(ClientError) as caught:
            _client(base[:-3]).converse_stream(
                modelId=MODEL_ID, messages=[{"role": "user", "content": [{"text": "hi"}]}])
    finally:
        server.stop()
    assert caught.value.response["Error"]["Code"] == "ThrottlingException"
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429


def test_exception_inside_the_stream_is_an_event_stream_error() -> None:
    client = _client("http://127.0.0.1:1")
    operation = client.meta.service_model.operation_model("ConverseStream")
    shape = operation.output_shape.members["stream"]

    class Raw:
        def stream(self) -> Iterator[bytes]:
            yield exception_message("throttlingException", "Too many requests")

        def close(self) -> None:
            pass

    # the event parser botocore hands an EventStream (`ResponseParser._create_event_stream`)
    parser = create_parser(client.meta.service_model.protocol)._event_stream_parser
    with pytest.raises(EventStreamError) as caught:
        list(EventStream(Raw(), shape, parser, "ConverseStream"))
    assert caught.value.response["Error"]["Code"] == "throttlingException"
