"""The fake server's Mistral face: the answers of its OpenAI face to the Mistral AI Python SDK, in Mistral's form.

The SDK (``mistralai``, every release: its ``CustomUserAgentHook`` sets ``user-agent: mistral-client-python/<version>``)
posts Chat Completions requests to ``/v1/chat/completions``, the OpenAI face's route, and its models parse that face's
answers as they are. What differs is what the SDK's own tracing and its errors show of an answer:

- a successful answer names the model the request asked for and carries only Mistral's fields (no
  ``system_fingerprint`` / ``service_tier`` / ``refusal`` / ``logprobs``; ``content`` ``""`` beside tool calls, each
  call with its ``index``; ``usage`` the three counts);
- an error is Mistral's body ``{"object": "error", "message", "type", "param", "code"}`` (the 429 as public reports of
  the API show it: ``rate_limited``, code ``"1300"``; the 500 in the same form), which the SDK's tracing hook records on
  its span (``http.response.status_code``, ``mistral_ai.error.*``) and its ``SDKError`` quotes; no OpenAI rate-limit
  headers.

Same scripts, ids (``call_<scenario>_<n>``, not Mistral's nine-character ids), token counts and delays as the OpenAI
face; only the bytes of the answer change.
"""
from __future__ import annotations

from typing import Any

USER_AGENT_PREFIX = "mistral-client-python/"
ERRORS = {
    429: {"object": "error", "message": "Rate limit exceeded", "type": "rate_limited", "param": None, "code": "1300"},
    500: {"object": "error", "message": "Internal server error", "type": "internal_server_error", "param": None,
          "code": None},
}


def is_mistral(headers) -> bool:
    return (headers.get("user-agent") or "").startswith(USER_AGENT_PREFIX)


def as_mistral(status: int, payload: dict, delay: float, headers: dict,
               body: dict) -> tuple[int, dict, float, dict]:
    """The OpenAI face's answer (status, body, delay, headers) to a Mistral SDK request, in Mistral's form."""
    if status != 200:
        return status, dict(ERRORS.get(status, ERRORS[500])), delay, {}
    if "choices" not in payload:
        return status, payload, delay, headers
    choices = []
    for choice in payload["choices"]:
        message: dict[str, Any] = {"role": "assistant", "content": choice["message"].get("content") or ""}
        calls = choice["message"].get("tool_calls") or []
        if calls:
            message["tool_calls"] = [{"id": c["id"], "type": "function", "function": dict(c["function"]), "index": i}
                                     for i, c in enumerate(calls)]
        choices.append({"index": choice["index"], "message": message, "finish_reason": choice["finish_reason"]})
    usage = payload["usage"]
    return status, {
        "id": payload["id"],
        "object": "chat.completion",
        "model": body.get("model") or payload["model"],
        "created": payload["created"],
        "choices": choices,
        "usage": {k: usage[k] for k in ("prompt_tokens", "completion_tokens", "total_tokens")},
    }, delay, headers
