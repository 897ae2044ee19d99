"""Raw agent loop on the real OpenAI client, one library per adapter. Run inside that library's venv:

    .venvs/<venv>/bin/python -m apps.raw --lib openai-v2-content-on --scenario plain_tool_use --out DIR
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import LogPipeline, otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.raw_loop import MODEL, run_raw  # noqa: E402
from corpusgen.tools import DESCRIPTIONS  # noqa: E402


class GenAIAdapter:
    """opentelemetry-instrumentation-openai-v2 (chat spans) + opentelemetry-util-genai TelemetryHandler."""
    convention = "otel-genai"

    def __init__(self, content: bool):
        self.content = content
        self.library = "openai-v2-content-on" if content else "openai-v2-content-off"
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY" if content else "NO_CONTENT"

    def setup(self, endpoint):
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        from opentelemetry.util.genai.handler import TelemetryHandler
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)
        self.handler = TelemetryHandler(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.shutdown()

    def workflow(self, name, fn):
        with self.handler.workflow(name):
            return fn()

    def agent(self, name, fn):
        with self.handler.invoke_local_agent(agent_name=name, request_model=MODEL) as inv:
            inv.agent_description = f"{name} of the corpus support app"
            return fn()

    def tool(self, name, call_id, args, fn):
        with self.handler.tool(name, tool_call_id=call_id, tool_type="function",
                               tool_description=DESCRIPTIONS.get(name)) as inv:
            if inv.should_capture_content_on_span:
                inv.arguments = args
            result = fn(**args)
            if inv.should_capture_content_on_span:
                inv.tool_result = result
            return result


class GenAIEventOnlyAdapter(LogPipeline, GenAIAdapter):
    """``openai-v2-content-on`` with content ``EVENT_ONLY``, as util-genai's README offers it: every inference's
    messages go out as one ``gen_ai.client.inference.operation.details`` OTLP log record correlated to its span, none on
    the span; an OTLP LoggerProvider beside the TracerProvider exports them (captured in ``logs.otlp.json``)."""

    def __init__(self) -> None:
        super().__init__(True)
        self.library = "openai-v2-event-only"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "EVENT_ONLY"


class OpenInferenceAdapter:
    """openinference-instrumentation-openai (LLM spans) + openinference-instrumentation OITracer decorators."""
    convention = "openinference"
    library = "openinference-openai"
    content = True

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.openai import OpenAIInstrumentor
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())

    def shutdown(self):
        self.provider.shutdown()

    def workflow(self, name, fn):
        return self.tracer.chain(name=name)(fn)()

    def agent(self, name, fn):
        return self.tracer.agent(name=name)(fn)()

    def tool(self, name, call_id, args, fn):
        return self.tracer.tool(name=name, description=DESCRIPTIONS.get(name))(fn)(**args)


class TraceloopAdapter:
    """traceloop-sdk decorators (@workflow/@agent/@tool) + opentelemetry-instrumentation-openai (OpenLLMetry)."""
    convention = "openllmetry"
    library = "traceloop-openai"
    content = True

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments
        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.OPENAI},
                       resource_attributes={"deployment.environment.name": "corpus"})

    def shutdown(self):
        from opentelemetry import trace
        provider = trace.get_tracer_provider()
        provider.force_flush()
        provider.shutdown()

    def workflow(self, name, fn):
        from traceloop.sdk.decorators import workflow
        return workflow(name=name)(fn)()

    def agent(self, name, fn):
        from traceloop.sdk.decorators import agent
        return agent(name=name)(fn)()

    def tool(self, name, call_id, args, fn):
        from traceloop.sdk.decorators import tool
        return tool(name=name)(fn)(**args)


ADAPTERS = {
    "openai-v2-content-on": lambda: GenAIAdapter(True),
    "openai-v2-content-off": lambda: GenAIAdapter(False),
    "openai-v2-event-only": GenAIEventOnlyAdapter,
    "openinference-openai": OpenInferenceAdapter,
    "traceloop-openai": TraceloopAdapter,
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
    return run_one(meta, adapter, run_raw, Path(a.out))


if __name__ == "__main__":
    sys.exit(main())
