"""A scripted fake OpenAI-compatible server (`POST /v1/chat/completions`; `"stream": true` gets the same answer as
server-sent events in the API's chunk shapes (`_sse`), then a usage chunk when `stream_options.include_usage` asks for
it; an error status or a delay comes before any event, as the API refuses or stalls a request before it streams).

Each request is answered with the next step of the scenario's script. Everything the server receives and answers
is logged: that log is the ground truth for model calls (which request proposed which tool-call id, which request
carried which tool result, which request failed and how). The app adds an `x-corpus-otel-span` header (the OTel span
that is current when the HTTP request is sent, i.e. the instrumentation's model-call span) and, under the Agents SDK,
`x-corpus-sdk-span` (the SDK's current span id); both are logged against the request's sequence number.

`POST /v1/messages` answers the same script in the Anthropic Messages API shape (see `fake_anthropic.py`): content
blocks `text` / `tool_use` (ids `toolu_<scenario>_<n>`), `stop_reason` `tool_use` / `end_turn`, usage as
`input_tokens` / `output_tokens`, and Anthropic-style error bodies for 429 / 500; `"stream": true` there gets the
same answer as the API's server-sent events (`fake_anthropic.sse_message`), and `/v1/messages?beta=true` (the Claude
Code CLI's path) is the same route.

`POST /model/<modelId>/converse` answers it in the Amazon Bedrock Converse API shape (see `fake_bedrock.py`):
`text` / `toolUse` content blocks (ids `tooluse_<scenario>_<n>`), `stopReason` `tool_use` / `end_turn`, usage as
`inputTokens` / `outputTokens`, Bedrock's `ThrottlingException` / `InternalServerException` for 429 / 500;
`POST /model/<modelId>/converse-stream` gets the same answer as ConverseStream's `application/vnd.amazon.eventstream`
events (see `fake_bedrock_stream.py`).

`POST /v1/responses` answers it in the OpenAI Responses API shape (see `fake_responses.py`, non-streaming): a
`response` whose `output` holds a `message` item and / or `function_call` items (the same call ids
`call_<scenario>_<k>`), usage as `input_tokens` / `output_tokens`, tool results read from `function_call_output` input
items.

`POST /v1beta/models/<model>:generateContent` answers it in the Gemini Developer API shape (see `fake_gemini.py`,
non-streaming): `candidates[0].content.parts` with `text` / `functionCall` parts (the same call ids), `usageMetadata`,
and Google's error body (`RESOURCE_EXHAUSTED` / `INTERNAL`) for 429 / 500.

`POST /v1/projects/<p>/locations/<l>/publishers/google/models/<model>:generateContent` (Vertex AI's route, the
Vertex AI SDK's REST transport) gets the Gemini face's answer (see `fake_vertex.py`).

`POST /v2/chat` answers it in the Cohere Chat API v2 shape (see `fake_cohere.py`, non-streaming): `message` with
`content` text blocks or `tool_plan` and `tool_calls` (the same call ids), `finish_reason` `COMPLETE` / `TOOL_CALL`,
`usage` as `billed_units` and `tokens`, and Cohere's error body for 429 / 500.
`POST /api/chat` answers it in Ollama's chat API shape (see `fake_ollama.py`, non-streaming): `message` with
`tool_calls` whose arguments are objects and which carry no id, `prompt_eval_count` / `eval_count`, Ollama's
`{"error": ...}` body for 429 / 500.

A request from the Mistral AI Python SDK (its `user-agent`) on `/v1/chat/completions` gets this face's answer rewritten in
Mistral's form (see `fake_mistral.py`): the requested model, Mistral's fields, Mistral's error body.

`POST /openai/v1/chat/completions` (Groq's OpenAI-compatible route, where the Groq Python SDK posts) gets this face's
answer rewritten in Groq's form (see `fake_groq.py`): the requested model, Groq's usage timings and `x_groq`, Groq's
error wording.

`POST /v1/chat/completions?api-version=<version>` (where the Azure AI Inference SDK's `ChatCompletionsClient` posts) is
this face's route, answered as it is (see `fake_azure_inference.py`).

`POST /v1/chat` (Writer's chat completion route, where the Writer Python SDK's `client.chat.chat` posts a Chat
Completions-shaped body) gets this face's answer rewritten in Writer's form (see `fake_writer.py`): a UUID id, the
requested model, Writer's message fields, Writer's error body.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .fake_azure_inference import is_azure_inference_chat
from .fake_bedrock_stream import CONTENT_TYPE as EVENTSTREAM
from .fake_bedrock_stream import answer_converse_stream, event_stream, is_converse_stream
from .fake_groq import as_groq, is_groq
from .fake_mistral import as_mistral, is_mistral
from .fake_writer import as_writer, is_writer_chat

MODEL_ANSWERED = "gpt-4o-mini-2024-07-18"
CREATED = 1790000000  # fixed, so responses are deterministic


def _estimate_tokens(obj) -> int:
    return max(1, len(json.dumps(obj, sort_keys=True)) // 4)


def _ids_in_text(scenario: str, messages: list) -> list[str]:
    pattern = re.compile(rf"call_{re.escape(scenario)}_\d+")
    found: list[str] = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        texts = [content] if isinstance(content, str) else [
            p.get("text") for p in content or [] if isinstance(p, dict) and isinstance(p.get("text"), str)]
        for text in texts:
            for call_id in pattern.findall(text or ""):
                if call_id not in found:
                    found.append(call_id)
    return found


def _render_fields(fields: dict, as_json: bool) -> str:
    """A structured answer as DSPy's ChatAdapter reads it (`[[ ## field ## ]]` sections), or as the JSON object its
    JSONAdapter asks for with `response_format`."""
    if as_json:
        return json.dumps(fields)
    parts = [f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
             for name, value in fields.items()]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


def _pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def _sse(payload: dict, include_usage: bool) -> bytes:
    """A chat completion as `chat.completion.chunk` events, in the shape the API streams: a first delta with the role
    (and empty content when the answer has text), the text in fragments, each tool call opened by a delta with its
    `index`, `id`, type and name (arguments empty), its arguments in fragments carrying only the `index`, then an empty
    delta with the finish reason; with `stream_options.include_usage` every chunk has `"usage": null` and one more
    chunk without choices carries the usage."""
    choice = payload["choices"][0]
    message = choice["message"]
    base = {k: payload[k] for k in ("id", "created", "model", "system_fingerprint", "service_tier")}
    base["object"] = "chat.completion.chunk"
    deltas: list[dict] = []
    text = message.get("content")
    first: dict = {"role": "assistant", "content": "" if text else None, "refusal": None}
    if text:
        deltas.append(first)
        deltas += [{"content": piece} for piece in _pieces(text, 12)]
    for i, call in enumerate(message.get("tool_calls") or []):
        opening = {"index": i, "id": call["id"], "type": "function",
                   "function": {"name": call["function"]["name"], "arguments": ""}}
        if deltas:
            deltas.append({"tool_calls": [opening]})
        else:
            deltas.append(dict(first, tool_calls=[opening]))
        deltas += [{"tool_calls": [{"index": i, "function": {"arguments": piece}}]}
                   for piece in _pieces(call["function"]["arguments"], 6)]
    if not deltas:
        deltas.append(first)
    finals = [None] * len(deltas) + [choice["finish_reason"]]
    chunks = [dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])
              for delta, finish in zip([*deltas, {}], finals, strict=True)]
    if include_usage:
        chunks = [dict(c, usage=None) for c in chunks] + [dict(base, choices=[], usage=payload["usage"])]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


@dataclass(slots=True)
class Turn:
    """A request's step of the script (:meth:`ScriptedServer.take_step`)."""

    step: dict
    status: int
    delay: float
    failure: str | None
    """`script_exhausted` (no step left: answered 500), `rate_limited` (429), `server_error` (5xx), else None."""


