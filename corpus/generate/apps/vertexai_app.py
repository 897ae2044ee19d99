"""Raw agent loop on the Vertex AI SDK (`google-cloud-aiplatform`: ``vertexai.init(..., api_transport="rest")``,
``GenerativeModel.generate_content`` with function declarations) against the fake server's Vertex face
(``POST /v1/projects/<p>/locations/<l>/publishers/google/models/gemini-2.5-flash:generateContent``), one
instrumentation per run, both in one venv:

    .venvs/vertexai/bin/python -m apps.vertexai_app --lib otel-vertexai --scenario plain_tool_use --out DIR
    .venvs/vertexai/bin/python -m apps.vertexai_app --lib openinference-vertexai --scenario plain_tool_use --out DIR

- ``otel-vertexai``: the OpenTelemetry contrib ``opentelemetry-instrumentation-vertexai`` (``VertexAIInstrumentor``,
  a ``chat <model>`` CLIENT span around each ``PredictionServiceClient.generate_content``) with
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` as its README says and no semantic-conventions opt-in:
  the content goes out as log records (``gen_ai.system.message`` / ``gen_ai.user.message`` /
  ``gen_ai.assistant.message`` / ``gen_ai.tool.message`` / ``gen_ai.choice`` events), never on the span, so an OTLP
  LoggerProvider beside the TracerProvider exports them (``logs.otlp.json``). The workflow / agent / tool spans are
  the app's, written as ``opentelemetry-util-genai``'s ``TelemetryHandler`` writes them for ``google-genai-otel``
  (``invoke_workflow`` / ``invoke_agent`` / ``execute_tool`` with the GenAI attributes): the instrumentation pins
  util-genai 0.2b0, whose handler has LLM invocations only, so the app opens them with its own tracer. The tool
  span has no ``gen_ai.tool.call.id``: the SDK hands the app no id for a call.
- ``openinference-vertexai``: ``openinference-instrumentation-vertexai`` (it wraps ``google.api_core``'s
  ``gapic_v1.method.wrap_method``, so every GAPIC method built after ``instrument()`` gets an LLM span) and the
  ``OITracer`` chain / agent / tool decorators of ``openinference-openai``.

Ground truth as in the other raw loops: the span current when each HTTP request is sent (both instrumentations keep
their span current while the transport sends) and inside each tool body; the call ids the SDK drops, from the fake
server's log (``corpusgen/raw_loop_vertex.py``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import LogPipeline, adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop_vertex import VERTEX_MODEL, run_raw_vertex  # noqa: E402
from corpusgen.tools import DESCRIPTIONS  # noqa: E402

from apps.raw import GenAIAdapter, OpenInferenceAdapter  # noqa: E402

MAX_TOOL_TEXT = 4096  # the app's bound on a tool's arguments / result copied into its span
# The SDK's GA types drop the answer's call ids: no span or log record carries one (the contrib instrumentation makes
# up `<name>_<part index>` ids of its own); the labels name the calls by the fake server's ids.
NO_CALL_IDS = {"tool_call_ids_recorded": False}


class _OtelVertexAISpans(GenAIAdapter):
    """opentelemetry-instrumentation-vertexai (model spans) + the app's GenAI spans (its own tracer)."""
    label_rules: dict = dict(NO_CALL_IDS)

    def __init__(self) -> None:
        super().__init__(content=True)
        self.library = "otel-vertexai"
        # The instrumentation's README: "true" captures message content as log events; no stability opt-in (its
        # default mode is the one the README describes).
        os.environ.pop("OTEL_SEMCONV_STABILITY_OPT_IN", None)
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"

    def setup(self, endpoint):
        from opentelemetry.instrumentation.vertexai import VertexAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        VertexAIInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = self.provider.get_tracer("corpus.support_app")

    def _span(self, name: str, attributes: dict, fn):
        from opentelemetry.trace import SpanKind, Status, StatusCode

        with self.tracer.start_as_current_span(name, kind=SpanKind.INTERNAL, attributes=attributes,
                                               record_exception=False, set_status_on_exception=False) as span:
            try:
                return fn(span)
            except Exception as exc:
                span.set_status(Status(StatusCode.ERROR, str(exc)[:MAX_TOOL_TEXT]))
                span.set_attribute("error.type", type(exc).__qualname__)
                raise

    def workflow(self, name, fn):
        return self._span(f"invoke_workflow {name}", {"gen_ai.operation.name": "invoke_workflow",
                                                      "gen_ai.workflow.name": name}, lambda _: fn())

    def agent(self, name, fn):
        return self._span(f"invoke_agent {name}", {"gen_ai.operation.name": "invoke_agent",
                                                   "gen_ai.request.model": VERTEX_MODEL, "gen_ai.agent.name": name,
                                                   "gen_ai.agent.description": f"{name} of the corpus support app"},
                          lambda _: fn())

    def tool(self, name, call_id, args, fn):
        import json

        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                      "gen_ai.tool.type": "function", "gen_ai.tool.description": DESCRIPTIONS.get(name) or "",
                      "gen_ai.tool.call.arguments": json.dumps(args, ensure_ascii=False)[:MAX_TOOL_TEXT]}
        # No gen_ai.tool.call.id: the SDK's answer carries none (`call_id` is the fake server's, ground truth only).

        def run(span):
            result = fn(**args)
            span.set_attribute("gen_ai.tool.call.result", str(result)[:MAX_TOOL_TEXT])
            return result

        return self._span(f"execute_tool {name}", attributes, run)


class OtelVertexAIAdapter(LogPipeline, _OtelVertexAISpans):
    """``_OtelVertexAISpans`` with an OTLP LoggerProvider installed first: the content's log records are captured."""


class OpenInferenceVertexAIAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-vertexai (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-vertexai"
    label_rules: dict = dict(NO_CALL_IDS)

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.vertexai import VertexAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        VertexAIInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


ADAPTERS = {
    "otel-vertexai": OtelVertexAIAdapter,
    "openinference-vertexai": OpenInferenceVertexAIAdapter,
}


def main() -> int:
    return adapters_main(ADAPTERS, run_raw_vertex)


if __name__ == "__main__":
    sys.exit(main())
