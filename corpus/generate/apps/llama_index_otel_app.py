"""LlamaIndex agents (`FunctionAgent`; `AgentWorkflow` for the handoff) with the OpenAI LLM against the fake server,
traced by LlamaIndex's own OpenTelemetry integration (`llama-index-observability-otel`) and nothing else.

    .venvs/llama-index-otel/bin/python -m apps.llama_index_otel_app --lib llama-index-otel --scenario handoff --out DIR

The agents, tools, scripts and LlamaIndex settings are those of `apps/llamaindex_app.py` (`run_agents`); only the
instrumentation differs. `LlamaIndexOpenTelemetry(span_exporter=..., span_processor="batch").start_registering()`
builds its own `TracerProvider` with a `BatchSpanProcessor` around the given exporter (here the OTLP/gRPC exporter to
the capture server), sets it as the global provider, and adds to LlamaIndex's root dispatcher a span handler that opens
an OTel span for every dispatcher span (named `<Class>.<method>`, made current while it is open) and an event handler
that attaches every instrumentation event of a span to it as a span event when the span ends.

Ground truth as for `openinference-llama-index`: a span handler registered after the integration's maps every
dispatcher span to the OTel span the integration opened for it (its `all_spans` map, read at `new_span`); node kinds
from what each dispatcher span is; model spans from the request header (the LLM's `achat` span is current while the
request is sent; LlamaIndex's retry re-sends inside it, so a span is one model call).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.llamaindex_app import record_nodes, run_agents  # noqa: E402

LIBRARY = "llama-index-otel"


class LlamaIndexOtelAdapter:
    library = LIBRARY
    convention = "llama-index-otel"
    content = True

    def setup(self, endpoint):
        from llama_index.observability.otel import LlamaIndexOpenTelemetry
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource

        self.integration = LlamaIndexOpenTelemetry(
            span_exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True),
            span_processor="batch",
            service_name_or_resource=Resource.create(
                {"service.name": f"corpus-{self.library}", "deployment.environment.name": "corpus"}
            ),
        )
        self.integration.start_registering()
        self.provider = self.integration._tracer_provider_instance

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def run_llama_index_otel(adapter: LlamaIndexOtelAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run = run_agents(
        scenario,
        base_url,
        truth,
        handler_module="llama_index.observability.otel",
        span_attr=None,
        span_map="all_spans",
    )
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("LlamaIndex's retry re-sent the request after HTTP 429 inside the same achat span")
    # A step's input is recorded only as `llamaindex.step.input_summary`, a repr cut at 200 characters
    # (llama-index-workflows' `summarize_event`): the billing agent's `run_agent_step` records no tool result, so
    # nothing in the trace orders it after the handoff tool (its model call inside does consume the handoff's result).
    record_nodes(truth, run, step_input_recorded=False)


def main() -> int:
    return app_main(
        LlamaIndexOtelAdapter(),
        run_llama_index_otel,
        family="raw+retry_once",
        handoff_family="agent_workflow+retry_once",
        # a request LlamaIndex retried is inside the same `OpenAI.achat` span, which shows only the last attempt
        extra_meta={"retry_evidence": False},
    )


if __name__ == "__main__":
    sys.exit(main())
