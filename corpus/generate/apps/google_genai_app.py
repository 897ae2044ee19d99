"""Raw agent loop on the Google Gen AI SDK (`google-genai`, ``client.models.generate_content`` with function
declarations, automatic function calling off) against the fake server's Gemini face
(``POST /v1beta/models/gemini-2.5-flash:generateContent``), one instrumentation per run:

    .venvs/google-genai-otel/bin/python -m apps.google_genai_app --lib google-genai-otel --scenario plain_tool_use --out DIR
    .venvs/google-genai/bin/python -m apps.google_genai_app --lib openinference-google-genai --scenario ... --out DIR
    .venvs/google-genai/bin/python -m apps.google_genai_app --lib traceloop-google-genai --scenario ... --out DIR

- ``google-genai-otel``: ``opentelemetry-instrumentation-google-genai`` (``GoogleGenAiSdkInstrumentor``) with message
  content on the spans as its README says (``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY``; its
  util-genai writes only the latest experimental conventions, so no ``OTEL_SEMCONV_STABILITY_OPT_IN`` is set); the
  app's workflow / agent / tool spans from ``opentelemetry-util-genai``'s ``TelemetryHandler`` (as
  ``openai-v2-content-on``).
- ``openinference-google-genai``: ``openinference-instrumentation-google-genai`` and the ``OITracer`` chain / agent /
  tool decorators of ``openinference-openai``.
- ``traceloop-google-genai``: OpenLLMetry's ``opentelemetry-instrumentation-google-generativeai`` (which wraps
  google-genai) under ``Traceloop.init`` and its ``@workflow`` / ``@agent`` / ``@tool`` decorators.

Ground truth as in the other raw loops: the span current when each HTTP request is sent (header to the fake server;
OpenLLMetry's model span is not current then, so a span processor names it, as for ``traceloop-anthropic``) and
inside each tool body.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.model_spans import OpenModelSpans  # noqa: E402
from corpusgen.raw_loop_gemini import GEMINI_MODEL, run_raw_gemini  # noqa: E402
from corpusgen.tools import DESCRIPTIONS  # noqa: E402

from apps.raw import GenAIAdapter, OpenInferenceAdapter, TraceloopAdapter  # noqa: E402


class GoogleGenAIOtelAdapter(GenAIAdapter):
    """opentelemetry-instrumentation-google-genai (model spans) + util-genai's TelemetryHandler (the app's spans)."""

    def __init__(self) -> None:
        super().__init__(content=True)
        self.library = "google-genai-otel"
        # What its README asks for: the content variable alone (util-genai 1.3b0 has no stability opt-in any more).
        os.environ.pop("OTEL_SEMCONV_STABILITY_OPT_IN", None)
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"

    def setup(self, endpoint):
        from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor
        from opentelemetry.util.genai.handler import TelemetryHandler

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        instrumentor = GoogleGenAiSdkInstrumentor()
        instrumentor.instrument(tracer_provider=self.provider)
        if not instrumentor.is_instrumented_by_opentelemetry:
            raise RuntimeError("GoogleGenAiSdkInstrumentor did not instrument google-genai (version conflict?)")
        self.handler = TelemetryHandler(tracer_provider=self.provider)

    def agent(self, name, fn):
        with self.handler.invoke_local_agent(agent_name=name, request_model=GEMINI_MODEL) as inv:
            inv.agent_description = f"{name} of the corpus support app"
            return fn()

    def tool(self, name, call_id, args, fn):
        # util-genai 1.3b0's way: call id and description set on the invocation, content when it may be captured.
        with self.handler.tool(name, tool_type="function") as inv:
            inv.tool_call_id = call_id
            inv.tool_description = DESCRIPTIONS.get(name)
            if inv.should_capture_content:
                inv.arguments = args
            result = fn(**args)
            if inv.should_capture_content:
                inv.tool_result = result
            return result


class OpenInferenceGoogleGenAIAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-google-genai (LLM spans) + OITracer chain/agent/tool decorators."""
    library = "openinference-google-genai"

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.google_genai import GoogleGenAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        GoogleGenAIInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


class TraceloopGoogleGenAIAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-google-generativeai (OpenLLMetry)."""
    library = "traceloop-google-genai"

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.google_generativeai import __name__ as scope
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.GOOGLE_GENERATIVEAI},
                       resource_attributes={"deployment.environment.name": "corpus"})
        # Its model span is started without being made current: find it through a span processor.
        self.model_spans = OpenModelSpans(scope)
        trace.get_tracer_provider().add_span_processor(self.model_spans)


ADAPTERS = {
    "google-genai-otel": GoogleGenAIOtelAdapter,
    "openinference-google-genai": OpenInferenceGoogleGenAIAdapter,
    "traceloop-google-genai": TraceloopGoogleGenAIAdapter,
}


def main() -> int:
    return adapters_main(ADAPTERS, run_raw_gemini)


if __name__ == "__main__":
    sys.exit(main())
