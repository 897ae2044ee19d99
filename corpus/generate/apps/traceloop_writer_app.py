"""The raw agent loop of `apps/raw.py` on the Writer Python SDK, traced by OpenLLMetry through traceloop-sdk:

    .venvs/traceloop-writer/bin/python -m apps.traceloop_writer_app --lib traceloop-writer \
        --scenario plain_tool_use --out DIR

``Traceloop.init`` with only its Writer instrumentation (``instruments={WRITER}``) and the ``@workflow`` / ``@agent`` /
``@tool`` decorators of ``traceloop-openai`` for the app's own spans (``apps/raw.py``'s ``TraceloopAdapter``). Each
request is ``Writer(base_url=<fake server>, max_retries=0, timeout=1.0).chat.chat(model="palmyra-x5", messages=...,
tools=..., temperature=0.2)``: the SDK posts ``<base_url>/v1/chat``, Writer's chat completion route, which the fake
server's Writer face (``corpusgen/fake_writer.py``) answers from the same script in Writer's form. ``max_retries=0``:
the SDK (a Stainless client, as ``openai``) retries a timeout, a connection error, 408/409/429 and any 5xx twice by
default, inside the one call; off, one HTTP request per call, and the loop's one retry after a 429 is the app's. The SDK
raises ``writerai.RateLimitError`` / ``APIStatusError`` / ``APITimeoutError``. The instrumentation
(``opentelemetry-instrumentation-writer``, ``writer-sdk >= 2.2.1, < 3``) wraps
``writerai.resources.chat.ChatResource.chat`` with a ``writerai.chat`` span, started without being made current.

Ground truth as in the other raw loops: the span open while each HTTP request is sent (a span processor names the open
span of the instrumentation's scope, as for ``traceloop-together``; an httpx request hook on the SDK's client adds the
header) and the span current inside each tool body.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.model_spans import OpenModelSpans  # noqa: E402
from corpusgen.raw_loop import CLIENT_TIMEOUT_S, run_raw  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.raw import TraceloopAdapter  # noqa: E402

WRITER_MODEL = "palmyra-x5"


class TraceloopWriterAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + OpenLLMetry's opentelemetry-instrumentation-writer (its only instrumentation)."""
    library = "traceloop-writer"
    # A request that raised leaves its `writerai.chat` span ERROR with no description, no `exception` event and no
    # `error.type` (the wrapper sets the bare status and ends the span): nothing on it names the 429 the app retried,
    # so its `rate_limited` is `indeterminate` (as for `mlflow-ag2`, whose failed request's span names no status either).
    label_rules: dict = {"retry_evidence": False}

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.writer import __name__ as scope
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.WRITER},
                       resource_attributes={"deployment.environment.name": "corpus"})
        # Its `writerai.chat` span is started without being made current: find it through a span processor.
        self.model_spans = OpenModelSpans(scope)
        trace.get_tracer_provider().add_span_processor(self.model_spans)


def writer_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the Writer SDK (None: not a model-request failure)."""
    import writerai

    if isinstance(exc, writerai.APITimeoutError):
        return "infra_timeout"
    if isinstance(exc, writerai.RateLimitError):
        return "rate_limited"
    if isinstance(exc, writerai.APIStatusError):
        return "error"
    return None


def make_writer_client(base_url: str, model_spans: OpenModelSpans | None):
    """A Writer client on the fake server (its root: the SDK adds `/v1/chat`), the SDK's retries off and the loop's
    timeout; an httpx request hook names the open model span in a header."""
    import writerai

    def mark(request):
        span_id = model_spans.current() if model_spans else None
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id

    root = base_url.removesuffix("/v1")
    return writerai.Writer(api_key="writer-corpus-fake", base_url=root, max_retries=0, timeout=CLIENT_TIMEOUT_S,
                           http_client=writerai.DefaultHttpxClient(event_hooks={"request": [mark]}))


def run_writer(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append(f"every model request sent by the Writer SDK's chat.chat(model={WRITER_MODEL!r})")
        client = make_writer_client(base_url, adapter.model_spans)

        def complete(_openai_client, **request):
            return client.chat.chat(**dict(request, model=WRITER_MODEL))

        run_raw(adapter, scenario, base_url, truth, complete=complete, failure=writer_failure)


ADAPTERS = {"traceloop-writer": TraceloopWriterAdapter}


def main() -> int:
    return adapters_main(ADAPTERS, run_writer)


if __name__ == "__main__":
    sys.exit(main())
