"""Model-client SDKs, named by the modules their exceptions come from: the names we read.

An instrumentation records an exception's type with its module (``anthropic.InternalServerError``,
``openai.APITimeoutError``; OpenInference and the OTel SDK write ``exception.type`` so): an error whose type lies in one
of these modules came from a request to a model, whichever span it surfaced on.
"""

from __future__ import annotations

from typing import Final

ERROR_MODULES: Final = ("anthropic", "openai", "google.genai", "cohere", "mistralai", "groq", "ollama", "litellm")
"""Top-level modules of the model-client SDKs agents call (the Anthropic, OpenAI, Google Gen AI, Cohere, Mistral AI,
Groq, Ollama and LiteLLM Python SDKs)."""
