"""The Cohere Chat API v2 face of the scripted fake server (`POST /v2/chat`, non-streaming).

Same scripts, same request log as the OpenAI face (`fake_openai.ScriptedServer`): request *n* gets step *n*. Only the
wire shape differs (the shapes of the `cohere` SDK's `V2ChatResponse` and its request body):

- the request holds `model`, `messages` (`system` / `user` / `assistant` / `tool`; an assistant message replays its
  `tool_calls` (`{"id", "type": "function", "function": {"name", "arguments"}}`) and `tool_plan`, a `tool` message
  carries `tool_call_id` and `content`, a string or a list of `text` / `document` blocks) and `tools`
  (`[{"type": "function", "function": {"name", "description", "parameters"}}]`), `"stream": false`;
- the answer: `id`, `finish_reason` `COMPLETE` (text) or `TOOL_CALL`, `message` (`role: "assistant"`; the text as
  `content: [{"type": "text", "text"}]`, or with tool calls `tool_plan` (the step's text, else a one-line plan as the
  Command models write one before calling tools) and `tool_calls` with the ids `call_<scenario>_<k>` (k counts tool
  calls from 1, as in the other faces, so that the labels name the same calls; the API's own ids look otherwise)),
  `usage` (`billed_units` and `tokens`, both `{"input_tokens", "output_tokens"}`, the same counts: the scripts' or the
  estimate every face makes);
- errors: the API's error body `{"id", "message"}`, HTTP 429 (the SDK's `TooManyRequestsError`) or 500
  (`InternalServerError`); a `delay` step stalls before answering, past the client's timeout.
"""
from __future__ import annotations

import json
import uuid

_IDS = uuid.UUID("6c6f6865-7265-4e00-8000-636f72707573")  # a fixed namespace: the answers' ids are deterministic


def _estimate_tokens(obj) -> int:
    return max(1, len(json.dumps(obj, sort_keys=True)) // 4)


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content or [] if isinstance(block, dict) and isinstance(block.get("text"), str)]


def _id(server, seq: int, kind: str) -> str:
    return str(uuid.uuid5(_IDS, f"{kind}/{server.scenario}/{seq}"))


def _plan(names: list[str]) -> str:
    return f"I will use {', '.join(names)} to answer the request."


def answer_chat(server, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
    """Answer one v2 chat request from `server`'s script; log it like the OpenAI face does."""
    with server._lock:
        seq = len(server.log) + 1
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        entry = {
            "seq": seq,
            "path": path,
            "api": "cohere.v2.chat",
            "otel_span": headers.get("x-corpus-otel-span"),
            "sdk_span": headers.get("x-corpus-sdk-span"),
            "agent": headers.get("x-corpus-agent"),
            "tools_offered": [(t.get("function") or {}).get("name") for t in body.get("tools") or []
                              if isinstance(t, dict)],
            "tool_results_in_input": [m.get("tool_call_id") for m in messages if m.get("role") == "tool"],
            "n_input_messages": len(messages),
            "input_texts": [text for m in messages for text in _texts(m.get("content"))],
        }
        server.log.append(entry)
        turn = server.take_step(entry)
        step, status, delay = turn.step, turn.status, turn.delay
        if turn.failure == "script_exhausted":
            return 500, {"id": _id(server, seq, "error"), "message": "fake server: script exhausted"}, 0, {}
        if turn.failure == "rate_limited":
            return 429, {"id": _id(server, seq, "error"),
                         "message": "You are past the per minute request limit of your key, please wait and try "
                                    "again later."}, delay, {}
        if turn.failure == "server_error":
            return status, {"id": _id(server, seq, "error"),
                            "message": "internal server error, this has been reported to our developers"}, delay, {}
        text = step.get("text")
        calls = []
        proposed = []
        for name, args in step.get("tool_calls", []):
            call_id = f"call_{server.scenario}_{server._next_call}"
            server._next_call += 1
            calls.append({"id": call_id, "type": "function",
                          "function": {"name": name, "arguments": json.dumps(args)}})
            proposed.append({"id": call_id, "name": name, "arguments": json.dumps(args)})
        message: dict = {"role": "assistant"}
        if calls:
            message["tool_plan"] = text or _plan([c["function"]["name"] for c in calls])
            message["tool_calls"] = calls
        else:
            message["content"] = [{"type": "text", "text": text or ""}]
        if "usage" in step:
            input_tokens, output_tokens = step["usage"]
        else:
            input_tokens = _estimate_tokens({"m": messages, "t": body.get("tools")})
            output_tokens = _estimate_tokens(message) // 2 + 3
        entry.update(outcome="timeout" if delay else "ok", proposed=proposed, text=text,
                     usage=[input_tokens, output_tokens])
        counts = {"input_tokens": input_tokens, "output_tokens": output_tokens}
        payload = {
            "id": _id(server, seq, "chat"),
            "finish_reason": "TOOL_CALL" if calls else "COMPLETE",
            "message": message,
            "usage": {"billed_units": dict(counts), "tokens": dict(counts)},
        }
        return 200, payload, delay, {}