class ScriptedServer:
    """Answers requests from `steps` in order.

    A step is a dict with one of:
      {"text": "..."}                                   assistant answer, finish_reason "stop"
      {"tool_calls": [("name", {args}), ...]}           tool calls, ids call_<scenario>_<n> (n counts from 1)
      {"tool_calls": [...], "text": "..."}               both
      {"status": 429 | 500}                             an HTTP error with an OpenAI-style error body
      {"delay": seconds, ...}                           sleep before answering (beyond the client timeout)
      {"fields": {name: value, ...}}                    a structured text answer (DSPy's adapters): rendered as
                                                        `[[ ## name ## ]]` sections ending in `[[ ## completed ## ]]`,
                                                        or as one JSON object when the request sets `response_format`
    and optionally "usage": (prompt_tokens, completion_tokens) to override the estimate, and "text_tool_calls":
    [("name", {args}), ...]: tool calls the answer's text expresses (no `tool_calls` on the wire), logged as proposed
    with the ids the server would have given them.
    """

    def __init__(self, scenario: str, steps: list[dict]):
        self.scenario = scenario
        self.steps = list(steps)
        self.log: list[dict] = []
        self._lock = threading.Lock()
        self._next_call = 1
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def start(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # silence
                pass

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, payload, delay, headers = server._answer(self.path, body, self.headers)
                if is_mistral(self.headers):
                    status, payload, delay, headers = as_mistral(status, payload, delay, headers, body)
                elif is_groq(self.path):
                    status, payload, delay, headers = as_groq(status, payload, delay, headers, body)
                elif is_writer_chat(self.path):
                    status, payload, delay, headers = as_writer(status, payload, delay, headers, body)
                if delay:
                    time.sleep(delay)
                stream = status == 200 and bool(body.get("stream")) and "choices" in payload
                content_type = "text/event-stream"
                if status == 200 and is_converse_stream(self.path):
                    stream, data, content_type = True, event_stream(payload), EVENTSTREAM
                elif status == 200 and body.get("stream") and payload.get("type") == "message":
                    from .fake_anthropic import sse_message
                    stream, data = True, sse_message(payload)
                elif stream:
                    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                    data = _sse(payload, include_usage)
                else:
                    data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", content_type if stream else "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    # -- answering ---------------------------------------------------------------------------------------------
    def take_step(self, entry: dict) -> Turn:
        """The script's step for the request `entry` logs (by its `seq`), with its status, delay and failure recorded on
        the entry as every face logs them. The caller holds the lock and has put the entry in the log."""
        seq = entry["seq"]
        if seq > len(self.steps):
            entry.update(status=500, outcome="script_exhausted")
            return Turn({}, 500, 0.0, "script_exhausted")
        step = self.steps[seq - 1]
        delay = float(step.get("delay", 0))
        status = int(step.get("status", 200))
        entry["status"] = status
        if delay:
            entry["delay_s"] = delay
        failure = "rate_limited" if status == 429 else "server_error" if status >= 500 else None
        if failure:
            entry["outcome"] = failure
        return Turn(step, status, delay, failure)

    def _answer(self, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
        from .fake_bedrock import answer_converse, is_converse
        if is_converse(path):
            return answer_converse(self, path, body, headers)
        if is_converse_stream(path):
            return answer_converse_stream(self, path, body, headers)
        from .fake_vertex import answer_vertex_generate_content, is_vertex_generate_content
        if is_vertex_generate_content(path):
            return answer_vertex_generate_content(self, path, body, headers)
        if "?" in path or path.endswith("/count_tokens"):  # the Claude Code CLI's `/v1/messages?beta=true`
            from .fake_anthropic import answer_aside, answer_messages, is_aside
            if is_aside(path, body):
                return answer_aside(self, path, body)
            if path.split("?", 1)[0].endswith("/messages"):
                return answer_messages(self, path, body, headers)
        if path.endswith("/messages"):
            from .fake_anthropic import answer_messages
            return answer_messages(self, path, body, headers)
        if path.endswith("/responses"):
            from .fake_responses import answer_responses
            return answer_responses(self, path, body, headers)
        if path.endswith(":generateContent"):
            from .fake_gemini import answer_generate_content
            return answer_generate_content(self, path, body, headers)
        if path.endswith("/v2/chat"):
            from .fake_cohere import answer_chat
            return answer_chat(self, path, body, headers)
        if path.endswith("/api/chat"):
            from .fake_ollama import answer_chat
            return answer_chat(self, path, body, headers)
        with self._lock:
            seq = len(self.log) + 1
            messages = body.get("messages") or []
            entry = {
                "seq": seq,
                "path": path,
                "otel_span": headers.get("x-corpus-otel-span"),
                "sdk_span": headers.get("x-corpus-sdk-span"),
                "agent": headers.get("x-corpus-agent"),
                "tools_offered": [t.get("function", {}).get("name") for t in body.get("tools") or []],
                "tool_results_in_input": [m.get("tool_call_id") for m in messages if m.get("role") == "tool"],
                # ids of this server's earlier tool calls quoted in message text (frameworks that replay tool calls
                # and results as plain text, e.g. smolagents' "Calling tools: [{'id': 'call_…', ...}]")
                "tool_call_ids_in_text": _ids_in_text(self.scenario, messages),
                "n_input_messages": len(messages),
                # the text of every input message (for apps whose framework replays tool results as text without ids)
                "input_texts": [m.get("content") for m in messages if isinstance(m.get("content"), str)],
            }
            self.log.append(entry)
            if not (path.endswith("/chat/completions") or is_azure_inference_chat(path) or is_writer_chat(path)):
                entry.update(status=404, outcome="not_found")
                return 404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}}, 0, {}
            turn = self.take_step(entry)
            step, status, delay = turn.step, turn.status, turn.delay
            if turn.failure == "script_exhausted":
                return 500, {"error": {"message": "fake server: script exhausted", "type": "server_error"}}, 0, {}
            if turn.failure == "rate_limited":
                return 429, {"error": {"message": "Rate limit reached for gpt-4o-mini in organization org-fake on "
                                                  "requests per min (RPM): Limit 3, Used 3, Requested 1.",
                                       "type": "requests", "param": None, "code": "rate_limit_exceeded"}}, delay, {
                    "retry-after-ms": "100", "x-ratelimit-remaining-requests": "0"}
            if turn.failure == "server_error":
                return status, {"error": {"message": "The server had an error while processing your request. Sorry "
                                                     "about that!", "type": "server_error", "param": None,
                                          "code": None}}, delay, {}
            tool_calls = []
            for name, args in step.get("tool_calls", []):
                call_id = f"call_{self.scenario}_{self._next_call}"
                self._next_call += 1
                tool_calls.append({"id": call_id, "type": "function",
                                   "function": {"name": name, "arguments": json.dumps(args)}})
            for name, args in step.get("text_tool_calls", []):
                tool_calls.append({"id": f"call_{self.scenario}_{self._next_call}", "in_text": True,
                                   "function": {"name": name, "arguments": json.dumps(args)}})
                self._next_call += 1
            text = _render_fields(step["fields"], bool(body.get("response_format"))) if "fields" in step \
                else step.get("text")
            wire_calls = [c for c in tool_calls if not c.get("in_text")]
            message: dict = {"role": "assistant", "content": text, "refusal": None}
            if wire_calls:
                message["tool_calls"] = wire_calls
            finish = "tool_calls" if wire_calls else "stop"
            if "usage" in step:
                prompt_tokens, completion_tokens = step["usage"]
            else:
                prompt_tokens = _estimate_tokens({"m": messages, "t": body.get("tools")})
                completion_tokens = _estimate_tokens(message) // 2 + 3
            entry.update(outcome="timeout" if delay else "ok",
                         proposed=[{"id": c["id"], "name": c["function"]["name"],
                                    "arguments": c["function"]["arguments"]} for c in tool_calls],
                         text=text, usage=[prompt_tokens, completion_tokens])
            payload = {
                "id": f"chatcmpl-{self.scenario}-{seq}",
                "object": "chat.completion",
                "created": CREATED + seq,
                "model": MODEL_ANSWERED,
                "system_fingerprint": "fp_fake0001",
                "service_tier": "default",
                "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens,
                          "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                          "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                                        "accepted_prediction_tokens": 0,
                                                        "rejected_prediction_tokens": 0}},
            }
            return 200, payload, delay, {"x-request-id": f"req_{self.scenario}_{seq}"}
