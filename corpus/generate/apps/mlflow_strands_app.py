"""Strands Agents (`strands-agents[openai]`, `OpenAIModel` with `stream=False`) traced by MLflow Tracing's Strands
autolog (`mlflow.strands.autolog()`, `mlflow-tracing`, the lightweight tracing SDK).

    .venvs/mlflow-strands/bin/python -m apps.mlflow_strands_app --lib mlflow-strands --scenario handoff --out DIR

The agents, tools, swarm, retry strategy and ground truth are those of `apps/strands_app.py` (`run_strands`, the
OpenAI provider of `strands-agents`, Strands' default conventions: `OTEL_SEMCONV_STABILITY_OPT_IN` left unset), as for
`openinference-strands-agents`; only the tracing differs. What the autolog does (read in mlflow-tracing 3.18.0,
`mlflow/strands/autolog.py`): no patch of Strands. `setup_strands_tracing` adds a `StrandsSpanProcessor` first to the
global tracer provider, the one Strands' own tracer uses (when none is set, as here, it makes an SDK TracerProvider
holding that processor alone and installs it). On a span's start the processor hands Strands' span to the span
processors of MLflow's own provider (whose OTLP exporter sends it: `corpusgen/mlflow_export.py`) and registers it as an
MLflow span; on its end it writes MLflow's keys into Strands' span in place: the span type from
`gen_ai.operation.name` (`invoke_*` AGENT, `execute_tool` TOOL, `chat` CHAT_MODEL, nothing else typed), inputs and
outputs from Strands' `gen_ai.*.message` / `gen_ai.choice` events (which stay), the model, the provider and the token
usage. Strands' spans go out once, through MLflow's exporter, with MLflow's keys beside Strands' own.

Ground truth as for `strands-agents` (never read back from the trace): tool bodies, the fake server's log (the `chat`
span is current in OpenTelemetry's context while the HTTP request is sent), Strands' hooks (`BeforeInvocationEvent`,
`BeforeModelCallEvent`, the Swarm's `BeforeNodeCallEvent`). An audit hook on `socket.connect` refuses any connection
that does not go to a loopback address.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.mlflow_export import flush_mlflow, mlflow_otlp_export  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.strands_app import StrandsAdapter, import_strands, run_strands  # noqa: E402

LIBRARY = "mlflow-strands"


class MlflowStrandsAdapter(StrandsAdapter):
    """Strands' own spans (default conventions, OpenAI provider), registered and exported by MLflow's Strands
    autolog."""
    library = LIBRARY
    convention = "mlflow"
    content = True

    def __init__(self) -> None:
        self.library = LIBRARY
        self.semconv_opt_in = None

    def setup(self, endpoint: str) -> None:
        from opentelemetry import trace

        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self._tmp = mlflow_otlp_export(endpoint, self.library)
        import_strands(self.semconv_opt_in)
        import mlflow.strands

        mlflow.strands.autolog()
        processors = getattr(getattr(trace.get_tracer_provider(), "_active_span_processor", None),
                             "_span_processors", ())
        if not any(type(p).__name__ == "StrandsSpanProcessor" for p in processors):
            raise RuntimeError("mlflow.strands.autolog added no StrandsSpanProcessor to the global tracer provider")

    def shutdown(self) -> None:
        flush_mlflow(self._tmp)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_mlflow_strands(adapter: MlflowStrandsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_strands(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    return app_main(MlflowStrandsAdapter(), run_mlflow_strands, handoff_family="swarm")


if __name__ == "__main__":
    sys.exit(main())
