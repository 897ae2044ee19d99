"""The raw agent loop of `apps/raw.py` on the Mistral AI Python SDK (`client.chat.complete` with `tools`), traced two
ways, each in its own venv (the two instrumentations want different SDK layouts):

    .venvs/mistral/bin/python -m apps.mistral_app --lib openinference-mistral --scenario plain_tool_use --out DIR
    .venvs/traceloop-mistral/bin/python -m apps.mistral_app --lib traceloop-mistral --scenario plain_tool_use --out DIR

Each request is ``Mistral(server_url=<fake server>, ...).chat.complete(model="mistral-small-latest", messages=...,
tools=..., temperature=0.2)``: the SDK posts to ``<server_url>/v1/chat/completions`` a body of the Chat Completions
shape (OpenAI-form tool definitions, ``tool`` messages with ``tool_call_id``), which the fake server's OpenAI face
answers; its Mistral face (``corpusgen/fake_mistral.py``, chosen by the SDK's user agent) rewrites the answer in
Mistral's form (the requested model, Mistral's fields and error body). The SDK retries nothing unless given a retry configuration (none here: one request per ``complete()``, the loop's
one retry after a 429 is the app's); an HTTP error status raises its ``SDKError`` (``status_code``), a timeout the
HTTP client's own ``TimeoutException`` (httpx for the 1.x SDK, httpx2 for 2.x and later), which ``mistral_failure``
reads for the loop.

- ``openinference-mistral``: ``openinference-instrumentation-mistralai`` (an LLM span ``MistralClient.chat`` per call,
  current while the SDK sends the request; SDK 2.x and later) and the ``OITracer`` chain / agent / tool decorators of
  ``openinference-openai``, on the corpus OTLP pipeline.
- ``traceloop-mistral``: OpenLLMetry's ``opentelemetry-instrumentation-mistralai`` (a ``mistralai.chat`` span per call;
  content as indexed ``gen_ai.prompt.*`` / ``gen_ai.completion.*`` attributes with ``TRACELOOP_TRACE_CONTENT=true``;
  SDK 1.x, whose ``mistralai.models`` it imports) and traceloop-sdk's ``@workflow`` / ``@agent`` / ``@tool`` decorators.

Ground truth: which span recorded which request. OpenInference's span is current while the SDK sends the request, so
the request header names it (as for every raw loop). OpenLLMetry starts its span without making it current, so the
header names the agent span around it; a span processor notes each ``mistralai.chat`` span by parent, in start order,
and the n-th request sent under an agent span is the n-th such span under it (``model_span_for``, as litellm-otel's).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import CLIENT_TIMEOUT_S, run_raw  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402
from opentelemetry.sdk.trace import SpanProcessor  # noqa: E402

from apps.raw import OpenInferenceAdapter, TraceloopAdapter  # noqa: E402

MISTRAL_MODEL = "mistral-small-latest"

try:  # the SDK's 2.x layout (and later): everything under `mistralai.client`, on httpx2
    import httpx2 as sdk_httpx
    from mistralai.client import Mistral
    from mistralai.client.errors import SDKError
except ImportError:  # the 1.x layout, on httpx
    import httpx as sdk_httpx
    from mistralai import Mistral
    from mistralai.models import SDKError


def _span_header_hook(request) -> None:
    span_id = current_ids()[1]
    if span_id:
        request.headers["x-corpus-otel-span"] = span_id


def make_mistral_client(base_url: str) -> Mistral:
    root = base_url[:-3] if base_url.endswith("/v1") else base_url  # the SDK adds /v1/chat/completions
    http = sdk_httpx.Client(event_hooks={"request": [_span_header_hook]})
    return Mistral(api_key="corpus-fake-mistral-key", server_url=root, client=http,
                   timeout_ms=int(CLIENT_TIMEOUT_S * 1000))


def mistral_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from ``chat.complete`` (None: not a model-request failure)."""
    if isinstance(exc, sdk_httpx.TimeoutException):
        return "infra_timeout"
    if isinstance(exc, SDKError):
        return "rate_limited" if exc.status_code == 429 else "error"
    return None


class _RequestSpans(SpanProcessor):
    """Notes each span named ``name`` by parent span id, in start order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.by_parent: dict[str | None, list[str]] = {}

    def on_start(self, span, parent_context=None) -> None:
        if span.name != self.name:
            return
        parent = f"{span.parent.span_id:016x}" if span.parent is not None else None
        self.by_parent.setdefault(parent, []).append(f"{span.context.span_id:016x}")


class OpenInferenceMistralAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-mistralai (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-mistral"
    # Its flattened messages carry no call ids (a tool call's function name and arguments only, a tool message without
    # `tool_call_id`), but `input.value` / `output.value` hold the request and response bodies, ids included: the
    # library records them, and the labels' rules are the defaults.
    label_rules: dict = {}

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.mistralai import MistralAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        MistralAIInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


class TraceloopMistralAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-mistralai (OpenLLMetry)."""
    library = "traceloop-mistral"
    # Its chat span records of each answer only the text, role and finish reason (no tool calls), and of the request
    # each message's `.content` / `.role` read as attributes, which the SDK's documented dict messages lack (the
    # instrumentation's `dont_throw` drops the rest after `gen_ai.prompt.0.role`): no proposals, no consumption.
    label_rules = {"model_output_recorded": False, "model_input_recorded": False}

    def __init__(self) -> None:
        self.requests = _RequestSpans("mistralai.chat")
        self._seen: dict[str | None, int] = {}

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.MISTRAL},
                       resource_attributes={"deployment.environment.name": "corpus"})
        trace.get_tracer_provider().add_span_processor(self.requests)

    def model_span_for(self, request: dict) -> str | None:
        parent = request.get("otel_span")
        position = self._seen.get(parent, 0)
        self._seen[parent] = position + 1
        spans = self.requests.by_parent.get(parent, [])
        return spans[position] if position < len(spans) else None


ADAPTERS = {"openinference-mistral": OpenInferenceMistralAdapter, "traceloop-mistral": TraceloopMistralAdapter}


def run_mistral(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append(f"every model request sent by the Mistral SDK's chat.complete(model={MISTRAL_MODEL!r})")
        client = make_mistral_client(base_url)

        def complete(_openai_client, **request):
            return client.chat.complete(**dict(request, model=MISTRAL_MODEL))

        run_raw(adapter, scenario, base_url, truth, complete=complete, failure=mistral_failure)


def main() -> int:
    return adapters_main(ADAPTERS, run_mistral)


if __name__ == "__main__":
    sys.exit(main())
