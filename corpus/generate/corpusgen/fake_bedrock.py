"""The Amazon Bedrock Converse API face of the scripted fake server (`POST /model/<modelId>/converse`, non-streaming).

Same scripts, same request log as the OpenAI face (`fake_openai.ScriptedServer`): request *n* gets step *n*. Only
the wire shape differs: the answer is `{"output": {"message": {"role": "assistant", "content": [...]}}, "stopReason",
"usage", "metrics"}` with `text` / `toolUse` content blocks (tool-use ids `tooluse_<scenario>_<k>`, k counts tool calls
from 1), `stopReason` `tool_use` or `end_turn`, usage as `inputTokens` / `outputTokens` / `totalTokens`; tool results
arrive as `toolResult` blocks (`toolUseId`) in user messages; the offered tools are `toolConfig.tools[].toolSpec`.
Errors are Bedrock's: HTTP 429 `ThrottlingException`, HTTP 500 `InternalServerException`, named in the
`x-amzn-ErrorType` header with a `{"message"}` body (how botocore's REST-JSON parser reads an error code). The request
is not authenticated: the SigV4 signature the client sends is ignored.
"""
from __future__ import annotations

import json
from urllib.parse import unquote

LATENCY_MS = 240  # fixed, so answers are deterministic


def _estimate_tokens(obj) -> int:
    return max(1, len(json.dumps(obj, sort_keys=True)) // 4)


def is_converse(path: str) -> bool:
    return path.startswith("/model/") and path.endswith("/converse")


def _tool_results(messages: list) -> list[str]:
    ids = []
    for m in messages:
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            ids += [b["toolResult"].get("toolUseId") for b in m["content"]
                    if isinstance(b, dict) and isinstance(b.get("toolResult"), dict)]
    return ids


def _error(status: int, error_type: str, message: str, request_id: str, delay: float) -> tuple[int, dict, float, dict]:
    return status, {"message": message}, delay, {"x-amzn-ErrorType": f"{error_type}:http://internal.amazon.com/coral/"
                                                 "com.amazon.bedrock/", "x-amzn-RequestId": request_id}


def answer_converse(server, path: str, body: dict, headers, api: str = "bedrock.converse"
                    ) -> tuple[int, dict, float, dict]:
    """Answer one Converse request from `server`'s script; log it like the OpenAI face does (`api`: the operation the
    log names; ConverseStream's face, `fake_bedrock_stream.py`, frames the same answer)."""
    with server._lock:
        seq = len(server.log) + 1
        messages = body.get("messages") or []
        tools = (body.get("toolConfig") or {}).get("tools") or []
        entry = {
            "seq": seq,
            "path": path,
            "api": api,
            "model_id": unquote(path[len("/model/"):path.rindex("/")]),
            "otel_span": headers.get("x-corpus-otel-span"),
            "sdk_span": headers.get("x-corpus-sdk-span"),
            "agent": headers.get("x-corpus-agent"),
            "tools_offered": [(t.get("toolSpec") or {}).get("name") for t in tools],
            "tool_results_in_input": _tool_results(messages),
            "n_input_messages": len(messages),
        }
        server.log.append(entry)
        request_id = f"req-{server.scenario}-{seq}"
        turn = server.take_step(entry)
        step, status, delay = turn.step, turn.status, turn.delay
        if turn.failure == "script_exhausted":
            return _error(500, "InternalServerException", "fake server: script exhausted", request_id, 0)
        if turn.failure == "rate_limited":
            return _error(429, "ThrottlingException", "Too many requests, please wait before trying again.",
                          request_id, delay)
        if turn.failure == "server_error":
            return _error(status, "InternalServerException", "The system encountered an unexpected error during "
                          "processing. Try your request again.", request_id, delay)
        content: list[dict] = []
        text = step.get("text")
        if text:
            content.append({"text": text})
        proposed = []
        for name, args in step.get("tool_calls", []):
            call_id = f"tooluse_{server.scenario}_{server._next_call}"
            server._next_call += 1
            content.append({"toolUse": {"toolUseId": call_id, "name": name, "input": args}})
            proposed.append({"id": call_id, "name": name, "arguments": json.dumps(args)})
        if "usage" in step:
            input_tokens, output_tokens = step["usage"]
        else:
            input_tokens = _estimate_tokens({"m": messages, "s": body.get("system"), "t": tools})
            output_tokens = _estimate_tokens(content) // 2 + 3
        entry.update(outcome="timeout" if delay else "ok", proposed=proposed, text=text,
                     usage=[input_tokens, output_tokens])
        payload = {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "tool_use" if proposed else "end_turn",
            "usage": {"inputTokens": input_tokens, "outputTokens": output_tokens,
                      "totalTokens": input_tokens + output_tokens},
            "metrics": {"latencyMs": LATENCY_MS},
        }
        return 200, payload, delay, {"x-amzn-RequestId": request_id}
