"""The OpenAI Responses API face of the scripted fake server (`POST /v1/responses`, non-streaming).

Same scripts, same request log as the Chat Completions face (`fake_openai.ScriptedServer`): request *n* gets step *n*.
Only the wire shape differs (the shapes of the `openai` client's `types/responses`):

- the request's `input` is a list of items: messages (`{"role", "content"}`, or `type: "message"` with `output_text` /
  `input_text` parts), the model's earlier `function_call` items (`call_id`, `name`, `arguments`) replayed, and
  `function_call_output` items (`call_id`, `output`) carrying tool results; `instructions` holds the system prompt,
  `tools` flat function tools (`{"type": "function", "name", "description", "parameters", "strict"}`);
- the answer is a `response` object (`status: "completed"`) whose `output` holds an assistant `message` item
  (`output_text` part) and / or `function_call` items: call ids `call_<scenario>_<k>` (k counts tool calls from 1, as
  in Chat Completions, so that the labels of the two faces name the same calls), item ids `fc_<scenario>_<k>`; the
  request's instructions, tools, tool choice, temperature and parallel-tool-calls setting are echoed, as the API does;
  `usage` as `input_tokens` / `output_tokens` / `total_tokens` with their details;
- errors: the OpenAI error body (`{"error": {"message", "type", "param", "code"}}`) with HTTP 429 (and the
  rate-limit headers) or 500; a request asking to stream gets HTTP 400 (this face answers whole responses only).
"""
from __future__ import annotations

import json

from .fake_openai import CREATED, MODEL_ANSWERED, _estimate_tokens, _ids_in_text, _render_fields


def _tool_results(items: list) -> list[str]:
    return [i.get("call_id") for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]


def _input_texts(items: list) -> list[str]:
    """The text of every message item (plain `content` strings and the `text` of content parts)."""
    texts: list[str] = []
    for item in items:
        if not isinstance(item, dict) or item.get("type") not in (None, "message"):
            continue
        content = item.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return texts


def _text_items(items: list) -> list[dict]:
    """Message-like views of the input items, for `_ids_in_text` (a tool output read as a message's content)."""
    out = []
    for item in items:
        if isinstance(item, dict) and item.get("type") == "function_call_output" and isinstance(item.get("output"),
                                                                                                 str):
            out.append({"content": item["output"]})
        elif isinstance(item, dict):
            out.append(item)
    return out


def _error(message: str, type_: str, code: str | None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def answer_responses(server, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
    """Answer one Responses API request from `server`'s script; log it like the Chat Completions face does."""
    with server._lock:
        seq = len(server.log) + 1
        raw_input = body.get("input")
        items = [{"role": "user", "content": raw_input}] if isinstance(raw_input, str) else list(raw_input or [])
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
        entry = {
            "seq": seq,
            "path": path,
            "api": "openai.responses",
            "otel_span": headers.get("x-corpus-otel-span"),
            "sdk_span": headers.get("x-corpus-sdk-span"),
            "agent": headers.get("x-corpus-agent"),
            "tools_offered": [t.get("name") for t in tools if t.get("type") == "function"],
            "tool_results_in_input": _tool_results(items),
            "tool_call_ids_in_text": _ids_in_text(server.scenario, _text_items(items)),
            "n_input_messages": len(items),
            "input_texts": _input_texts(items),
        }
        server.log.append(entry)
        request_id = {"x-request-id": f"req_{server.scenario}_{seq}"}
        if body.get("stream"):
            entry.update(status=400, outcome="stream_not_supported")
            return 400, _error("fake server: streamed responses are not scripted", "invalid_request_error",
                               None), 0, request_id
        turn = server.take_step(entry)
        step, status, delay = turn.step, turn.status, turn.delay
        if turn.failure == "script_exhausted":
            return 500, _error("fake server: script exhausted", "server_error", None), 0, request_id
        if turn.failure == "rate_limited":
            return 429, _error("Rate limit reached for gpt-4o-mini in organization org-fake on requests per min "
                                    "(RPM): Limit 3, Used 3, Requested 1.", "requests", "rate_limit_exceeded"), \
                delay, {**request_id, "retry-after-ms": "100", "x-ratelimit-remaining-requests": "0"}
        if turn.failure == "server_error":
            return status, _error("The server had an error while processing your request. Sorry about that!",
                                  "server_error", None), delay, request_id
        text_format = (body.get("text") or {}).get("format") or {"type": "text"}
        text = _render_fields(step["fields"], text_format.get("type") != "text") if "fields" in step \
            else step.get("text")
        output: list[dict] = []
        if text:
            output.append({"id": f"msg_{server.scenario}_{seq}", "type": "message", "status": "completed",
                           "role": "assistant",
                           "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]})
        proposed = []
        for name, args in step.get("tool_calls", []):
            k = server._next_call
            server._next_call += 1
            call_id = f"call_{server.scenario}_{k}"
            arguments = json.dumps(args)
            output.append({"id": f"fc_{server.scenario}_{k}", "type": "function_call", "status": "completed",
                           "call_id": call_id, "name": name, "arguments": arguments})
            proposed.append({"id": call_id, "name": name, "arguments": arguments})
        if "usage" in step:
            input_tokens, output_tokens = step["usage"]
        else:
            input_tokens = _estimate_tokens({"m": items, "i": body.get("instructions"), "t": body.get("tools")})
            output_tokens = _estimate_tokens(output) // 2 + 3
        entry.update(outcome="timeout" if delay else "ok", proposed=proposed, text=text,
                     usage=[input_tokens, output_tokens])
        payload = {
            "id": f"resp_{server.scenario}_{seq}",
            "object": "response",
            "created_at": CREATED + seq,
            "completed_at": CREATED + seq,
            "status": "completed",
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "max_tool_calls": None,
            "model": MODEL_ANSWERED,
            "output": output,
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": body.get("previous_response_id"),
            "prompt_cache_key": None,
            "reasoning": {"effort": None, "summary": None},
            "safety_identifier": None,
            "service_tier": "default",
            "store": body.get("store", True),
            "temperature": body.get("temperature", 1.0),
            "text": {"format": text_format, "verbosity": "medium"},
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": tools,
            "top_logprobs": 0,
            "top_p": body.get("top_p", 1.0),
            "truncation": body.get("truncation", "disabled"),
            "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": input_tokens + output_tokens},
            "user": None,
            "metadata": body.get("metadata") or {},
        }
        return 200, payload, delay, request_id
