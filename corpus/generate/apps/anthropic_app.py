"""Raw agent loop on the real `anthropic` client (Messages API) against the fake server's `/v1/messages`, one
instrumentation per run. Run inside the anthropic venv:

    .venvs/anthropic/bin/python -m apps.anthropic_app --lib traceloop-anthropic --scenario plain_tool_use --out DIR

The workflow / agent / tool spans come from the same decorators as the OpenAI raw loops (`apps/raw.py`); the
model-call spans from the library's Anthropic instrumentation. Ground truth as in the raw loops: the span current
when each HTTP request is sent (header to the fake server) and inside each tool body.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.raw_loop_anthropic import OpenModelSpans, run_raw_anthropic  # noqa: E402

from apps.raw import OpenInferenceAdapter, TraceloopAdapter  # noqa: E402


class OpenInferenceAnthropicAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-anthropic (LLM spans) + OITracer chain/agent/tool decorators."""
    library = "openinference-anthropic"

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.anthropic import AnthropicInstrumentor
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        AnthropicInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


class TraceloopAnthropicAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-anthropic (OpenLLMetry)."""
    library = "traceloop-anthropic"

    def setup(self, endpoint):
        import os
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments
        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.ANTHROPIC},
                       resource_attributes={"deployment.environment.name": "corpus"})
        # Its `anthropic.chat` span is not current while the request is sent: find it through a span processor.
        from opentelemetry import trace
        from opentelemetry.instrumentation.anthropic import __name__ as scope
        self.model_spans = OpenModelSpans(scope)
        trace.get_tracer_provider().add_span_processor(self.model_spans)


ADAPTERS = {
    "openinference-anthropic": OpenInferenceAnthropicAdapter,
    "traceloop-anthropic": TraceloopAnthropicAdapter,
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = ADAPTERS[a.lib]()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    return run_one(meta, adapter, run_raw_anthropic, Path(a.out))


if __name__ == "__main__":
    sys.exit(main())
