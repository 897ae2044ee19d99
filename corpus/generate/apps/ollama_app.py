"""The raw agent loop on the Ollama Python client (``ollama.Client(host=...).chat(..., tools=..., stream=False)``)
against the fake server's Ollama face (``POST /api/chat``, ``corpusgen/fake_ollama.py``), traced two ways in one venv:

    .venvs/ollama/bin/python -m apps.ollama_app --lib openinference-ollama --scenario plain_tool_use --out DIR
    .venvs/ollama/bin/python -m apps.ollama_app --lib traceloop-ollama --scenario plain_tool_use --out DIR

- ``openinference-ollama``: ``openinference-instrumentation-ollama`` (a ``Chat`` LLM span per ``Client.chat``, current
  while the client sends) and the ``OITracer`` chain / agent / tool decorators of ``openinference-openai``.
- ``traceloop-ollama``: OpenLLMetry's ``opentelemetry-instrumentation-ollama`` (an ``ollama.chat`` span around the
  client's ``_request``, started without being made current) under ``Traceloop.init`` and its ``@workflow`` /
  ``@agent`` / ``@tool`` decorators.

Ground truth as in the other raw loops: the span current when each HTTP request is sent (header to the fake server;
OpenLLMetry's model span is not current then, so a span processor names the one open span of its scope, as for
``traceloop-google-genai``) and inside each tool body; the calls' ids from the fake server's log (the wire has none,
``corpusgen/raw_loop_ollama.py``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.model_spans import OpenModelSpans  # noqa: E402
from corpusgen.raw_loop_ollama import run_raw_ollama  # noqa: E402

from apps.raw import OpenInferenceAdapter, TraceloopAdapter  # noqa: E402

# Neither instrumentation records a tool-call id anywhere (Ollama's wire has none): the calls are named in the labels by
# the fake server's ids, which no span carries.
NO_CALL_IDS = {"tool_call_ids_recorded": False}


class OpenInferenceOllamaAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-ollama (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-ollama"
    # The flattened messages carry the answer's calls (name, arguments) and each tool message's content and tool name
    # (`message.name`); the request and the response as JSON in `input.value` / `output.value`, no ids in either.
    label_rules: dict = dict(NO_CALL_IDS)

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.ollama import OllamaInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        OllamaInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


class TraceloopOllamaAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-ollama (OpenLLMetry)."""
    library = "traceloop-ollama"
    # Its span records of each answer only the text and role (no tool calls): the calls are seen only where a later
    # request's input replays the assistant message (`gen_ai.prompt.<i>.tool_calls.<j>.name` / `.arguments`); the tool
    # messages' content and role are recorded, their tool name is not.
    label_rules: dict = dict(NO_CALL_IDS, model_output_recorded=False)

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.ollama import __name__ as scope
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.OLLAMA},
                       resource_attributes={"deployment.environment.name": "corpus"})
        # Its model span is started without being made current: find it through a span processor.
        self.model_spans = OpenModelSpans(scope)
        trace.get_tracer_provider().add_span_processor(self.model_spans)


ADAPTERS = {"openinference-ollama": OpenInferenceOllamaAdapter, "traceloop-ollama": TraceloopOllamaAdapter}


def main() -> int:
    return adapters_main(ADAPTERS, run_raw_ollama)


if __name__ == "__main__":
    sys.exit(main())
