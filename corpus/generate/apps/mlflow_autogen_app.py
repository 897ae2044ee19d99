"""AutoGen AgentChat (`autogen-agentchat`, `autogen-ext[openai]`) traced by MLflow Tracing's AutoGen autolog
(`mlflow.autogen.autolog()`, `mlflow-tracing`, the lightweight tracing SDK).

    .venvs/mlflow-autogen/bin/python -m apps.mlflow_autogen_app --lib mlflow-autogen --scenario handoff --out DIR

The agents, tools, scripts, retry and Swarm are those of `apps/autogen_app.py` (`run_autogen`), as
`autogen-agentchat` and `openinference-autogen-agentchat` run them; only the tracing differs. No OTel OpenAI
instrumentation and no global TracerProvider: autogen-core's own GenAI spans (and the app's `run_agent` / `run_team`
span of `run_autogen`, opened on the global tracer) stay no-ops, as in an application that traces with MLflow alone.
MLflow exports through its own TracerProvider and OTLP exporter (`corpusgen/mlflow_export.py`, no tracking server), as
for the other MLflow directories.

What the autolog does (read in mlflow-tracing 3.18.0, `mlflow/autogen/__init__.py`, `chat.py`): it patches `run` and
`on_messages` of each direct subclass of `BaseChatAgent` (`AssistantAgent` among them; the app's `AssistantAgent`
subclass inherits the patch) with an AGENT span `<agent name>.<method>` (`mlflow.start_span`, current while it runs;
inputs the call's bound arguments as pydantic dumps, the agent's tools as `mlflow.chat.tools`), and `create` of every
`ChatCompletionClient` subclass with an LLM span `<client class>.create` (inputs the messages as AutoGen's own
`SystemMessage` / `UserMessage` / `AssistantMessage` / `FunctionExecutionResultMessage` dumps, message format
`autogen`, the tools, the model; outputs AutoGen's `CreateResult` dump, `mlflow.chat.tokenUsage`). Nothing wraps a
tool's run, a team's run or `on_messages_stream` (which a team's agent container calls): a Swarm's agents run with no
span of their own. So that one run is one trace, the app's run is an MLflow span too (`mlflow.start_span`, type
CHAIN, named as `run_autogen` names its run), as the other MLflow apps trace the application's own functions.

Ground truth, never read back from the trace: model calls from the request header (`corpusgen.truth.current_ids`
reads MLflow's current span: the autolog's LLM span while AutoGen's client sends), tool executions and call ids from
the tool bodies (the span current there is the agent's: no tool has a span), agent runs and message handling from the
autolog's own span objects (a span processor on MLflow's provider sees each span it starts; the span started by the
patched `run` of an agent is that agent's invocation, the `on_messages` span inside it the same run handled again, of
no node kind of its own). An audit hook on `socket.connect` refuses any connection that does not go to a loopback
address.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import terminal_status_for  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.mlflow_export import (  # noqa: E402
    StartedSpans,
    flush_mlflow,
    mlflow_otlp_export,
    mlflow_tracer_provider,
    span_id_hex,
)
from corpusgen.truth import Truth, use_current_span  # noqa: E402

from apps import autogen_app  # noqa: E402
from apps.autogen_app import run_autogen  # noqa: E402

LIBRARY = "mlflow-autogen"
RUN_SUFFIX = ".run"
MESSAGES_SUFFIX = ".on_messages"
CREATE_SUFFIX = ".create"


class MlflowAutoGenAdapter:
    """mlflow: its AutoGen autolog (agent `run` / `on_messages`, model client `create`), MLflow's own OTLP exporter."""

    library = LIBRARY
    convention = "mlflow"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self._tmp = mlflow_otlp_export(endpoint, self.library)
        # As the autolog's docstring says: called after AutoGen's classes are imported (it patches their subclasses).
        import autogen_agentchat.agents  # noqa: F401
        import autogen_ext.models.openai  # noqa: F401
        import mlflow.autogen
        from mlflow.tracing.provider import get_current_otel_span
        from opentelemetry.trace import INVALID_SPAN

        mlflow.autogen.autolog()
        self.spans = StartedSpans()
        mlflow_tracer_provider().add_span_processor(self.spans)
        use_current_span(lambda: get_current_otel_span() or INVALID_SPAN)

    def shutdown(self) -> None:
        flush_mlflow(self._tmp)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_mlflow_autogen(adapter: MlflowAutoGenAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import mlflow
    from mlflow.entities import SpanType

    name = f"run_{'team' if scenario == 'handoff' else 'agent'}"
    ended: list[BaseException] = []

    def status_of_run(truth_: Truth, runner, exc: BaseException | None) -> None:
        if exc is not None:
            ended.append(exc)
        terminal_status_for(truth_, runner, exc)

    # run_autogen keeps how the run ended (it raises nothing): the app's span records the exception it ended with, as
    # a span the exception had left would.
    autogen_app.terminal_status_for = status_of_run
    try:
        with mlflow.start_span(name=name, span_type=SpanType.CHAIN) as root:
            run_autogen(adapter, scenario, base_url, truth)
            if ended:
                root.record_exception(ended[0])
        label_spans(adapter, truth, name)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def label_spans(adapter: MlflowAutoGenAdapter, truth: Truth, root_name: str) -> None:
    """Node kinds from the autolog's own spans (module docstring): the app's run span a workflow step, each agent
    `run` span an agent invocation, each `on_messages` span inside it of no node kind, no tool or handoff span."""
    started = adapter.spans.started
    root = next((s for s in started if s.name == root_name and s.parent is None), None)
    if root is None:
        raise RuntimeError(f"no {root_name} span started")
    truth.trace_id = format(root.get_span_context().trace_id, "032x")
    truth.root_span = span_id_hex(root)
    truth.workflows = [{"name": root_name, "span_id": truth.root_span}]
    recorded_agents = {a["name"] for a in truth.agents}
    runs = [s for s in started if s.name.endswith(RUN_SUFFIX) and s.name[: -len(RUN_SUFFIX)] in recorded_agents]
    handled = [s for s in started if s.name.endswith(MESSAGES_SUFFIX)]
    for s in handled:
        parent = s.parent.span_id if s.parent else None
        if not any(r.get_span_context().span_id == parent and r.name[: -len(RUN_SUFFIX)] ==
                   s.name[: -len(MESSAGES_SUFFIX)] for r in runs):
            raise RuntimeError(f"{s.name} span not inside its agent's run span")
    truth.agents = [{"name": s.name[: -len(RUN_SUFFIX)], "span_id": span_id_hex(s)} for s in runs]
    if not runs:
        truth.notes.append("no agent span: a team's agents run through on_messages_stream, which the autolog does not "
                           "patch")
    others = {s.name for s in started} - {root_name} - {s.name for s in runs} - {s.name for s in handled}
    if any(not n.endswith(CREATE_SUFFIX) for n in others):
        raise RuntimeError(f"spans of no known kind: {sorted(others)}")
    creates = {span_id_hex(s) for s in started if s.name.endswith(CREATE_SUFFIX)}
    span_of_agent = {span_id_hex(s) for s in handled} | {span_id_hex(s) for s in runs} | {truth.root_span}
    for r in truth.server_log:
        if r.get("otel_span") in creates:
            continue
        if r.get("otel_span") not in span_of_agent:
            raise RuntimeError(f"model request {r['seq']} sent under span {r.get('otel_span')}")
        # MLflow runs the patched calls of a run in one autologging session: once one raised (the 429), every later
        # patched call of the run runs unpatched, so the app's retry and the requests after it have no span.
        r["otel_span"] = None
        r["untraced"] = True
    untraced = [r["seq"] for r in truth.server_log if r.get("untraced")]
    if untraced:
        truth.notes.append(f"model requests {untraced} sent with no MLflow span (autologging session failed)")
    for t in truth.tools:
        if t["span_id"] not in span_of_agent:
            raise RuntimeError(f"tool {t['name']} ran under span {t['span_id']}")
        truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under span {t['span_id']}: no span of its own")
        t["span_id"] = None
    if truth.handoffs:
        truth.notes.append("the triage agent handed off to the billing agent (AutoGen's transfer tool): no agent or "
                           "tool has a span, no handoff is labelled")
        truth.handoffs.clear()
    # Spans of no node kind: each agent's `on_messages` span inside its `run` span.
    truth.kind_counts = {"model_call": len(creates)} | ({"other": len(handled)} if handled else {})


def main() -> int:
    return app_main(MlflowAutoGenAdapter(), run_mlflow_autogen, handoff_family="agents")


if __name__ == "__main__":
    sys.exit(main())
