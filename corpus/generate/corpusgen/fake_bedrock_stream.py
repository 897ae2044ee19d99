"""The Amazon Bedrock ConverseStream face of the scripted fake server (`POST /model/<modelId>/converse-stream`).

Same scripts, same request log as the Converse face (`fake_bedrock.answer_converse`, the log entry's `api`
`bedrock.converse_stream`): request *n* gets step *n*, the same tool-use ids, text and token counts. Only the answer's
framing differs: a 200 answer is `application/vnd.amazon.eventstream`, the binary framing botocore's
`botocore.eventstream.EventStreamBuffer` decodes (botocore has no encoder). Each message is

    total length (uint32) | headers length (uint32) | CRC32 of those 8 bytes | headers | payload | CRC32 of all before

with string headers (`name length (uint8) | name | type 7 | value length (uint16) | value`): `:event-type`,
`:content-type` `application/json`, `:message-type` `event`, and a JSON payload. The events, in the order the
ConverseStream API sends them: `messageStart {"role": "assistant"}`; for a text block `contentBlockDelta {"delta":
{"text"}, "contentBlockIndex"}` in fragments (a text block has no `contentBlockStart`) then `contentBlockStop`; for a
tool use `contentBlockStart {"start": {"toolUse": {"toolUseId", "name"}}, "contentBlockIndex"}`, its input as JSON text
in fragments (`contentBlockDelta {"delta": {"toolUse": {"input"}}}`) then `contentBlockStop`; `messageStop
{"stopReason"}`; `metadata {"usage": {"inputTokens", "outputTokens", "totalTokens"}, "metrics": {"latencyMs"}}`.

Errors are HTTP errors before any event, as for Converse (`ThrottlingException` 429, `InternalServerException` 500
in `x-amzn-ErrorType`; botocore raises them as `ClientError` from `converse_stream()` itself), and a delay stalls the
answer before its headers (botocore's read timeout). A failure inside an open stream is an `exception` message
(`exception_message`: `:message-type` `exception`, `:exception-type` e.g. `throttlingException`), which botocore raises
as `EventStreamError` while the stream is read; the scripts use none.
"""
from __future__ import annotations

import json
import struct
from binascii import crc32

from .fake_bedrock import answer_converse

CONTENT_TYPE = "application/vnd.amazon.eventstream"
TEXT_PIECE = 12  # characters of text per contentBlockDelta
INPUT_PIECE = 6  # characters of a tool use's JSON input per contentBlockDelta
_STRING = 7  # the event-stream header value type of a UTF-8 string


def is_converse_stream(path: str) -> bool:
    return path.startswith("/model/") and path.endswith("/converse-stream")


def answer_converse_stream(server, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
    """Answer one ConverseStream request from `server`'s script as the Converse face would (a Converse answer dict:
    `event_stream` frames it)."""
    return answer_converse(server, path, body, headers, api="bedrock.converse_stream")


def _header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return struct.pack("!B", len(n)) + n + struct.pack("!BH", _STRING, len(v)) + v


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude, its CRC, headers, payload, the message CRC."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    prelude = struct.pack("!II", 12 + len(head) + len(payload) + 4, len(head))
    before_crc = prelude + struct.pack("!I", crc32(prelude) & 0xFFFFFFFF) + head + payload
    return before_crc + struct.pack("!I", crc32(before_crc) & 0xFFFFFFFF)


def event_message(event_type: str, payload: dict) -> bytes:
    return encode_message({":event-type": event_type, ":content-type": "application/json", ":message-type": "event"},
                          json.dumps(payload).encode())


def exception_message(exception_type: str, message: str) -> bytes:
    """A modeled error inside an open stream (`throttlingException`, `internalServerException`, ...)."""
    return encode_message({":exception-type": exception_type, ":content-type": "application/json",
                           ":message-type": "exception"}, json.dumps({"message": message}).encode())


def _pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def event_stream(answer: dict) -> bytes:
    """A Converse answer (`output.message.content`, `stopReason`, `usage`, `metrics`) as ConverseStream events."""
    message = answer["output"]["message"]
    frames = [event_message("messageStart", {"role": message["role"]})]
    for index, block in enumerate(message["content"]):
        if "text" in block:
            frames += [event_message("contentBlockDelta", {"delta": {"text": piece}, "contentBlockIndex": index})
                       for piece in _pieces(block["text"], TEXT_PIECE)]
        elif "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
            frames.append(event_message("contentBlockStart", {"start": start, "contentBlockIndex": index}))
            frames += [event_message("contentBlockDelta", {"delta": {"toolUse": {"input": piece}},
                                                           "contentBlockIndex": index})
                       for piece in _pieces(json.dumps(use["input"]), INPUT_PIECE)]
        frames.append(event_message("contentBlockStop", {"contentBlockIndex": index}))
    frames.append(event_message("messageStop", {"stopReason": answer["stopReason"]}))
    frames.append(event_message("metadata", {"usage": answer["usage"], "metrics": answer["metrics"]}))
    return b"".join(frames)
