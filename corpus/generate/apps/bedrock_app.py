"""The raw agent loop on Amazon Bedrock's Converse API (boto3 `bedrock-runtime`, `converse` with `toolConfig`) against
the fake server's `/model/<modelId>/converse`, traced three ways (two in one venv, OpenLLMetry in its own):

    .venvs/bedrock/bin/python -m apps.bedrock_app --lib botocore-bedrock --scenario plain_tool_use --out DIR
    .venvs/bedrock/bin/python -m apps.bedrock_app --lib botocore-bedrock-logs --scenario plain_tool_use --out DIR
    .venvs/bedrock/bin/python -m apps.bedrock_app --lib openinference-bedrock --scenario plain_tool_use --out DIR
    .venvs/traceloop-bedrock/bin/python -m apps.bedrock_app --lib traceloop-bedrock --scenario plain_tool_use --out DIR

- ``botocore-bedrock``: the official ``opentelemetry-instrumentation-botocore`` (``BotocoreInstrumentor``; its Bedrock
  extension writes GenAI attributes on the botocore client span) with ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
  =true`` as its README says. It emits message content only as log records (``gen_ai.*.message`` / ``gen_ai.choice``
  events through the OTel Logs API), never on a span: the trace pipeline gets no content, and none is captured here
  (no LoggerProvider: the records go to the API's no-op provider). The workflow, agent and tool spans are the app's,
  from ``opentelemetry-util-genai``'s ``TelemetryHandler`` (as ``openai-v2-content-on``); that handler reads the same
  variable with its own vocabulary (``SPAN_ONLY`` ...), takes ``true`` for ``NO_CONTENT``, and so records no tool
  arguments or results either.
- ``botocore-bedrock-logs``: the same, with an OTLP LoggerProvider beside the TracerProvider (a pipeline that sends the
  instrumentation's log records too): the content is captured in ``logs.otlp.json``.
- ``openinference-bedrock``: ``openinference-instrumentation-bedrock`` (a ``bedrock.converse`` LLM span per call; it
  wraps the client when boto3 creates it) and the ``OITracer`` chain / agent / tool decorators of
  ``openinference-openai``, on the corpus OTLP pipeline.
- ``traceloop-bedrock``: OpenLLMetry's ``opentelemetry-instrumentation-bedrock`` (a ``chat <model>`` span per call; it
  wraps the client when boto3 creates it; content on the span as GenAI parts messages with
  ``TRACELOOP_TRACE_CONTENT=true``) and traceloop-sdk's ``@workflow`` / ``@agent`` / ``@tool`` decorators, as
  ``traceloop-anthropic``.

All three instrumentations keep their span current while botocore sends the request, so the request header (a botocore
``before-send`` handler) names the model-call span, as for every raw loop.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import loopback_only  # noqa: E402
from corpusgen.harness import LogPipeline, adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop_bedrock import BEDROCK_MODEL_ID, run_raw_bedrock  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.raw import GenAIAdapter, OpenInferenceAdapter, TraceloopAdapter  # noqa: E402


class BotocoreBedrockAdapter(GenAIAdapter):
    """opentelemetry-instrumentation-botocore (Bedrock extension) + util-genai's TelemetryHandler for the app's spans."""

    def __init__(self) -> None:
        super().__init__(content=False)
        self.library = "botocore-bedrock"
        # The instrumentation's README: content capture on with "true" (its extension compares with "true"); no
        # semantic-conventions opt-in (the Bedrock extension reads none).
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
        os.environ.pop("OTEL_SEMCONV_STABILITY_OPT_IN", None)

    def setup(self, endpoint):
        from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
        from opentelemetry.util.genai.handler import TelemetryHandler

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        BotocoreInstrumentor().instrument(tracer_provider=self.provider)
        self.handler = TelemetryHandler(tracer_provider=self.provider)

    def agent(self, name, fn):
        with self.handler.invoke_local_agent(agent_name=name, request_model=BEDROCK_MODEL_ID) as inv:
            inv.agent_description = f"{name} of the corpus support app"
            return fn()


class BotocoreBedrockLogsAdapter(LogPipeline, BotocoreBedrockAdapter):
    """``botocore-bedrock`` with a LoggerProvider exporting OTLP logs beside the traces: the Bedrock extension's
    ``gen_ai.*.message`` / ``gen_ai.choice`` log records (the conversation, the tool calls with their ``toolUseId``,
    the answers), correlated to the client span, are captured too (``logs.otlp.json``)."""

    def __init__(self) -> None:
        super().__init__()
        self.library = "botocore-bedrock-logs"
        self.content = True  # in the log records


class OpenInferenceBedrockAdapter(OpenInferenceAdapter):
    """openinference-instrumentation-bedrock (LLM spans) + the OITracer decorators of ``openinference-openai``."""
    library = "openinference-bedrock"

    def setup(self, endpoint):
        from openinference.instrumentation import OITracer, TraceConfig
        from openinference.instrumentation.bedrock import BedrockInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        BedrockInstrumentor().instrument(tracer_provider=self.provider)
        self.tracer = OITracer(self.provider.get_tracer("corpus.support_app"), config=TraceConfig())


def _discarding_metric_exporter():
    """A metric exporter that accepts every batch and keeps nothing (the corpus captures traces only)."""
    from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult

    class Discard(MetricExporter):
        def export(self, metrics_data, timeout_millis: float = 10_000, **kwargs) -> MetricExportResult:
            return MetricExportResult.SUCCESS

        def force_flush(self, timeout_millis: float = 10_000) -> bool:
            return True

        def shutdown(self, timeout_millis: float = 30_000, **kwargs) -> None:
            pass

    return Discard()


class TraceloopBedrockAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + opentelemetry-instrumentation-bedrock (OpenLLMetry)."""
    library = "traceloop-bedrock"
    # Its Converse wrapper writes the request's messages only with the response (`_handle_converse`): a request that
    # failed (an error status, a timeout) records nothing of what it consumed.
    label_rules = {"failed_request_input_recorded": False}

    def setup(self, endpoint):
        # Metrics stay on (traceloop-sdk's default): with TRACELOOP_METRICS_ENABLED=false, as the other OpenLLMetry apps
        # run, the Bedrock instrumentation's Converse handler fails on its guardrail counter (None: it counts an
        # activation whenever a response lacks `amazon-bedrock-guardrailAction`, which no Converse response has) and
        # its `dont_throw` drops the whole response (no usage, content or finish reason on the span). The metrics go
        # to an exporter that keeps nothing.
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="true",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       metrics_exporter=_discarding_metric_exporter(),
                       telemetry_enabled=False, instruments={Instruments.BEDROCK},
                       resource_attributes={"deployment.environment.name": "corpus"})


ADAPTERS = {"botocore-bedrock": BotocoreBedrockAdapter, "botocore-bedrock-logs": BotocoreBedrockLogsAdapter,
            "openinference-bedrock": OpenInferenceBedrockAdapter, "traceloop-bedrock": TraceloopBedrockAdapter}


def run_bedrock(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    with loopback_only(truth):
        truth.notes.append(f"every model request sent by boto3 bedrock-runtime converse(modelId={BEDROCK_MODEL_ID!r})")
        run_raw_bedrock(adapter, scenario, base_url, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_bedrock)


if __name__ == "__main__":
    sys.exit(main())
