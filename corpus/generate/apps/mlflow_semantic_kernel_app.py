"""Microsoft Semantic Kernel (`semantic-kernel`) traced by MLflow Tracing's Semantic Kernel autolog
(`mlflow.semantic_kernel.autolog()`, from `mlflow-skinny`: the lightweight `mlflow-tracing` does not ship
`mlflow.semantic_kernel`).

    .venvs/mlflow-semantic-kernel/bin/python -m apps.mlflow_semantic_kernel_app --lib mlflow-semantic-kernel \
        --scenario handoff --out DIR

The agents, plugin, connector subclass (one retry after HTTP 429), agent-as-plugin handoff and ground truth are those
of `apps/semantic_kernel_app.py` (`run_semantic_kernel`), as `semantic-kernel-native` runs them; only the tracing
differs. The app sets none of Semantic Kernel's diagnostics variables: the autolog switches them on. MLflow exports
through its own TracerProvider and OTLP exporter (`corpusgen/mlflow_export.py`, no tracking server), as for the other
MLflow directories.

What the autolog does (read in mlflow-skinny 3.18.0, `mlflow/semantic_kernel/`): `setup_semantic_kernel_tracing` sets
Semantic Kernel's model and agent diagnostics settings (`enable_otel_diagnostics` and `..._sensitive`) in place, and
adds a `SemanticKernelSpanProcessor` first to the global tracer provider, the one Semantic Kernel's tracers use (when
none is set, as here, it makes an SDK TracerProvider holding that processor alone and installs it). On a span's start
the processor hands Semantic Kernel's span to the span processors of MLflow's own provider and registers it as an
MLflow span; at its end it writes MLflow's span type from `gen_ai.operation.name` (`chat` CHAT_MODEL, `execute_tool`
TOOL, `invoke_agent` AGENT, anything else UNKNOWN), the model, the provider and the token usage. `Kernel.invoke` and
`Kernel.invoke_prompt` are wrapped in an MLflow AGENT span `Kernel.<method>`; Semantic Kernel's
`_set_completion_input` / `_set_completion_response` / `_set_completion_error` are wrapped so that the chat span's
MLflow inputs are the chat history (`{"messages": [...]}`, each message Semantic Kernel's `to_dict()`: Chat Completions
shape with call ids) and its outputs the completions.

Ground truth as for `semantic-kernel-native` (never read back from the trace): the fake server's log (the `chat` span
is current in OpenTelemetry's context while the HTTP request is sent), tool bodies inside the kernel's `execute_tool`
span with the call id from the auto-function-invocation filter, the agent and loop spans from the connector. An audit
hook on `socket.connect` refuses any connection that does not go to a loopback address.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.mlflow_export import flush_mlflow, mlflow_otlp_export  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.semantic_kernel_app import PLUGIN, SemanticKernelAdapter, run_semantic_kernel  # noqa: E402

LIBRARY = "mlflow-semantic-kernel"


class MlflowSemanticKernelAdapter(SemanticKernelAdapter):
    """Semantic Kernel's own spans, switched on, registered and exported by MLflow's Semantic Kernel autolog."""

    library = LIBRARY
    convention = "mlflow"
    content = True

    def setup(self, endpoint: str) -> None:
        from opentelemetry import trace

        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self._tmp = mlflow_otlp_export(endpoint, self.library)
        import mlflow.semantic_kernel

        mlflow.semantic_kernel.autolog()
        processors = getattr(getattr(trace.get_tracer_provider(), "_active_span_processor", None),
                             "_span_processors", ())
        if not any(type(p).__name__ == "SemanticKernelSpanProcessor" for p in processors):
            raise RuntimeError("mlflow.semantic_kernel.autolog added no SemanticKernelSpanProcessor to the global "
                               "tracer provider")

    def shutdown(self) -> None:
        flush_mlflow(self._tmp)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_mlflow_semantic_kernel(adapter: MlflowSemanticKernelAdapter, scenario: str, base_url: str,
                               truth: Truth) -> None:
    try:
        run_semantic_kernel(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    return app_main(MlflowSemanticKernelAdapter(), run_mlflow_semantic_kernel, family=f"raw+plugin:{PLUGIN}",
                    handoff_family=f"agent_plugin+plugin:{PLUGIN}")


if __name__ == "__main__":
    sys.exit(main())
