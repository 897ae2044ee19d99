"""The raw agent loop of `apps/raw.py` with every model request sent through the LiteLLM SDK, traced two ways:

    .venvs/litellm/bin/python -m apps.litellm_app --lib litellm-otel --scenario plain_tool_use --out DIR
    .venvs/litellm/bin/python -m apps.litellm_app --lib openinference-litellm --scenario plain_tool_use --out DIR

Each request is ``litellm.completion(model="openai/gpt-4o-mini", api_base=<fake server>, client=<the raw loop's
OpenAI client>, timeout=1.0, num_retries=0, ...)``: LiteLLM's OpenAI provider sends it on that client (no retries of
its own; the loop's one retry after a 429 is the app's), and raises LiteLLM's exceptions, subclasses of the
`openai` ones the loop handles.

- ``litellm-otel``: LiteLLM's own OpenTelemetry integration (``litellm.callbacks = ["otel"]``), configured from the
  environment as its docs say (``OTEL_EXPORTER=otlp_grpc``, ``OTEL_ENDPOINT``, ``OTEL_SERVICE_NAME``): on the first
  request LiteLLM builds its ``OpenTelemetry`` logger, which creates the TracerProvider (its own resource and
  BatchSpanProcessor with the OTLP/gRPC exporter) and installs it as the global provider. It records a model call
  after the request ends (success or failure callback), parented to the span current in the calling thread; with a
  parent it would write the call's attributes onto that parent, so ``USE_OTEL_LITELLM_REQUEST_SPAN=true`` (LiteLLM's
  setting) asks for a ``litellm_request`` span of its own, with a ``raw_gen_ai_request`` child. The workflow, agent
  and tool spans are the app's, from ``opentelemetry-util-genai``'s ``TelemetryHandler`` on the global provider (as
  ``openai-v2-content-on``).
- ``openinference-litellm``: ``openinference-instrumentation-litellm`` (LLM spans around ``litellm.completion``) and
  the ``OITracer`` chain / agent / tool decorators of ``openinference-openai``, on the corpus OTLP pipeline.

Ground truth: which span recorded which request. OpenInference's span is current while LiteLLM sends the request, so
the request header names it (as for every raw loop). LiteLLM's own span is made after the request, so the header names
the agent span around it; a span processor notes each ``litellm_request`` span by parent, in order, and the n-th request
sent under an agent span is the n-th such span under it (``model_span_for``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import CLIENT_TIMEOUT_S, run_raw  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402
from opentelemetry.sdk.trace import SpanProcessor  # noqa: E402

from apps.raw import GenAIAdapter, OpenInferenceAdapter  # noqa: E402

LITELLM_MODEL = "openai/gpt-4o-mini"
# LiteLLM fetches its model price list from the web at import unless told to keep its packaged copy.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


def litellm_complete(client, **request):
    """One chat request through ``litellm.completion`` on the loop's OpenAI client."""
    import litellm

    request = dict(request, model=LITELLM_MODEL)
    return litellm.completion(api_base=str(client.base_url), api_key=client.api_key, client=client,
                              timeout=CLIENT_TIMEOUT_S, num_retries=0, **request)


class _RequestSpans(SpanProcessor):
    """A span processor that notes each LiteLLM request span (``litellm_request``) by parent span id, in end order."""

    def __init__(self) -> None:
        self.by_parent: dict[str | None, list[str]] = {}

    def on_end(self, span) -> None:
        if span.name != "litellm_request":
            return
        parent = f"{span.parent.span_id:016x}" if span.parent is not None else None
        self.by_parent.setdefault(parent, []).append(f"{span.context.span_id:016x}")


class LiteLLMOtelAdapter(GenAIAdapter):
    """LiteLLM's ``otel`` callback for the model calls; util-genai's TelemetryHandler for the app's own spans."""
    convention = "litellm"

    def __init__(self) -> None:
        super().__init__(content=True)
        self.library = "litellm-otel"
        # LiteLLM reads the two variables GenAIAdapter sets for util-genai: the semconv opt-in would turn its spans
        # into the experimental `chat <model>` form with no raw-request span. Its default form is kept (the opt-in
        # off); content stays on the spans (SPAN_ONLY: no log events).
        os.environ.pop("OTEL_SEMCONV_STABILITY_OPT_IN", None)
        self.requests = _RequestSpans()
        self._seen: dict[str | None, int] = {}

    def setup(self, endpoint):
        import litellm
        from opentelemetry import trace
        from opentelemetry.util.genai.handler import TelemetryHandler

        # LiteLLM appends /v1/traces to the endpoint for every exporter; the gRPC exporter keeps only the host and port
        # of an endpoint given as a URL, so the capture server's address goes in as one.
        os.environ.update(OTEL_EXPORTER="otlp_grpc", OTEL_ENDPOINT=f"http://{endpoint}", OTEL_SERVICE_NAME="corpus-litellm-otel",
                          OTEL_ENVIRONMENT_NAME="corpus", USE_OTEL_LITELLM_REQUEST_SPAN="true")
        litellm.callbacks = ["otel"]
        litellm.telemetry = False
        # LiteLLM builds its logger (and the global TracerProvider) when it first sets up a request's callbacks;
        # the app's spans need that provider before the first request, so the same set-up runs here.
        from litellm.litellm_core_utils.litellm_logging import _init_custom_logger_compatible_class

        self.logger = _init_custom_logger_compatible_class("otel", internal_usage_cache=None, llm_router=None)
        self.provider = trace.get_tracer_provider()
        if not hasattr(self.provider, "add_span_processor"):
            raise RuntimeError("LiteLLM's otel callback set no SDK TracerProvider")
        self.provider.add_span_processor(self.requests)
        self.handler = TelemetryHandler(tracer_provider=self.provider)

    def model_span_for(self, request: dict) -> str | None:
        parent = request.get("otel_span")
        position = self._seen.get(parent, 0)
        self._seen[parent] = position + 1
        spans = self.requests.by_parent.get(parent, [])
        return spans[position] if position < len(spans) else None

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


class OpenInferenceLiteLLMAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-litellm (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-litellm"

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.litellm import LiteLLMInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        LiteLLMInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


ADAPTERS = {"litellm-otel": LiteLLMOtelAdapter, "openinference-litellm": OpenInferenceLiteLLMAdapter}


def run_litellm(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append(f"every model request sent by litellm.completion(model={LITELLM_MODEL!r})")
        run_raw(adapter, scenario, base_url, truth, complete=litellm_complete)


def main() -> int:
    return adapters_main(ADAPTERS, run_litellm)


if __name__ == "__main__":
    sys.exit(main())
