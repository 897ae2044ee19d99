"""The raw agent loop of `apps/raw.py` with every model request sent through the LiteLLM SDK (the requests of
`apps/litellm_app.py`, the loop of openlit-litellm), traced by MLflow Tracing's LiteLLM autolog:

    .venvs/mlflow-litellm/bin/python -m apps.mlflow_litellm_app --lib mlflow-litellm --scenario plain_tool_use --out DIR

Each request is ``litellm.completion(model="openai/gpt-4o-mini", client=<the loop's OpenAI client>, timeout=1.0,
num_retries=0, ...)`` (`apps.litellm_app.litellm_complete`). How MLflow traces it (read in mlflow-tracing 3.18.0
`mlflow/litellm/__init__.py` and litellm 1.110.2 `litellm/integrations/mlflow.py`): `mlflow.litellm.autolog()` adds
LiteLLM's own ``"mlflow"`` callback (``MlflowLogger``) to ``litellm.success_callback`` and ``failure_callback`` and
makes LiteLLM's success handler run in the calling thread (its thread-pool ``submit`` patched). The logger makes the
model call's span **after the request ended**, from the callback: an ``LLM`` span ``litellm-completion`` started at the
call's start time, parented to MLflow's active span (the agent function), inputs ``{"messages", "tools", ...}``,
outputs LiteLLM's ``ModelResponse``, LiteLLM's keys as attributes (``litellm_call_id``, ``call_type``, ``model``,
``api_base``, ``raw_llm_response``, ``mlflow.chat.tokenUsage``...), and ``set_span_chat_messages`` /
``set_span_chat_tools``; a failed call an ERROR span with the exception as an ``exception`` event. The app's workflow,
agent and tool spans are `@mlflow.trace` functions (the adapter of `apps/mlflow_raw_app.py`); MLflow's own OTLP
exporter (`corpusgen/mlflow_export.py`).

Ground truth as for ``litellm-otel`` (the other LiteLLM span made after its request): the request header names the span
current when it was sent (the agent function's); a span processor on MLflow's provider notes each
``litellm-completion`` span by parent, in end order, and the n-th request sent under an agent span is the n-th such span
under it (``model_span_for``). Tool executions and agents from inside their bodies (MLflow's current span).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.mlflow_export import mlflow_otlp_export, mlflow_tracer_provider  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402
from corpusgen.truth import Truth, use_current_span  # noqa: E402

from apps.litellm_app import LITELLM_MODEL, litellm_complete  # noqa: E402
from apps.mlflow_raw_app import MlflowRawAdapter  # noqa: E402

SPAN_NAME = "litellm-completion"  # MlflowLogger's span per litellm.completion (f"litellm-{call_type}")


class _LoggerSpans:
    """A span processor on MLflow's provider: each ``litellm-completion`` span's id by parent span id, in end order."""

    def __init__(self) -> None:
        self.by_parent: dict[str | None, list[str]] = {}

    def on_start(self, span, parent_context=None) -> None:
        pass

    def on_end(self, span) -> None:
        if span.name != SPAN_NAME:
            return
        parent = f"{span.parent.span_id:016x}" if span.parent is not None else None
        self.by_parent.setdefault(parent, []).append(f"{span.context.span_id:016x}")

    def _on_ending(self, span) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class MlflowLiteLLMAdapter(MlflowRawAdapter):
    library = "mlflow-litellm"

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self._tmp = mlflow_otlp_export(endpoint, self.library)
        # LiteLLM's MlflowLogger builds an `MlflowClient()`, which opens the tracking store of the temporary folder
        # `mlflow_otlp_export` names; mlflow-skinny 3.18.0 refuses a file store unless told it may (nothing is logged
        # there: the spans go to the OTLP exporter).
        os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
        from mlflow.tracing.provider import get_current_otel_span

        self.autolog()
        self.logger_spans = _LoggerSpans()
        self._seen: dict[str | None, int] = {}
        mlflow_tracer_provider().add_span_processor(self.logger_spans)
        use_current_span(get_current_otel_span)

    def autolog(self) -> None:
        import litellm
        import mlflow.litellm

        litellm.telemetry = False
        mlflow.litellm.autolog()
        if "mlflow" not in litellm.success_callback or "mlflow" not in litellm.failure_callback:
            raise RuntimeError("mlflow.litellm.autolog did not add LiteLLM's mlflow callback")

    def model_span_for(self, request: dict) -> str | None:
        parent = request.get("otel_span")
        position = self._seen.get(parent, 0)
        self._seen[parent] = position + 1
        spans = self.logger_spans.by_parent.get(parent, [])
        return spans[position] if position < len(spans) else None


ADAPTERS = {"mlflow-litellm": MlflowLiteLLMAdapter}


def run_mlflow_litellm(adapter: MlflowLiteLLMAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        truth.notes.append(f"every model request sent by litellm.completion(model={LITELLM_MODEL!r})")
        run_raw(adapter, scenario, base_url, truth, complete=litellm_complete)
    finally:
        note_connections(adapter.guard, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_mlflow_litellm)


if __name__ == "__main__":
    sys.exit(main())
