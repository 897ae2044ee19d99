"""OpenInference's OpenLLMetry span processor on the raw loop of `traceloop-openai` (library directory
`openinference-openllmetry`, Frameworks DB).

    .venvs/openinference-openllmetry/bin/python -m apps.openinference_openllmetry_app --lib openinference-openllmetry \
        --scenario handoff --out DIR

The agent, scripts and ground truth are `run_raw`'s (`corpusgen/raw_loop.py`), instrumented as `apps/raw.py`'s
`TraceloopAdapter` does: `Traceloop.init` with its OpenAI instrumentation only, content on (`TRACELOOP_TRACE_CONTENT`),
telemetry off, the app's workflow / agent / tool functions under `@workflow` / `@agent` / `@tool`. The one difference
is the span processors handed to `Traceloop.init` (its `processor=` list, the SDK's documented way to bring one's
own): `openinference.instrumentation.openllmetry.OpenInferenceSpanProcessor()` (no option: it has none) first, then
the SDK's `BatchSpanProcessor` around the OTLP/gRPC exporter to the capture server, so that every span is exported as
the OpenInference processor rewrote it at its end (the processor's README adds it before the exporting processor too).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import run_one  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402

from apps.raw import TraceloopAdapter  # noqa: E402


class OpenInferenceOpenLLMetryAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + its OpenAI instrumentation, spans rewritten by OpenInference's span processor."""
    convention = "openinference"
    library = "openinference-openllmetry"
    content = True

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from openinference.instrumentation.openllmetry import OpenInferenceSpanProcessor
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments
        processors = [OpenInferenceSpanProcessor(),
                      BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, insecure=True))]
        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       processor=processors, telemetry_enabled=False, instruments={Instruments.OPENAI},
                       resource_attributes={"deployment.environment.name": "corpus"})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=["openinference-openllmetry"])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = OpenInferenceOpenLLMetryAdapter()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    return run_one(meta, adapter, run_raw, Path(a.out))


if __name__ == "__main__":
    sys.exit(main())
