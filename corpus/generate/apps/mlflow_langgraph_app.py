"""LangGraph's prebuilt ReAct agent (`langgraph-supervisor` for the handoff) with LangChain's `ChatOpenAI` against the
fake server, traced by MLflow Tracing (`mlflow-tracing`, the lightweight tracing SDK): `mlflow.langchain.autolog()`.

    .venvs/mlflow-langgraph/bin/python -m apps.mlflow_langgraph_app --lib mlflow-langgraph --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/langgraph_app.py` (`run_langgraph`); only the
instrumentation differs.

How MLflow traces LangChain (read in mlflow-tracing 3.17.2: `mlflow/langchain/autolog.py`,
`mlflow/langchain/langchain_tracer.py`): `autolog()` patches `BaseCallbackManager.__init__` to add an
`MlflowLangchainTracer` (inheritable) to every callback manager that has none. The tracer opens one MLflow span per
LangChain run (chain -> `CHAIN`, chat model -> `CHAT_MODEL`, tool -> `TOOL`, retriever -> `RETRIEVER`), named after
the run, parented on the span of the parent run (or on MLflow's current span), with the run's inputs / outputs as
`mlflow.spanInputs` / `mlflow.spanOutputs` and the callback's extra arguments (metadata, invocation params) as
attributes; a failed run gets an `exception` event and ERROR status. It keeps each run's span in its own map
(`_run_span_mapping[str(run_id)]`) only while the run is open. MLflow's spans live in its own TracerProvider, isolated
from the global one, and are exported by MLflow's own OTLP exporter when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set
(no tracking server), as in `apps/agents.py` for `mlflow-openai-agents`. `mlflow.langchain.autolog` exists in
`mlflow-tracing` itself (no full `mlflow` needed).

Ground truth: the run records of `run_langgraph`'s callback handler; each run's span is the OTel span under the
`LiveSpan` that `MlflowLangchainTracer._start_span` returns for it, recorded by a class-level wrapper (the tracer's
own map drops a run's span when the run ends). An audit hook on `socket.connect` refuses any connection that does not
go to a loopback address.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import run_one  # noqa: E402

from apps.langgraph_app import run_langgraph  # noqa: E402

LIBRARY = "mlflow-langgraph"


class MlflowLangGraphAdapter:
    library = LIBRARY
    convention = "mlflow"
    content = True

    def setup(self, endpoint):
        self.guard = ConnectGuard()
        # MLflow Tracing exports through its own TracerProvider (isolated from the global one, its default): with
        # OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set and no trace destination it adds only its OtelSpanProcessor (a
        # BatchSpanProcessor) with the gRPC OTLPSpanExporter: no tracking server. Tracking URI in a temporary folder
        # (nothing is logged there); its usage telemetry off. Attributes at their defaults (MLflow's own `mlflow.*`
        # keys; MLFLOW_ENABLE_OTEL_GENAI_SEMCONV unset).
        self._tmp = Path(tempfile.mkdtemp(prefix="corpus-mlflow-"))
        os.environ.update(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"http://{endpoint}",
                          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc", OTEL_SERVICE_NAME=f"corpus-{self.library}",
                          MLFLOW_TRACKING_URI=self._tmp.as_uri(), MLFLOW_DISABLE_TELEMETRY="true",
                          DO_NOT_TRACK="true")
        import mlflow.langchain
        from mlflow.langchain.langchain_tracer import MlflowLangchainTracer

        self.spans: dict = {}  # str(run id) -> the OTel span MLflow opened for the run
        self.lock = threading.Lock()
        adapter = self
        original = MlflowLangchainTracer._start_span
        if getattr(original, "_corpus_wrapped", False):
            raise RuntimeError("MlflowLangchainTracer already wrapped")

        def _start_span(tracer, span_name, parent_run_id, span_type, run_id, *args, **kwargs):
            live = original(tracer, span_name, parent_run_id, span_type, run_id, *args, **kwargs)
            otel = getattr(live, "_span", None)
            if otel is not None and otel.get_span_context().is_valid:
                with adapter.lock:
                    adapter.spans[str(run_id)] = otel
            return live

        _start_span._corpus_wrapped = True
        MlflowLangchainTracer._start_span = _start_span
        mlflow.langchain.autolog()  # MlflowLangchainTracer on every LangChain callback manager

    def span_of(self, run_id):
        """The OTel span MLflow opened for a LangChain run (None when it has none)."""
        if run_id is None:
            return None
        with self.lock:
            return self.spans.get(str(run_id))

    def shutdown(self):
        from mlflow.tracing.provider import provider as mlflow_provider

        provider = mlflow_provider.get()  # MLflow's own (isolated) TracerProvider
        provider.force_flush()
        provider.shutdown()
        shutil.rmtree(self._tmp, ignore_errors=True)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_mlflow_langgraph(adapter, scenario, base_url, truth):
    try:
        run_langgraph(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = MlflowLangGraphAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
    }
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_mlflow_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
