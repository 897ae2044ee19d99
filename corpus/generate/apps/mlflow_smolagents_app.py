"""smolagents `ToolCallingAgent` + `OpenAIServerModel` against the fake server, traced by MLflow Tracing
(`mlflow-tracing`, the lightweight tracing SDK): `mlflow.smolagents.autolog()` and `mlflow.openai.autolog()`.

    .venvs/mlflow-smolagents/bin/python -m apps.mlflow_smolagents_app --lib mlflow-smolagents --scenario handoff --out DIR

The agents, tools, managed agent, retry, scripts and ground truth are those of `apps/smolagents_app.py`
(`run_smolagents`); only the instrumentation differs.

How MLflow traces smolagents (read in mlflow-tracing 3.17.2: `mlflow/smolagents/__init__.py`, `autolog.py`):
`autolog()` patches `MultiStepAgent.run`, `CodeAgent.step`, `ToolCallingAgent.step`, `Tool.__call__` and the
`__call__` of every `Model` subclass smolagents exports, each with an MLflow span named `<class>.<method>` (span type
AGENT, TOOL or CHAT_MODEL), the call's bound arguments as `mlflow.spanInputs`, the instance's fields as attributes.
smolagents 1.26's run loop calls `_step_stream`, not `step`, and a ToolCallingAgent calls `model.generate`, not the
model's `__call__`: under this autolog alone a run has agent and tool spans and no step or model-call span. So, as the
other smolagents directories add their OpenAI client instrumentation, `mlflow.openai.autolog()` traces the
`OpenAIServerModel` requests (a `Completions` span per `chat.completions.create`: each attempt of smolagents' own
rate-limit retry is its own span). A managed agent is called as the manager's tool (`MultiStepAgent.__call__`, not
patched), so its run span sits in the manager's run span with no tool span between.

MLflow's spans live in its own TracerProvider and its own context (not OpenTelemetry's global ones), exported by
MLflow's own OTLP exporter when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (no tracking server), as for
`mlflow-openai-agents` and `mlflow-langgraph`. The ground truth of `run_smolagents` reads the current span
(`corpusgen.truth.current_ids`: step callbacks, tool bodies) from MLflow's context here. MLflow's OpenAI client patch
opens its span without making it current and names it in the request's W3C `traceparent` header: the request hook copies
that span id to `x-corpus-otel-span` (as `apps/agents.py` does for `mlflow-openai-agents`). An audit hook on
`socket.connect` refuses any connection that does not go to a loopback address.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import run_one  # noqa: E402
from corpusgen.truth import Truth, use_current_span  # noqa: E402

from apps.smolagents_app import run_smolagents  # noqa: E402

LIBRARY = "mlflow-smolagents"


def _mark_request_span(request) -> None:
    """The span of the create() call that sends the request, from the `traceparent` header MLflow's OpenAI client
    patch puts on it (00-<trace id>-<span id>-<flags>)."""
    parts = (request.headers.get("traceparent") or "").split("-")
    if len(parts) == 4:
        request.headers["x-corpus-otel-span"] = parts[2]


class MlflowSmolagentsAdapter:
    library = LIBRARY
    convention = "mlflow"
    content = True

    def setup(self, endpoint: str) -> None:
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
        import mlflow.openai
        import mlflow.smolagents
        from mlflow.tracing.provider import get_current_otel_span
        from smolagents import MultiStepAgent, Tool

        originals = {(cls, m): getattr(cls, m) for cls, m in ((MultiStepAgent, "run"), (Tool, "__call__"))}
        mlflow.smolagents.autolog()  # MultiStepAgent.run, *.step, Tool.__call__, Model.__call__
        mlflow.openai.autolog()  # the OpenAI client's create() calls OpenAIServerModel makes
        for (cls, method), original in originals.items():
            if getattr(cls, method) is original:
                raise RuntimeError(f"mlflow.smolagents.autolog did not patch {cls.__name__}.{method}")
        use_current_span(get_current_otel_span)  # MLflow's current span, for current_ids

    def shutdown(self) -> None:
        from mlflow.tracing.provider import provider as mlflow_provider

        provider = mlflow_provider.get()  # MLflow's own (isolated) TracerProvider
        provider.force_flush()
        provider.shutdown()
        shutil.rmtree(self._tmp, ignore_errors=True)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def record_untraced(truth: Truth) -> None:
    """What MLflow opened no span for. Its autolog runs every patched call of a run in one autologging session, and
    once a patched call raised (a tool that failed, a request answered 429) the session is failed and every later
    patched call of the run runs unpatched: no span for the later requests (no `traceparent` on them) and tools (their
    bodies run under the agent's run span)."""
    for r in truth.server_log:
        if r.get("otel_span") is None:
            r["untraced"] = True
    untraced = [r["seq"] for r in truth.server_log if r.get("untraced")]
    if untraced:
        truth.notes.append(f"model requests {untraced} sent with no MLflow span (autologging session failed)")
    agent_spans = {a["span_id"] for a in truth.agents}
    for t in truth.tools:
        if t["span_id"] in agent_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under its agent's span: no span of its own")
            t["span_id"] = None
    # One model call per traced request (each attempt of smolagents' rate-limit retry is its own `Completions` span);
    # smolagents 1.26 runs an ActionStep through `_step_stream`, which MLflow does not patch: no step spans.
    truth.kind_counts["model_call"] = len({r["otel_span"] for r in truth.server_log if r.get("otel_span")})
    truth.kind_counts["workflow_step"] = 0


def run_mlflow_smolagents(adapter: MlflowSmolagentsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import httpx
    import openai

    client = openai.DefaultHttpxClient(event_hooks={"request": [_mark_request_span]},
                                       limits=httpx.Limits(max_keepalive_connections=0))
    try:
        run_smolagents(adapter, scenario, base_url, truth, http_client=client)
        record_untraced(truth)
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
    adapter = MlflowSmolagentsAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
        # smolagents sends earlier tool calls and their results as text messages ("Calling tools: [{'id':
        # 'call_…', ...}]" as assistant, "Observation: …" as user), not as role=tool messages.
        "tool_results_as_text": True,
    }
    return run_one(meta, adapter, run_mlflow_smolagents, Path(a.out), family="final_answer_tool")


if __name__ == "__main__":
    sys.exit(main())
