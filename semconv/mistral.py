"""Names of the Mistral AI Python SDK's own tracing (``mistralai`` 1.12, ``mistralai/_hooks/tracing.py`` and
``mistralai/extra/observability/otel.py``; the same hook in 3.7 under ``mistralai.client``).

With an SDK tracer provider installed as the global one, the SDK opens a span per HTTP operation from its
request hooks: named by the operation id (``chat_completion_v1_chat_completions_post``), never made current, with the
request's ``http.*`` and ``gen_ai.request.*`` attributes and, on a response, ``mistral_ai.operation.id``,
``gen_ai.provider.name`` ``mistral_ai`` and the usage; an error response's Mistral body goes to
``mistral_ai.error.*``; a request that got no response (a timeout) leaves its span unended, never exported.
"""

from __future__ import annotations

from typing import Final

SDK_SCOPE: Final = "mistralai_sdk_tracer"
"""Instrumentation scope of the SDK's own spans (``MISTRAL_SDK_OTEL_TRACER_NAME``)."""
PROVIDER: Final = "mistral"
"""What a provider name that names Mistral contains once lower-cased and stripped of ``_`` / ``-`` / spaces
(``MistralAI``, ``mistralai``, ``mistral_ai``)."""
