"""The raw agent loop of `apps/raw.py` with every model request sent by the Azure AI Inference SDK's
``ChatCompletionsClient``, traced by the SDK's own ``AIInferenceInstrumentor``; the app's workflow / agent / tool spans
are those of ``openai-v2-content-on`` (util-genai's ``TelemetryHandler``):

    .venvs/edot-azure/bin/python -m apps.azure_inference_app --lib azure-ai-inference --scenario plain_tool_use --out DIR

Each request is ``ChatCompletionsClient(endpoint=<fake server>/v1, credential=AzureKeyCredential(...),
retry_total=0).complete(model="gpt-4o-mini", messages=..., tools=..., temperature=0.2, read_timeout=1.0)``: the SDK
posts the Chat Completions body to ``<endpoint>/chat/completions?api-version=<its API version>``, which the fake
server's OpenAI face answers (its query string aside, ``corpusgen/fake_azure_inference.py``). ``retry_total=0``: no
retry of azure-core's own (the loop's one retry after a 429 is the app's); an HTTP error status raises azure-core's
``HttpResponseError`` (``status_code``), a read timeout its ``ServiceResponseError``, which ``azure_failure`` reads for
the loop.

Tracing as the SDK's documentation sets it up: azure-core's OpenTelemetry plugin (``settings.tracing_implementation =
"opentelemetry"``, ``azure-core-tracing-opentelemetry``) on the global TracerProvider, then
``AIInferenceInstrumentor().instrument()`` with content recording on through its switch
``AZURE_TRACING_GEN_AI_CONTENT_RECORDING_ENABLED=true``. The instrumentor's ``chat <model>`` span is current while
azure-core's pipeline runs; the corpus request hook (azure-core's ``raw_request_hook``, a policy ahead of its
distributed-tracing policy) names it in the request header, as for every raw loop.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import CLIENT_TIMEOUT_S, run_raw  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

from apps.raw import GenAIAdapter  # noqa: E402

_CLIENTS: dict[str, object] = {}


def _span_header_hook(pipeline_request) -> None:
    span_id = current_ids()[1]
    if span_id:
        pipeline_request.http_request.headers["x-corpus-otel-span"] = span_id


def _azure_client(base_url: str):
    """One ``ChatCompletionsClient`` per run, on the fake server's OpenAI route (``base_url`` ends in ``/v1``)."""
    if base_url not in _CLIENTS:
        from azure.ai.inference import ChatCompletionsClient
        from azure.core.credentials import AzureKeyCredential

        _CLIENTS[base_url] = ChatCompletionsClient(endpoint=base_url, credential=AzureKeyCredential("corpus-fake-key"),
                                                   retry_total=0, raw_request_hook=_span_header_hook)
    return _CLIENTS[base_url]


def azure_complete(client, **request):
    """One chat request through ``ChatCompletionsClient.complete``; the loop's OpenAI client gives the endpoint."""
    return _azure_client(str(client.base_url).rstrip("/")).complete(
        connection_timeout=CLIENT_TIMEOUT_S, read_timeout=CLIENT_TIMEOUT_S, **request)


def azure_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from ``complete`` (None: not a model-request failure)."""
    from azure.core.exceptions import HttpResponseError, ServiceResponseError

    if isinstance(exc, ServiceResponseError):
        return "infra_timeout"
    if isinstance(exc, HttpResponseError):
        return "rate_limited" if exc.status_code == 429 else "error"
    return None


class AzureInferenceAdapter(GenAIAdapter):
    """The Azure AI Inference SDK's ``AIInferenceInstrumentor`` for the model calls; util-genai's TelemetryHandler for
    the app's own spans."""

    def __init__(self) -> None:
        super().__init__(content=True)
        self.library = "azure-ai-inference"

    def setup(self, endpoint):
        from azure.ai.inference.tracing import AIInferenceInstrumentor
        from azure.core.settings import settings
        from opentelemetry.util.genai.handler import TelemetryHandler

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        settings.tracing_implementation = "opentelemetry"
        os.environ["AZURE_TRACING_GEN_AI_CONTENT_RECORDING_ENABLED"] = "true"
        AIInferenceInstrumentor().instrument()
        self.handler = TelemetryHandler(tracer_provider=self.provider)


ADAPTERS = {"azure-ai-inference": AzureInferenceAdapter}


def run_azure(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    truth.notes.append("every model request sent by azure.ai.inference.ChatCompletionsClient.complete")
    run_raw(adapter, scenario, base_url, truth, complete=azure_complete, failure=azure_failure)


def main() -> int:
    return adapters_main(ADAPTERS, run_azure)


if __name__ == "__main__":
    sys.exit(main())
