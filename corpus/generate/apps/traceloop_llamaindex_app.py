"""LlamaIndex agents (`FunctionAgent`; `AgentWorkflow` for the handoff) with the OpenAI LLM against the fake server,
traced by OpenLLMetry's LlamaIndex instrumentation plus its OpenAI client instrumentation (the model calls).

    .venvs/traceloop-llamaindex/bin/python -m apps.traceloop_llamaindex_app --lib traceloop-llama-index \
        --scenario handoff --out DIR

The agents, tools, scripts and LlamaIndex settings are those of `apps/llamaindex_app.py` (`run_agents`); only the
instrumentation differs. OpenLLMetry's LlamaIndex instrumentor adds a span handler to LlamaIndex's root dispatcher
that opens a span for every dispatcher span except those of the `OpenAI` LLM class, whose model calls it leaves to
the OpenAI client instrumentation (an `openai.chat` span per HTTP request, so each attempt of LlamaIndex's own retry
is a span of its own).

Ground truth as for `openinference-llama-index`: a span handler registered after OpenLLMetry's maps every dispatcher
span to the OTel span OpenLLMetry opened for it (`SpanHolder.otel_span` in its open-span map, None for the `OpenAI`
methods); node kinds from what each dispatcher span is; model spans from the request header (`openai.chat` is
current while the request is sent), counted per span the server saw.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.llamaindex_app import record_nodes, run_agents  # noqa: E402

LIBRARY = "traceloop-llama-index"


class TraceloopLlamaIndexAdapter:
    library = LIBRARY
    convention = "openllmetry"
    content = True

    def setup(self, endpoint):
        from opentelemetry.instrumentation.llamaindex import LlamaIndexInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        LlamaIndexInstrumentor().instrument(tracer_provider=self.provider)
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def run_traceloop_llamaindex(adapter: TraceloopLlamaIndexAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run = run_agents(
        scenario,
        base_url,
        truth,
        handler_module="opentelemetry.instrumentation.llamaindex",
        span_attr="otel_span",
    )
    record_nodes(truth, run, model_calls_from_dispatcher=False, step_input_recorded=False)


def main() -> int:
    # The OpenAI instrumentor's token and duration histograms go to the global MeterProvider (none is set: no-op).
    os.environ.setdefault("TRACELOOP_METRICS_ENABLED", "false")
    return app_main(
        TraceloopLlamaIndexAdapter(),
        run_traceloop_llamaindex,
        family="raw+retry_once",
        handoff_family="agent_workflow+retry_once",
        # One model call per span the server saw requests from (each attempt of LlamaIndex's retry is expected to be
        # its own `openai.chat` span; a request sent under the span of another would count once, its failure hidden).
        extra_meta={"model_calls_by_span": True},
    )


if __name__ == "__main__":
    sys.exit(main())
