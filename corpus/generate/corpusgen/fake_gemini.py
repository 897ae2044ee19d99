"""The Gemini Developer API face of the scripted fake server (`POST /v1beta/models/<model>:generateContent`,
non-streaming).

Same scripts, same request log as the OpenAI face (`fake_openai.ScriptedServer`): request *n* gets step *n*. Only the
wire shape differs (the REST shapes of `google.genai.types`, camelCase on the wire):

- the request holds `contents` (`{"role": "user" | "model", "parts": [...]}`; parts `text`, the model's earlier
  `functionCall` parts replayed, and `functionResponse` parts `{"id", "name", "response"}` carrying tool results),
  `systemInstruction` (a content) and `tools` (`[{"functionDeclarations": [{"name", "description", "parameters"}]}]`);
- the answer is a `GenerateContentResponse`: `candidates[0].content` (`role: "model"`) with a `text` part and / or
  `functionCall` parts (`{"id", "name", "args"}`: v1beta carries a call id; ids `call_<scenario>_<k>`, k counts tool
  calls from 1, as in the other faces, so that their labels name the same calls), `finishReason` `STOP` (the API
  says STOP for an answer with function calls too), `usageMetadata` (`promptTokenCount`, `candidatesTokenCount`,
  `totalTokenCount`), `modelVersion` and `responseId`;
- errors: Google's error body `{"error": {"code", "message", "status"}}` with HTTP 429 `RESOURCE_EXHAUSTED` (and a
  `RetryInfo` detail) or 500 `INTERNAL`.
"""
from __future__ import annotations

import json

GEMINI_MODEL_ANSWERED = "gemini-2.5-flash"


def _estimate_tokens(obj) -> int:
    return max(1, len(json.dumps(obj, sort_keys=True)) // 4)


def _parts(contents: list) -> list[dict]:
    return [p for c in contents if isinstance(c, dict) for p in c.get("parts") or [] if isinstance(p, dict)]


def _tool_results(contents: list) -> list[str | None]:
    return [(p["functionResponse"] or {}).get("id") for p in _parts(contents) if "functionResponse" in p]


def _tools_offered(tools: list) -> list[str | None]:
    return [d.get("name") for t in tools if isinstance(t, dict) for d in t.get("functionDeclarations") or []]


def _error(code: int, message: str, status: str, details: list | None = None) -> dict:
    error: dict = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = details
    return {"error": error}


def answer_generate_content(server, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
    """Answer one generateContent request from `server`'s script; log it like the OpenAI face does."""
    with server._lock:
        seq = len(server.log) + 1
        contents = body.get("contents") or []
        entry = {
            "seq": seq,
            "path": path,
            "api": "gemini.generateContent",
            "otel_span": headers.get("x-corpus-otel-span"),
            "sdk_span": headers.get("x-corpus-sdk-span"),
            "agent": headers.get("x-corpus-agent"),
            "tools_offered": _tools_offered(body.get("tools") or []),
            "tool_results_in_input": _tool_results(contents),
            "n_input_messages": len(contents),
            "input_texts": [p["text"] for p in _parts(contents) if isinstance(p.get("text"), str)],
        }
        server.log.append(entry)
        turn = server.take_step(entry)
        step, status, delay = turn.step, turn.status, turn.delay
        if turn.failure == "script_exhausted":
            return 500, _error(500, "fake server: script exhausted", "INTERNAL"), 0, {}
        if turn.failure == "rate_limited":
            return 429, _error(429, "You exceeded your current quota, please check your plan and billing details. "
                                    "Quota exceeded for metric: generativelanguage.googleapis.com/"
                                    "generate_content_free_tier_requests, limit: 10",
                               "RESOURCE_EXHAUSTED",
                               [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]), delay, {}
        if turn.failure == "server_error":
            return status, _error(status, "An internal error has occurred. Please retry or report in "
                                          "https://developers.generativeai.google/guide/troubleshooting",
                                  "INTERNAL"), delay, {}
        parts: list[dict] = []
        text = step.get("text")
        if text:
            parts.append({"text": text})
        proposed = []
        for name, args in step.get("tool_calls", []):
            call_id = f"call_{server.scenario}_{server._next_call}"
            server._next_call += 1
            parts.append({"functionCall": {"id": call_id, "name": name, "args": args}})
            proposed.append({"id": call_id, "name": name, "arguments": json.dumps(args)})
        if "usage" in step:
            prompt_tokens, output_tokens = step["usage"]
        else:
            prompt_tokens = _estimate_tokens({"c": contents, "s": body.get("systemInstruction"),
                                              "t": body.get("tools")})
            output_tokens = _estimate_tokens(parts) // 2 + 3
        entry.update(outcome="timeout" if delay else "ok", proposed=proposed, text=text,
                     usage=[prompt_tokens, output_tokens])
        payload = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": output_tokens,
                              "totalTokenCount": prompt_tokens + output_tokens,
                              "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt_tokens}]},
            "modelVersion": GEMINI_MODEL_ANSWERED,
            "responseId": f"resp_{server.scenario}_{seq}",
        }
        return 200, payload, delay, {}
