"""The raw agent loop of `apps/raw.py` on the Together AI Python SDK 1.x, traced by OpenLLMetry through traceloop-sdk:

    .venvs/traceloop-together/bin/python -m apps.traceloop_together_app --lib traceloop-together \
        --scenario plain_tool_use --out DIR

``Traceloop.init`` with only its Together instrumentation (``instruments={TOGETHER}``) and the ``@workflow`` /
``@agent`` / ``@tool`` decorators of ``traceloop-openai`` for the app's own spans (``apps/raw.py``'s
``TraceloopAdapter``). Each request is ``Together(base_url=<fake server>/v1, max_retries=0, timeout=1.0)
.chat.completions.create(model=..., messages=..., tools=..., temperature=0.2)``: Together's API is OpenAI-compatible
and the SDK posts ``<base_url>chat/completions``, which the fake server's OpenAI face answers (its pydantic response
types allow extra fields and know every value the face sends). ``max_retries=0``: the SDK retries a timeout, a
connection error, 429 and any 5xx five times by default (``MAX_RETRIES``), inside the one call; off, one HTTP request
per call, and the loop's one retry after a 429 is the app's. The SDK raises ``together.error.RateLimitError`` /
``APIError`` / ``Timeout``. The instrumentation (``opentelemetry-instrumentation-together``, ``together >= 1.2.0,
< 2``) wraps ``together.resources.chat.completions.ChatCompletions.create`` with a ``together.chat`` span, started
without being made current.

Ground truth as in the other raw loops: the span open while each HTTP request is sent (a span processor names the
open span of the instrumentation's scope, as for ``traceloop-groq``; the SDK sends on the `requests` session the app
gives it through ``together.requestssession``, whose adapter adds the header) and the span current inside each tool
body.
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

TOGETHER_MODEL = "meta-llama/Llama-3.3-70B-Instruct-Turbo"


class TraceloopTogetherAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + OpenLLMetry's opentelemetry-instrumentation-together (its only instrumentation)."""
    library = "traceloop-together"
    # The span records each message's role and text alone: no tool call of an answer or of a replayed assistant turn,
    # no call id of a tool message (so no proposal and no consumption recorded).
    label_rules: dict = {"model_output_recorded": False, "model_input_recorded": False}

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.together import __name__ as scope
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.TOGETHER},
                       resource_attributes={"deployment.environment.name": "corpus"})
        # Its `together.chat` span is started without being made current: find it through a span processor.
        self.model_spans = OpenModelSpans(scope)
        trace.get_tracer_provider().add_span_processor(self.model_spans)


def together_failure(exc: BaseException) -> str | None:
    """The run's terminal status for an exception from the Together SDK (None: not a model-request failure)."""
    from together import error

    if isinstance(exc, error.Timeout):
        return "infra_timeout"
    if isinstance(exc, error.RateLimitError):
        return "rate_limited"
    if isinstance(exc, error.APIError):
        return "error"
    return None


def make_together_client(base_url: str, model_spans: OpenModelSpans | None):
    """A Together client on the fake server, with the SDK's retries off and the loop's timeout; its requests go out on
    a `requests` session whose adapter names the open model span in a header."""
    import requests
    import together
    from requests.adapters import HTTPAdapter

    class _MarkRequests(HTTPAdapter):
        def send(self, request, **kwargs):
            span_id = model_spans.current() if model_spans else None
            if span_id:
                request.headers["x-corpus-otel-span"] = span_id
            return super().send(request, **kwargs)

    session = requests.Session()
    session.mount("http://", _MarkRequests(max_retries=0))
    together.requestssession = session  # the SDK's hook for the session it sends on (`_make_session`)
    return together.Together(api_key="tgp_corpus_fake", base_url=base_url, max_retries=0, timeout=CLIENT_TIMEOUT_S)


def run_together(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append(
            f"every model request sent by the Together SDK's chat.completions.create(model={TOGETHER_MODEL!r})")
        client = make_together_client(base_url, adapter.model_spans)

        def complete(_openai_client, **request):
            from together.error import TogetherException

            try:
                return client.chat.completions.create(**dict(request, model=TOGETHER_MODEL))
            except TogetherException as exc:
                # The SDK keeps an error response's headers as requests' CaseInsensitiveDict, which its own
                # `__repr__` cannot JSON-encode; the loop records `repr(exc)`. (The span has recorded it already.)
                exc.headers = dict(exc.headers)
                raise

        run_raw(adapter, scenario, base_url, truth, complete=complete, failure=together_failure)


ADAPTERS = {"traceloop-together": TraceloopTogetherAdapter}


def main() -> int:
    return adapters_main(ADAPTERS, run_together)


if __name__ == "__main__":
    sys.exit(main())
