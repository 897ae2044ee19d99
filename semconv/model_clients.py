"""Model-client SDKs, named by the modules their exceptions come from: the names we read.

An instrumentation records an exception's type with its module (``anthropic.InternalServerError``,
``openai.APITimeoutError``; OpenInference and the OTel SDK write ``exception.type`` so): an error whose type lies in one
of these modules came from a request to a model, whichever span it surfaced on.
"""

from __future__ import annotations

from typing import Final

ERROR_MODULES: Final = ("anthropic", "openai", "google.genai", "cohere", "mistralai", "groq", "ollama", "litellm",
                        "writerai")
"""Top-level modules of the model-client SDKs agents call (the Anthropic, OpenAI, Google Gen AI, Cohere, Mistral AI,
Groq, Ollama, LiteLLM and Writer Python SDKs)."""

AWS_CLIENT_MODULE: Final = "botocore"
"""Top-level module of botocore, the AWS SDK for Python's core. Its errors come from a request to any AWS service:
one is a model request's only when its text names a Bedrock Runtime model operation
(:data:`BEDROCK_RUNTIME_OPERATIONS`, :data:`BEDROCK_RUNTIME_PATHS`)."""

BEDROCK_RUNTIME_OPERATIONS: Final = frozenset({"Converse", "ConverseStream", "InvokeModel",
                                               "InvokeModelWithResponseStream"})
"""Bedrock Runtime's model operations, as botocore's ``ClientError`` text names them (``An error occurred
(ThrottlingException) when calling the ConverseStream operation ...``)."""

BEDROCK_RUNTIME_PATHS: Final = frozenset({"converse", "converse-stream", "invoke", "invoke-with-response-stream"})
"""Last path segment of those operations' requests (``/model/<modelId>/<segment>``), as botocore's connection errors
quote the endpoint URL (``Read timeout on endpoint URL: "https://.../model/<modelId>/converse-stream"``)."""
