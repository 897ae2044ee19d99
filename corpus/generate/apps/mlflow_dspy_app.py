"""DSPy's `ReAct` module with tools, on `dspy.LM("openai/gpt-4o-mini", api_base=<fake server>)`, traced by MLflow
Tracing (`mlflow-tracing`, the lightweight tracing SDK): `mlflow.dspy.autolog()`.

    .venvs/mlflow-dspy/bin/python -m apps.mlflow_dspy_app --lib mlflow-dspy --scenario handoff --out DIR

The agents, tools, handoff, scripts and ground truth are those of `apps/openinference_dspy_app.py` (`run_dspy`); only
the instrumentation differs.

How MLflow traces DSPy (read in mlflow-tracing 3.17.2: `mlflow/dspy/autolog.py`, `callback.py`): `autolog()` appends
its `MlflowCallback` to `dspy.settings.callbacks` (and turns on DSPy's `track_usage`); it also patches
`Teleprompter.compile` and `Evaluate.__call__` (unused here). The callback opens an MLflow span in each DSPy callback
and makes it current in MLflow's context: `on_module_start` → `<Module class>.forward` (span type AGENT for a ReAct,
LLM for a Predict, CHAIN for a ChainOfThought, the module's keyword arguments as `mlflow.spanInputs`, the
Prediction as a dict as `mlflow.spanOutputs`, the DSPy usage of the run as `mlflow.chat.tokenUsage`); `on_lm_start`
→ `LM.__call__` (CHAT_MODEL, the LM's kwargs, `model`, `mlflow.llm.model` / `mlflow.llm.provider`, message format
`dspy`); `on_adapter_format_start` / `on_adapter_parse_start` → `<Adapter class>.format` / `.parse` (PARSER), beside the
LM span in the Predict span; `on_tool_start` → `Tool.<name>` (TOOL, the keyword arguments as inputs, `name`,
`description`, `args`), except ReAct's own `finish` tool, which gets no span. An exception a callback sees ends its
span ERROR with an `exception` event. It is a callback, not a patch: no autologging session, nothing left untraced after
a failure. `mlflow.dspy.autolog()` turns on no other autolog (no OpenAI or LiteLLM spans); DSPy 3.4.1's native engine
sends through its vendored lm15 transport anyway, which neither would see.

MLflow's spans live in its own TracerProvider and its own context, exported by MLflow's own OTLP exporter when
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (no tracking server), as for `mlflow-smolagents`. The ground truth of
`run_dspy` reads the current span from MLflow's context here (`corpusgen.truth.use_current_span`): the recorder callback
comes after MLflow's in `dspy.settings.callbacks`, so it runs inside the span MLflow opened for the same callback; the
adapter layer is the `format` and `parse` spans themselves (`other`); lm15's transport hook sends the current span (the
`LM.__call__` span) with each request. The `finish` tool's body runs in its ReAct's span: no tool span.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.truth import Truth, current_ids, use_current_span  # noqa: E402

from apps.openinference_dspy_app import _mark_requests, run_dspy  # noqa: E402

LIBRARY = "mlflow-dspy"


class MlflowDSPyAdapter:
    library = LIBRARY
    convention = "mlflow"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()
        # DSPy's response cache (disk and memory) would answer a repeated request without sending it.
        self.cache_dir = tempfile.mkdtemp(prefix="corpus-dspy-")
        self._tmp = Path(tempfile.mkdtemp(prefix="corpus-mlflow-"))
        # As mlflow_smolagents_app: MLflow's own OTLP exporter, no tracking server, attributes at their defaults.
        os.environ.update(DSPY_CACHEDIR=self.cache_dir, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"http://{endpoint}",
                          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc", OTEL_SERVICE_NAME=f"corpus-{self.library}",
                          MLFLOW_TRACKING_URI=self._tmp.as_uri(), MLFLOW_DISABLE_TELEMETRY="true",
                          DO_NOT_TRACK="true")
        import dspy
        import mlflow.dspy
        from mlflow.dspy.callback import MlflowCallback
        from mlflow.tracing.provider import get_current_otel_span

        mlflow.dspy.autolog()
        if not any(isinstance(c, MlflowCallback) for c in dspy.settings.callbacks):
            raise RuntimeError("mlflow.dspy.autolog did not add its callback")
        use_current_span(get_current_otel_span)  # MLflow's current span, for current_ids
        _mark_requests()

    @staticmethod
    def adapter_layer(others: set[str], hook: str) -> None:
        """MLflow's `<Adapter>.format` / `<Adapter>.parse` span, current in the recorder's callback."""
        _, span_id = current_ids()
        if span_id:
            others.add(span_id)

    def shutdown(self) -> None:
        from mlflow.tracing.provider import provider as mlflow_provider

        provider = mlflow_provider.get()  # MLflow's own (isolated) TracerProvider
        provider.force_flush()
        provider.shutdown()
        shutil.rmtree(self._tmp, ignore_errors=True)
        shutil.rmtree(self.cache_dir, ignore_errors=True)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_mlflow_dspy(adapter: MlflowDSPyAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run_dspy(adapter, scenario, base_url, truth)
    agent_spans = {a["span_id"] for a in truth.agents}
    for t in truth.tools:
        if t["span_id"] in agent_spans:  # ReAct's finish: MLflow's callback skips its tool span
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran in its agent's span: no span of its own")
            t["span_id"] = None


def main() -> int:
    return app_main(MlflowDSPyAdapter(), run_mlflow_dspy, handoff_family="dspy_react", family="dspy_react+retry_once",
                    extra_meta={
                        # DSPy retries inside LM.__call__: a failed attempt and its retry share one span.
                        "model_calls_by_span": True,
                        "retry_evidence": False,
                        # The LM span records completions, not usage: DSPy's usage (track_usage, which the autolog
                        # turns on) is written only as `mlflow.chat.tokenUsage` of a module span whose Prediction
                        # carries it, the run's sum, never a request's.
                        "usage_recorded": False,
                        # DSPy has no tool-call ids: ReAct proposes in text fields.
                        "tool_call_ids_recorded": False,
                    })


if __name__ == "__main__":
    sys.exit(main())
