"""The raw agent loop on the Cohere Python SDK's v2 client (``cohere.ClientV2.chat`` with tools) against the fake
server's Cohere face (``POST /v2/chat``, ``corpusgen/fake_cohere.py``), traced two ways, each in its own venv (the
two instrumentations accept different SDK releases):

    .venvs/cohere/bin/python -m apps.cohere_app --lib openinference-cohere --scenario plain_tool_use --out DIR
    .venvs/traceloop-cohere/bin/python -m apps.cohere_app --lib traceloop-cohere --scenario plain_tool_use --out DIR

- ``openinference-cohere``: ``openinference-instrumentation-cohere`` (an LLM span ``ClientV2.chat`` per
  ``V2Client.chat``, current while the SDK sends the request; ``cohere`` >= 5.13) and the ``OITracer`` chain / agent /
  tool decorators of ``openinference-openai``, on the corpus OTLP pipeline.
- ``traceloop-cohere``: OpenLLMetry's ``opentelemetry-instrumentation-cohere`` (a ``cohere.chat`` span per
  ``ClientV2.chat``, current while the SDK sends the request; content as indexed ``gen_ai.prompt.*`` /
  ``gen_ai.completion.*`` attributes with ``TRACELOOP_TRACE_CONTENT=true``) under ``Traceloop.init`` and its
  ``@workflow`` / ``@agent`` / ``@tool`` decorators. The instrumentation declares ``cohere >= 4.2.7, < 6`` and
  instruments nothing on a newer SDK (``instrument()`` logs the conflict and returns), so this venv has the newest
  5.x SDK.

Ground truth as in the other raw loops: both instrumentations' model-call spans are current while the HTTP request is
sent, so the request header names them; tool executions from the tool bodies.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop_cohere import COHERE_MODEL, run_raw_cohere  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.raw import OpenInferenceAdapter, TraceloopAdapter  # noqa: E402


class OpenInferenceCohereAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-cohere (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-cohere"
    label_rules: dict = {}

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.cohere import CohereInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        CohereInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


class TraceloopCohereAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-cohere (OpenLLMetry)."""
    library = "traceloop-cohere"
    # Its chat span writes each input message's role and content only (`span_utils.set_input_content_attributes`): a
    # `tool` message's result text without its `tool_call_id`, an assistant message's calls not at all, so nothing in
    # the recorded input names the call a result answers; no consumption recorded. The answer's calls are written with
    # their ids (`gen_ai.completion.0.tool_calls.<i>.*`).
    label_rules = {"model_input_recorded": False}

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.cohere import CohereInstrumentor
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.COHERE},
                       resource_attributes={"deployment.environment.name": "corpus"})
        if not CohereInstrumentor().is_instrumented_by_opentelemetry:
            raise RuntimeError("opentelemetry-instrumentation-cohere instrumented nothing (SDK version conflict?)")


ADAPTERS = {"openinference-cohere": OpenInferenceCohereAdapter, "traceloop-cohere": TraceloopCohereAdapter}


def run_cohere(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append(f"every model request sent by the Cohere SDK's ClientV2.chat(model={COHERE_MODEL!r})")
        run_raw_cohere(adapter, scenario, base_url, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_cohere)


if __name__ == "__main__":
    sys.exit(main())
