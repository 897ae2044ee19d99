"""The Anthropic Messages API face of the scripted fake server (`POST /v1/messages`; `"stream": true` gets the same
answer as server-sent events, `sse_message`).

Same scripts, same request log as the OpenAI face (`fake_openai.ScriptedServer`): request *n* gets step *n*. Only
the wire shape differs: the answer is a `message` with `text` / `tool_use` content blocks (tool-use ids
`toolu_<scenario>_<k>`, k counts tool calls from 1), `stop_reason` `tool_use` or `end_turn`, and `usage` as
`input_tokens` / `output_tokens`; tool results arrive as `tool_result` blocks (`tool_use_id`) in user messages;
errors are `{"type": "error", "error": {"type": "rate_limit_error" | "api_error", ...}}` with HTTP 429 / 500.

Requests that are not the agent's turns are answered apart (`answer_aside`): logged in `server.aside`, never in the
request log, and they consume no step. Only on the Claude Code CLI's path (`/v1/messages?beta=true`): token counting
(`POST /v1/messages/count_tokens`) and a Messages request that offers no tools (the CLI's session-title request, sent
with its small model unless `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` is set; every agent turn of the scenarios offers
tools).
"""
from __future__ import annotations

import json

ANTHROPIC_MODEL_ANSWERED = "claude-haiku-4-5-20251001"


def _estimate_tokens(obj) -> int:
    return max(1, len(json.dumps(obj, sort_keys=True)) // 4)


def _tool_results(messages: list) -> list[str]:
    ids = []
    for m in messages:
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, list):
            ids += [b.get("tool_use_id") for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    return ids


def answer_messages(server, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
    """Answer one Messages API request from `server`'s script; log it like the OpenAI face does."""
    with server._lock:
        seq = len(server.log) + 1
        messages = body.get("messages") or []
        entry = {
            "seq": seq,
            "path": path,
            "api": "anthropic.messages",
            "otel_span": headers.get("x-corpus-otel-span"),
            "sdk_span": headers.get("x-corpus-sdk-span"),
            "agent": headers.get("x-corpus-agent"),
            "tools_offered": [t.get("name") for t in body.get("tools") or []],
            "tool_results_in_input": _tool_results(messages),
            "n_input_messages": len(messages),
        }
        server.log.append(entry)
        request_id = f"req_{server.scenario}_{seq}"
        turn = server.take_step(entry)
        step, status, delay = turn.step, turn.status, turn.delay
        if turn.failure == "script_exhausted":
            return 500, {"type": "error", "error": {"type": "api_error", "message": "fake server: script exhausted"},
                         "request_id": request_id}, 0, {"request-id": request_id}
        if turn.failure == "rate_limited":
            return 429, {"type": "error", "error": {
                "type": "rate_limit_error",
                "message": "This request would exceed the rate limit for your organization (org-fake) of 3 "
                           "requests per minute. For details, refer to the rate limits documentation."},
                "request_id": request_id}, delay, {
                "request-id": request_id, "retry-after": "1", "anthropic-ratelimit-requests-limit": "3",
                "anthropic-ratelimit-requests-remaining": "0"}
        if turn.failure == "server_error":
            return status, {"type": "error", "error": {"type": "api_error", "message": "Internal server error"},
                            "request_id": request_id}, delay, {"request-id": request_id}
        content: list[dict] = []
        text = step.get("text")
        if text:
            content.append({"type": "text", "text": text})
        proposed = []
        for name, args in step.get("tool_calls", []):
            call_id = f"toolu_{server.scenario}_{server._next_call}"
            server._next_call += 1
            content.append({"type": "tool_use", "id": call_id, "name": name, "input": args})
            proposed.append({"id": call_id, "name": name, "arguments": json.dumps(args)})
        stop_reason = "tool_use" if proposed else "end_turn"
        if "usage" in step:
            input_tokens, output_tokens = step["usage"]
        else:
            input_tokens = _estimate_tokens({"m": messages, "s": body.get("system"), "t": body.get("tools")})
            output_tokens = _estimate_tokens(content) // 2 + 3
        entry.update(outcome="timeout" if delay else "ok", proposed=proposed, text=text,
                     usage=[input_tokens, output_tokens])
        payload = {
            "id": f"msg_{server.scenario}_{seq}",
            "type": "message",
            "role": "assistant",
            "model": ANTHROPIC_MODEL_ANSWERED,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "service_tier": "standard"},
        }
        return 200, payload, delay, {"request-id": request_id}


def _event(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def sse_message(payload: dict) -> bytes:
    """A `message` as the API streams it: `message_start` (the message with no content, `stop_reason` null, the input
    tokens and one output token), per content block `content_block_start` (a text block empty, a tool_use block with
    `input: {}`), its `text_delta` / `input_json_delta` fragments and `content_block_stop`, then `message_delta` with
    the stop reason and the output tokens, and `message_stop`."""
    usage = payload["usage"]
    start = dict(payload, content=[], stop_reason=None, stop_sequence=None,
                 usage=dict(usage, output_tokens=1))
    out = [_event("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(payload["content"]):
        if block["type"] == "text":
            opening = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece}
                      for piece in (block["text"][i:i + 12] for i in range(0, len(block["text"]), 12))]
        else:
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            arguments = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": arguments[i:i + 6]}
                      for i in range(0, len(arguments), 6)]
        out.append(_event("content_block_start", {"type": "content_block_start", "index": index,
                                                  "content_block": opening}))
        out += [_event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                for delta in deltas]
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(_event("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": payload["stop_reason"], "stop_sequence": None},
                                        "usage": {"output_tokens": usage["output_tokens"]}}))
    out.append(_event("message_stop", {"type": "message_stop"}))
    return b"".join(out)


SESSION_TITLE = "Customer support request"


def is_aside(path: str, body: dict) -> bool:
    """A Messages API request on the CLI's path that is not a turn of the agent (see the module)."""
    route = path.split("?", 1)[0]
    return route.endswith("/messages/count_tokens") or (route.endswith("/messages") and not body.get("tools"))


def answer_aside(server, path: str, body: dict) -> tuple[int, dict, float, dict]:
    """Token counting (answered from the request size) or a tool-less request (a fixed short text); logged in
    `server.aside` (created on first use)."""
    with server._lock:
        aside = server.__dict__.setdefault("aside", [])
        tokens = _estimate_tokens({"m": body.get("messages"), "s": body.get("system"), "t": body.get("tools")})
        counting = path.split("?", 1)[0].endswith("/count_tokens")
        aside.append({"n": len(aside) + 1, "path": path, "model": body.get("model"), "input_tokens": tokens,
                      "kind": "count_tokens" if counting else "no_tools"})
        if counting:
            return 200, {"input_tokens": tokens}, 0, {}
        return 200, {"id": f"msg_{server.scenario}_aside_{len(aside)}", "type": "message", "role": "assistant",
                     "model": body.get("model") or ANTHROPIC_MODEL_ANSWERED,
                     "content": [{"type": "text", "text": SESSION_TITLE}], "stop_reason": "end_turn",
                     "stop_sequence": None,
                     "usage": {"input_tokens": tokens, "output_tokens": 4, "cache_creation_input_tokens": 0,
                               "cache_read_input_tokens": 0, "service_tier": "standard"}}, 0, {}
