"""The Azure AI Inference SDK's chat completions route on the fake server's OpenAI face (Frameworks CE).

``ChatCompletionsClient.complete`` posts an OpenAI-shaped Chat Completions body to ``<endpoint>/chat/completions`` with
the API version as a query parameter (``?api-version=2024-05-01-preview``) and reads an OpenAI-shaped answer; the
OpenAI face answers it as it is, the query string aside (kept in the logged path).
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit


def is_azure_inference_chat(path: str) -> bool:
    """A chat completions request that names its API version in the query, as the Azure AI Inference SDK sends it."""
    parts = urlsplit(path)
    return parts.path.endswith("/chat/completions") and "api-version" in parse_qs(parts.query)
