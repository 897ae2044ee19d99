"""Two more agent frameworks of the corpus under MLflow Tracing's framework autologging (`mlflow-tracing`, the
lightweight tracing SDK): LlamaIndex (`mlflow.llama_index.autolog()`) and Agno (`mlflow.agno.autolog()`).

    .venvs/mlflow-llamaindex-agno/bin/python -m apps.mlflow_llamaindex_agno_app --lib mlflow-llama-index \
        --scenario handoff --out DIR
    .venvs/mlflow-llamaindex-agno/bin/python -m apps.mlflow_llamaindex_agno_app --lib mlflow-agno --scenario handoff \
        --out DIR

The agents are the corpus's own, used as they are: the LlamaIndex agents of `apps/llamaindex_app.py` (`run_agents`:
`FunctionAgent`, `AgentWorkflow` for the handoff, the OpenAI LLM with LlamaIndex's own retry) and the Agno agents and
team of `apps/agno_app.py` (`run_agno`: `OpenAIChat`, `Team` delegation for the handoff, `Model.retries` after a 429).
MLflow exports through its own TracerProvider and OTLP exporter (`corpusgen/mlflow_export.py`, no tracking server), as
for the other MLflow directories.

What the autologs do (read in mlflow-tracing 3.18.0):
- LlamaIndex (`mlflow/llama_index/tracer.py`): an `MlflowSpanHandler` and an `MlflowEventHandler` on LlamaIndex's root
  dispatcher. Every dispatcher span becomes an MLflow span named `<Class>.<method>` (type LLM for an LLM, AGENT for a
  `BaseWorkflowAgent`, TOOL for a tool, CHAIN else), the bound arguments as inputs, the instance's fields as attributes,
  the offered tools as `mlflow.chat.tools` on an LLM span; the event handler fills chat messages, usage and tool calls
  from LlamaIndex's LLM events. No other patch.
- Agno (`mlflow/agno/autolog_v2.py`, Agno >= 2): no patch of its own: OpenInference's `AgnoInstrumentor` is instrumented
  on a tracer provider of MLflow's, whose tracer parents Agno's spans under an active MLflow span. The spans are
  OpenInference's (AGENT / LLM / TOOL with `openinference.span.kind`), exported by MLflow's provider.

Ground truth, never read back from the trace. LlamaIndex: as `openinference-llama-index` (`record_nodes` of
`apps/llamaindex_app.py`): a dispatcher span handler registered after MLflow's reads MLflow's open-span map (each
entry's MLflow span, whose OpenTelemetry span is what is exported), the tool bodies, the request header (the span
current in MLflow's context when the request is sent). Agno: as `openinference-agno` (`run_agno`'s hooks, inside
OpenInference's spans, current in OpenTelemetry's context). An audit hook on `socket.connect` refuses any connection
that does not go to a loopback address.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.truth import Truth, use_current_span  # noqa: E402

from apps.mlflow_frameworks_app import MlflowFrameworkAdapter  # noqa: E402

LLAMA_INDEX = "mlflow-llama-index"
AGNO = "mlflow-agno"
# Where run_agents finds the map from a dispatcher span id to the OpenTelemetry span MLflow opened for it.
SPAN_MAP = "corpus_otel_spans"


class OtelSpansOf:
    """A read-only view of MLflow's open-span map (dispatcher span id -> `_LlamaSpan`) giving each entry's
    OpenTelemetry span (the `LiveSpan`'s `_span`), the shape `run_agents` reads an instrumentation's map in."""

    def __init__(self, open_spans: dict) -> None:
        self.open_spans = open_spans

    def get(self, id_: str):
        entry = self.open_spans.get(id_)
        live = getattr(entry, "_mlflow_span", None)
        return getattr(live, "_span", None)


class MlflowLlamaIndexAdapter(MlflowFrameworkAdapter):
    library = LLAMA_INDEX
    # LlamaIndex's retry re-sends a request inside the same `OpenAI.achat` span, which shows only the last attempt
    # (as for the other LlamaIndex directories).
    label_rules = {"retry_evidence": False}

    def autolog(self) -> None:
        import mlflow.llama_index
        from llama_index.core.instrumentation import get_dispatcher

        mlflow.llama_index.autolog()
        handlers = [h for h in get_dispatcher().span_handlers if type(h).__name__ == "MlflowSpanHandler"]
        if len(handlers) != 1:
            raise RuntimeError("mlflow.llama_index.autolog added no span handler to LlamaIndex's dispatcher")
        object.__setattr__(handlers[0], SPAN_MAP, OtelSpansOf(handlers[0].open_spans))


class MlflowAgnoAdapter(MlflowFrameworkAdapter):
    library = AGNO

    def autolog(self) -> None:
        import mlflow.agno
        from agno.agent import _run as agent_run_module
        from agno.tools.function import FunctionCall

        os.environ.setdefault("AGNO_TELEMETRY", "false")
        # What OpenInference's instrumentor wraps: the agent's module-level run function and FunctionCall.execute.
        owners = ((agent_run_module, "_run"), (FunctionCall, "execute"))
        originals = {(owner, m): getattr(owner, m) for owner, m in owners}
        mlflow.agno.autolog()
        for (owner, method), original in originals.items():
            if getattr(owner, method) is original:
                raise RuntimeError(f"mlflow.agno.autolog did not instrument {owner.__name__}.{method}")

    def setup(self, endpoint: str) -> None:
        super().setup(endpoint)
        from opentelemetry import trace

        # OpenInference's spans are made current in OpenTelemetry's own context (its tracer's start_as_current_span),
        # not in MLflow's: the hooks of run_agno read them there.
        use_current_span(trace.get_current_span)


def run_mlflow_llama_index(adapter: MlflowLlamaIndexAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from apps.llamaindex_app import record_nodes, run_agents

    adapter.truth = truth
    try:
        run = run_agents(scenario, base_url, truth, handler_module="mlflow.llama_index", span_attr=None,
                         span_map=SPAN_MAP)
        if any(r.get("status") == 429 for r in truth.server_log):
            truth.notes.append("LlamaIndex's retry re-sent the request after HTTP 429 inside the same achat span")
        record_nodes(truth, run)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def run_mlflow_agno(adapter: MlflowAgnoAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from apps.agno_app import run_agno

    adapter.truth = truth
    try:
        run_agno(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def run_app(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    (run_mlflow_llama_index if adapter.library == LLAMA_INDEX else run_mlflow_agno)(adapter, scenario, base_url, truth)


def main() -> int:
    lib = sys.argv[sys.argv.index("--lib") + 1] if "--lib" in sys.argv else ""
    if lib == LLAMA_INDEX:
        # The script families of openinference-llama-index (LlamaIndex's own retry once; AgentWorkflow's handoff).
        return adapters_main({LLAMA_INDEX: MlflowLlamaIndexAdapter}, run_app, family="raw+retry_once",
                             handoff_family="agent_workflow+retry_once")
    # agno_app's script family for every scenario (its handoff is the Team's delegate_task_to_member script).
    return adapters_main({AGNO: MlflowAgnoAdapter}, run_app, family="agno", handoff_family="agno")


if __name__ == "__main__":
    sys.exit(main())
