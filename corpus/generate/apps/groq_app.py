"""The raw agent loop of `apps/raw.py` on the Groq Python SDK (`client.chat.completions.create` with `tools`), traced two
ways, in one venv:

    .venvs/groq/bin/python -m apps.groq_app --lib openinference-groq --scenario plain_tool_use --out DIR
    .venvs/groq/bin/python -m apps.groq_app --lib traceloop-groq --scenario plain_tool_use --out DIR

Each request is ``Groq(base_url=<fake server root>, max_retries=0, timeout=1.0, ...).chat.completions.create(
model="llama-3.3-70b-versatile", messages=..., tools=..., temperature=0.2)``: the SDK posts the Chat Completions body to
``<base_url>/openai/v1/chat/completions``, Groq's OpenAI-compatible route, which the fake server's OpenAI face answers
and its Groq face (``corpusgen/fake_groq.py``) rewrites in Groq's form (the requested model, Groq's usage timings and
``x_groq``, Groq's error wording). ``max_retries=0``, as the raw loop sets on the ``openai`` client: the SDK retries a
429, a 5xx and a timeout twice by default (``DEFAULT_MAX_RETRIES``), each retry a new HTTP request inside the one
``create()`` call; off, one request per call, and the loop's one retry after a 429 is the app's. The SDK raises its own
``RateLimitError`` / ``APIStatusError`` / ``APITimeoutError`` (the `openai` client's class names, not its classes),
which ``groq_failure`` reads for the loop.

- ``openinference-groq``: ``openinference-instrumentation-groq`` (an LLM span ``Completions`` per call, current while
  the SDK sends the request) and the ``OITracer`` chain / agent / tool decorators of ``openinference-openai``, on the
  corpus OTLP pipeline.
- ``traceloop-groq``: OpenLLMetry's ``opentelemetry-instrumentation-groq`` (a ``chat <model>`` span per call, started
  without being made current; content on the span with ``TRACELOOP_TRACE_CONTENT=true``) and traceloop-sdk's
  ``@workflow`` / ``@agent`` / ``@tool`` decorators.

Ground truth as in the other raw loops: the span current when each HTTP request is sent (header to the fake server;
OpenLLMetry's model span is not current then, so a span processor names it, as for ``traceloop-anthropic``) and inside
each tool body.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import groq  # noqa: E402
from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.model_spans import OpenModelSpans  # noqa: E402
from corpusgen.raw_loop import CLIENT_TIMEOUT_S, run_raw  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

from apps.raw import OpenInferenceAdapter, TraceloopAdapter  # noqa: E402

GROQ_MODEL = "llama-3.3-70b-versatile"


def make_groq_client(base_url: str, model_spans: OpenModelSpans | None = None) -> groq.Groq:
    def _span_header_hook(request) -> None:
        span_id = model_spans.current() if model_spans else current_ids()[1]
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id

    root = base_url[:-3] if base_url.endswith("/v1") else base_url  # the SDK adds /openai/v1/chat/completions
    return groq.Groq(api_key="gsk_corpus_fake", base_url=root, max_retries=0, timeout=CLIENT_TIMEOUT_S,
                     http_client=groq.DefaultHttpxClient(event_hooks={"request": [_span_header_hook]}))


def groq_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the Groq SDK (None: not a model-request failure)."""
    if isinstance(exc, groq.APITimeoutError):
        return "infra_timeout"
    if isinstance(exc, groq.RateLimitError):
        return "rate_limited"
    if isinstance(exc, groq.APIStatusError):
        return "error"
    return None


class OpenInferenceGroqAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-groq (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-groq"

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.groq import GroqInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        GroqInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


class TraceloopGroqAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-groq (OpenLLMetry)."""
    library = "traceloop-groq"

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.groq import __name__ as scope
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.GROQ},
                       resource_attributes={"deployment.environment.name": "corpus"})
        # Its `chat <model>` span is started without being made current: find it through a span processor.
        self.model_spans = OpenModelSpans(scope)
        trace.get_tracer_provider().add_span_processor(self.model_spans)


ADAPTERS = {"openinference-groq": OpenInferenceGroqAdapter, "traceloop-groq": TraceloopGroqAdapter}


def run_groq(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append(f"every model request sent by the Groq SDK's chat.completions.create(model={GROQ_MODEL!r})")
        client = make_groq_client(base_url, getattr(adapter, "model_spans", None))

        def complete(_openai_client, **request):
            return client.chat.completions.create(**dict(request, model=GROQ_MODEL))

        run_raw(adapter, scenario, base_url, truth, complete=complete, failure=groq_failure)


def main() -> int:
    return adapters_main(ADAPTERS, run_groq)


if __name__ == "__main__":
    sys.exit(main())
