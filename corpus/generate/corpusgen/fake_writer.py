"""The fake server's Writer face: the answers of its OpenAI face to Writer's chat completion route, in Writer's form.

The Writer Python SDK (``writer-sdk``, module ``writerai``) posts ``client.chat.chat(...)`` to ``<base_url>/v1/chat``
(Writer's API reference: ``POST /v1/chat``), with a Chat Completions-shaped body (``model``, ``messages`` whose
assistant turns carry ``tool_calls`` and whose ``tool`` messages carry ``tool_call_id``, ``tools``, ``temperature``).
No other client of the fake server posts to ``/v1/chat``. The OpenAI face answers it from the same script and log as
``/v1/chat/completions``; this module rewrites that answer as Writer's API reference and the SDK's types write it:

- a successful answer (``ChatCompletion``): ``id`` a UUID (here derived from the OpenAI face's id, so it is
  deterministic), ``object`` ``chat.completion``, ``model`` the requested model, each choice's ``message`` with
  Writer's fields (``content``, ``role``, ``refusal``, ``tool_calls`` (``null`` when none, as in the reference's
  quickstart), ``graph_data``, ``llm_data``, ``translation_data``, ``web_search_data``), ``logprobs`` ``null``;
  ``usage`` the three counts with ``prompt_token_details.cached_tokens`` and
  ``completion_tokens_details.reasoning_tokens``; ``system_fingerprint`` ``v1``, ``service_tier`` ``standard``;
- an error is Writer's documented error body ``{"tpe", "errors": [{"description", "key", "extras"}], "extras"}``
  (``tpe`` ``TooManyRequests`` for the 429, ``InternalServerError`` for the 500; the ``description`` / ``key`` wording
  is the fake's own), no OpenAI rate-limit headers.

Same scripts, call ids (``call_<scenario>_<n>``), token counts and delays as the OpenAI face; only the bytes change.
"""
from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

CHAT_PATH = "/v1/chat"
SYSTEM_FINGERPRINT = "v1"
SERVICE_TIER = "standard"
# Writer's error types (`tpe`) by HTTP status, as its error reference lists them.
ERROR_TYPES = {429: "TooManyRequests", 500: "InternalServerError"}
ERROR_TEXT = {429: ("Rate limit exceeded for model {model}: too many requests per minute.", "error.rate_limit"),
              500: ("Internal server error.", "error.internal")}
_ID_NAMESPACE = uuid.UUID("6f1c3a52-0c7e-4f43-9d55-7f0e8a1b2c3d")


def is_writer_chat(path: str) -> bool:
    """A request on Writer's chat completion route (``POST /v1/chat``)."""
    return urlsplit(path).path == CHAT_PATH


def _error(status: int, model: str) -> dict:
    description, key = ERROR_TEXT.get(status, ERROR_TEXT[500])
    return {"tpe": ERROR_TYPES.get(status, ERROR_TYPES[500]),
            "errors": [{"description": description.format(model=model), "key": key, "extras": {}}], "extras": {}}


def as_writer(status: int, payload: dict, delay: float, headers: dict, body: dict) -> tuple[int, dict, float, dict]:
    """The OpenAI face's answer (status, body, delay, headers) to a request on Writer's route, in Writer's form."""
    model = body.get("model") or payload.get("model") or ""
    if status != 200:
        return status, _error(status, model), delay, {}
    if "choices" not in payload:
        return status, payload, delay, headers
    choices = []
    for choice in payload["choices"]:
        calls = choice["message"].get("tool_calls") or []
        message: dict[str, Any] = {
            "content": choice["message"].get("content"),
            "role": "assistant",
            "refusal": None,
            "tool_calls": [{"id": c["id"], "type": "function", "function": dict(c["function"]), "index": i}
                           for i, c in enumerate(calls)] or None,
            "graph_data": None,
            "llm_data": None,
            "translation_data": None,
            "web_search_data": None,
        }
        choices.append({"index": choice["index"], "finish_reason": choice["finish_reason"], "message": message,
                        "logprobs": None})
    usage = payload["usage"]
    return status, {
        "id": str(uuid.uuid5(_ID_NAMESPACE, payload["id"])),
        "object": "chat.completion",
        "choices": choices,
        "created": payload["created"],
        "model": model,
        "usage": {"prompt_tokens": usage["prompt_tokens"], "total_tokens": usage["total_tokens"],
                  "completion_tokens": usage["completion_tokens"], "prompt_token_details": {"cached_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0}},
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "service_tier": SERVICE_TIER,
    }, delay, headers
