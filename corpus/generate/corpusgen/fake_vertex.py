"""The Vertex AI face of the scripted fake server (`POST /v1/projects/<p>/locations/<l>/publishers/google/models/<m>
:generateContent`, non-streaming, as the Vertex AI SDK's REST transport sends it: with the query
`$alt=json;enum-encoding=int`).

The body is the Gemini Developer API's (`contents` / `systemInstruction` / `tools` in, `candidates` / `usageMetadata`
out, Google's error body for 429 / 500), so the answer is `fake_gemini.answer_generate_content`'s, call ids
`call_<scenario>_<k>` on the `functionCall` parts included. Two things differ, both in the log only:

- `api` is `vertex.generateContent`;
- the SDK's GA types (`google.cloud.aiplatform_v1`) have no `id` on `FunctionCall` / `FunctionResponse`: the client
  drops the ids of the answer's calls and sends its tool results without one. As for Ollama's wire
  (`fake_ollama.py`), which earlier calls a request's `functionResponse` parts answer is what the app says in
  `x-corpus-tool-results` (comma-separated ids, in part order), logged as `tool_results_in_input` when no part
  carries an id.
"""
from __future__ import annotations

from .fake_gemini import answer_generate_content

VERTEX_API = "vertex.generateContent"


def is_vertex_generate_content(path: str) -> bool:
    route = path.split("?", 1)[0]
    return "/projects/" in route and "/publishers/" in route and route.endswith(":generateContent")


def _results_header(headers) -> list[str]:
    raw = headers.get("x-corpus-tool-results") or ""
    return [part for part in raw.split(",") if part]


def answer_vertex_generate_content(server, path: str, body: dict, headers) -> tuple[int, dict, float, dict]:
    """Answer one Vertex generateContent request as the Gemini face does; log it as a Vertex request."""
    answer = answer_generate_content(server, path, body, headers)
    with server._lock:
        # The loop is sequential: the entry just logged is the last one (the face appends it under the lock).
        entry = server.log[-1]
        entry["api"] = VERTEX_API
        if not any(entry.get("tool_results_in_input") or []):
            entry["tool_results_in_input"] = _results_header(headers)
    return answer
