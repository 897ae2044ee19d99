"""The fake server's Groq face: the answers of its OpenAI face to the Groq API's route, in Groq's form.

The Groq Python SDK (``groq``) posts Chat Completions requests to ``<base_url>/openai/v1/chat/completions``, Groq's
OpenAI-compatible route, and its models parse the OpenAI face's answers as they are. A request on that route (no other
client of the fake server uses the ``/openai/v1/`` prefix) gets the OpenAI face's answer rewritten as Groq's API
writes it:

- a successful answer names the model the request asked for and carries Groq's fields: ``usage`` with Groq's
  timings beside the three counts (``queue_time``, ``prompt_time``, ``completion_time``, ``total_time``, in seconds,
  fixed here: derived from the token counts), ``x_groq.id`` (Groq's request id: the OpenAI face's
  ``x-request-id``), ``service_tier`` ``on_demand``, and no OpenAI-only fields (``refusal``, the usage details); an
  assistant message that only calls tools has no ``content``;
- an error keeps the OpenAI form of body Groq uses (``{"error": {"message", "type", "code"}}``), with Groq's wording:
  the 429 a requests-per-minute limit on the requested model (``type`` ``requests``, ``code``
  ``rate_limit_exceeded``) and a ``retry-after`` header in seconds, as Groq sends on a 429; the 500 an
  ``internal_server_error``.

Same scripts, call ids (``call_<scenario>_<n>``), token counts and delays as the OpenAI face; only the bytes of the
answer change.
"""
from __future__ import annotations

from typing import Any

PATH_PREFIX = "/openai/v1/"
# Fixed timings (seconds) so that answers are deterministic: Groq reports these per request.
QUEUE_TIME_S = 0.012
PROMPT_S_PER_TOKEN = 0.00002
COMPLETION_S_PER_TOKEN = 0.004


def is_groq(path: str) -> bool:
    return path.startswith(PATH_PREFIX)


def _error(status: int, model: str) -> dict:
    if status == 429:
        return {"error": {"message": f"Rate limit reached for model `{model}` in organization `org_corpus_fake` "
                                     "service tier `on_demand` on requests per minute (RPM): Limit 30, Used 30, "
                                     "Requested 1. Please try again in 1s.",
                          "type": "requests", "code": "rate_limit_exceeded"}}
    return {"error": {"message": "Internal Server Error", "type": "internal_server_error"}}


def as_groq(status: int, payload: dict, delay: float, headers: dict, body: dict) -> tuple[int, dict, float, dict]:
    """The OpenAI face's answer (status, body, delay, headers) to a request on Groq's route, in Groq's form."""
    model = body.get("model") or payload.get("model") or ""
    if status != 200:
        return status, _error(status, model), delay, {"retry-after": "1"} if status == 429 else {}
    if "choices" not in payload:
        return status, payload, delay, headers
    choices = []
    for choice in payload["choices"]:
        message: dict[str, Any] = {"role": "assistant"}
        if choice["message"].get("content") is not None:
            message["content"] = choice["message"]["content"]
        if choice["message"].get("tool_calls"):
            message["tool_calls"] = [{"id": c["id"], "type": "function", "function": dict(c["function"])}
                                     for c in choice["message"]["tool_calls"]]
        choices.append({"index": choice["index"], "message": message, "logprobs": None,
                        "finish_reason": choice["finish_reason"]})
    usage = payload["usage"]
    prompt_time = round(usage["prompt_tokens"] * PROMPT_S_PER_TOKEN, 6)
    completion_time = round(usage["completion_tokens"] * COMPLETION_S_PER_TOKEN, 6)
    return status, {
        "id": payload["id"],
        "object": "chat.completion",
        "created": payload["created"],
        "model": model,
        "choices": choices,
        "usage": {"queue_time": QUEUE_TIME_S, "prompt_tokens": usage["prompt_tokens"], "prompt_time": prompt_time,
                  "completion_tokens": usage["completion_tokens"], "completion_time": completion_time,
                  "total_tokens": usage["total_tokens"], "total_time": round(prompt_time + completion_time, 6)},
        "usage_breakdown": None,
        "system_fingerprint": payload.get("system_fingerprint"),
        "x_groq": {"id": headers.get("x-request-id") or payload["id"]},
        "service_tier": "on_demand",
    }, delay, headers
