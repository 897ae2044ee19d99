"""The Ollama chat face of the scripted fake server (`POST /api/chat`, non-streaming).

Same scripts, same request log as the OpenAI face (`fake_openai.ScriptedServer`): request *n* gets step *n*. Only the
wire shape differs (Ollama's REST API, docs/api.md "Generate a chat completion", and the Python client's
`ollama._types.ChatResponse`):

- the request holds `model`, `messages` (`{"role", "content"}`; an assistant message's earlier `tool_calls` replayed as
  `[{"function": {"name", "arguments": {...}}}]`; a tool result `{"role": "tool", "content", "tool_name"}`), `tools`
  (OpenAI-form function definitions), `stream: false` and `options` (`temperature`);
- the answer is one object: `model` (the model asked for), `created_at` (RFC 3339), `message` (`role` `assistant`,
  `content`, and `tool_calls` as above: the arguments an object, **no call id**: the API has none and the client's
  `Message.ToolCall` keeps only `function`), `done: true`, `done_reason` `stop` (also for an answer with tool calls,
  as the API's documented example shows), `prompt_eval_count` / `eval_count` and the durations in nanoseconds;
- errors: Ollama's body `{"error": "<message>"}` with the HTTP status, a 429 and a 500 as a proxy in front of Ollama
  would pass them on (the client raises `ResponseError(error, status_code)`).

The log keeps the fake server's ids for the calls it answered (`call_<scenario>_<k>`, as in the other faces, so that
the labels name the same calls). Tool results carry no id on this wire: which earlier calls a request's tool messages
answer is what the app says in `x-corpus-tool-results` (comma-separated ids, in message order), logged as
`tool_results_in_input`.
"""
from __future__ import annotations

import json

CHAT_PATH = "/api/chat"
CREATED_AT = "2026-09-21T12:00:00Z"  # fixed, so answers are deterministic
NS_PER_TOKEN = 1_000_000  # durations derived from the token counts, deterministic
ERRORS = {
    429: "rate limit exceeded, please retry after a short wait",
    500: "llama runner process has terminated: exit status 2",
}


def _estimate_tokens(obj) -> int:
    return max(1, len(json.dumps(obj, sort_keys=True)) // 4)


def is_ollama_chat(path: str) -> bool:
    return path.split("?", 1)[0].endswith(CHAT_PATH)


def _results_header(headers) -> list[str]:
    raw = headers.get("x-corpus-tool-results") or ""
    return [part for part in raw.split(",") if part]


def answer_chat(server, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
    """Answer one /api/chat request from `server`'s script; log it like the OpenAI face does."""
    with server._lock:
        seq = len(server.log) + 1
        messages = body.get("messages") or []
        entry = {
            "seq": seq,
            "path": path,
            "api": "ollama.chat",
            "otel_span": headers.get("x-corpus-otel-span"),
            "sdk_span": headers.get("x-corpus-sdk-span"),
            "agent": headers.get("x-corpus-agent"),
            "tools_offered": [(t.get("function") or {}).get("name") for t in body.get("tools") or []],
            "tool_results_in_input": _results_header(headers),
            "n_input_messages": len(messages),
            "input_texts": [m.get("content") for m in messages if isinstance(m.get("content"), str)],
        }
        server.log.append(entry)
        turn = server.take_step(entry)
        step, status, delay = turn.step, turn.status, turn.delay
        if turn.failure == "script_exhausted":
            return 500, {"error": "fake server: script exhausted"}, 0, {}
        if turn.failure == "rate_limited":
            return 429, {"error": ERRORS[429]}, delay, {"retry-after": "1"}
        if turn.failure == "server_error":
            return status, {"error": ERRORS[500]}, delay, {}
        text = step.get("text")
        message: dict = {"role": "assistant", "content": text or ""}
        proposed = []
        calls = []
        for name, args in step.get("tool_calls", []):
            call_id = f"call_{server.scenario}_{server._next_call}"
            server._next_call += 1
            calls.append({"function": {"name": name, "arguments": args}})
            proposed.append({"id": call_id, "name": name, "arguments": json.dumps(args)})
        if calls:
            message["tool_calls"] = calls
        if "usage" in step:
            prompt_tokens, output_tokens = step["usage"]
        else:
            prompt_tokens = _estimate_tokens({"m": messages, "t": body.get("tools")})
            output_tokens = _estimate_tokens(message) // 2 + 3
        entry.update(outcome="timeout" if delay else "ok", proposed=proposed, text=text,
                     usage=[prompt_tokens, output_tokens])
        prompt_ns, eval_ns = prompt_tokens * NS_PER_TOKEN // 10, output_tokens * NS_PER_TOKEN
        payload = {
            "model": body.get("model") or "llama3.2",
            "created_at": CREATED_AT,
            "message": message,
            "done": True,
            "done_reason": "stop",
            "total_duration": prompt_ns + eval_ns + 2_000_000,
            "load_duration": 2_000_000,
            "prompt_eval_count": prompt_tokens,
            "prompt_eval_duration": prompt_ns,
            "eval_count": output_tokens,
            "eval_duration": eval_ns,
        }
        return 200, payload, delay, {}
