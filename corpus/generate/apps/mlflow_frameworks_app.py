"""Two agent frameworks of the corpus under MLflow Tracing's framework autologging (`mlflow-tracing`, the lightweight
tracing SDK): CrewAI (`mlflow.crewai.autolog()`) and Pydantic AI (`mlflow.pydantic_ai.autolog()`).

    .venvs/mlflow-crewai/bin/python -m apps.mlflow_frameworks_app --lib mlflow-crewai --scenario handoff --out DIR
    .venvs/mlflow-pydantic-ai/bin/python -m apps.mlflow_frameworks_app --lib mlflow-pydantic-ai --scenario handoff --out DIR

The agents are the corpus's own, used as they are: the crew of `apps/crewai_app.py` (`kickoff_crew`, CrewAI's native
OpenAI provider, one task, delegation for the handoff; telemetry off, HOME in a temporary folder) and the agents of
`apps/pydantic_ai_app.py` (`run_pydantic_ai`, `OpenAIChatModel` on the corpus client, agent delegation for the handoff;
Pydantic AI's own instrumentation not turned on by the app). MLflow exports through its own TracerProvider and OTLP
exporter (`corpusgen/mlflow_export.py`, no tracking server), as for the other MLflow directories.

What the autologs patch (read in mlflow-tracing 3.18.0):
- CrewAI (`mlflow/crewai/__init__.py`): `Crew.kickoff`, `Task.execute_sync` (CHAIN), `Agent.execute_task` (AGENT,
  named by the role), `crewai.LLM.call` (LLM) and, for crewai >= 1.15.29, `AgentExecutor._execute_single_native_tool_call`
  (a TOOL span named by the called tool, inputs `{"tool_name", "tool_args"}`). CrewAI's native OpenAI provider is an
  `OpenAICompletion` (a `BaseLLM`, no `crewai.LLM`), so no CrewAI span records a model call: `mlflow.openai.autolog()`
  traces the provider's client calls (a `Completions` span per `chat.completions.create`, never current, named in the
  request's `traceparent`), as `mlflow-smolagents` adds it for smolagents' OpenAI model.
- Pydantic AI (`mlflow/pydantic_ai/autolog_v2.py`, Pydantic AI >= 2.5): `Agent.run` (an AGENT span `Agent.run`), the
  `Instrumentation` capability's `wrap_model_request` (an LLM span `<Model class>.request`, current while the request is
  sent) and `wrap_tool_execute` (a TOOL span named by the tool); its `Agent.__init__` patch sets `instrument=True` on
  every agent, which is what makes Pydantic AI run that capability (whose own OpenTelemetry spans go to the global
  tracer provider, left unset here: no-op, as for an MLflow user who set none).

Ground truth, never read back from the trace: the current span read from MLflow's context
(`corpusgen.truth.use_current_span`), or, while MLflow's OpenAI client patch has its `Completions` span open, that span
(a span processor on MLflow's provider keeps it: `apps/mlflow_raw_app.py` `OpenClientSpans`). CrewAI: the crew span
from `before_kickoff_callbacks`, the task span from a `Task` subclass's `_execute_core`, the agent spans from CrewAI's
before-LLM-call hook (one per `Agent.execute_task`: a retried task's second attempt and the delegated coworker each
their own), model calls from the request header (CrewAI's transport interceptor), tool bodies (ToolRunner); a wrapper
of `_execute_single_native_tool_call` installed before the autolog (so it runs inside MLflow's TOOL span) records the
delegation tool's and an unknown tool's run with the call's id. Pydantic AI: as `pydantic-ai-native` (model spans from
the request hook, tool bodies with `ctx.tool_call_id`, agent runs from a `Hooks` capability's `before_run`). A request
sent with no MLflow span (MLflow's autologging session failed once a patched call raised) is `untraced`, and a tool
body that ran under its agent's span had no span of its own. An audit hook on `socket.connect` refuses any connection
that does not go to a loopback address.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.mlflow_export import flush_mlflow, mlflow_otlp_export, mlflow_tracer_provider  # noqa: E402
from corpusgen.truth import Truth, use_current_span  # noqa: E402

CREWAI = "mlflow-crewai"
PYDANTIC_AI = "mlflow-pydantic-ai"
DELEGATION_TOOL = "delegate_work_to_coworker"


class OpenClientSpans:
    """A span processor on MLflow's provider: the span its client patch opened (named ``name``) while it is open (as
    `apps/mlflow_raw_app.py`'s, whose module imports every raw loop's client)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.open: list = []

    def on_start(self, span, parent_context=None) -> None:
        if self.name and span.name == self.name:
            self.open.append(span)

    def on_end(self, span) -> None:
        self.open = [s for s in self.open if s.get_span_context().span_id != span.get_span_context().span_id]

    def _on_ending(self, span) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def current(self):
        return self.open[-1] if len(self.open) == 1 else None


class MlflowFrameworkAdapter:
    convention = "mlflow"
    content = True
    library = ""
    client_span = ""  # the name of the span MLflow's OpenAI client patch opens per create(), where it is on

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self._tmp = mlflow_otlp_export(endpoint, self.library)
        from mlflow.tracing.provider import get_current_otel_span

        self.truth: Truth | None = None
        self.autolog()
        self.client_spans = OpenClientSpans(self.client_span)
        mlflow_tracer_provider().add_span_processor(self.client_spans)
        use_current_span(lambda: self.client_spans.current() or get_current_otel_span())

    def autolog(self) -> None:
        raise NotImplementedError

    def model_span_for(self, request: dict) -> str | None:
        return request.get("otel_span")

    def shutdown(self) -> None:
        flush_mlflow(self._tmp)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def _call_of(tool_call) -> tuple[str | None, str | None, str]:
    """Name, id and arguments (JSON text) of a native tool call as CrewAI hands it to its executor (the openai
    client's object, or a dict)."""
    if isinstance(tool_call, dict):
        fn = tool_call.get("function") or {}
        return fn.get("name") or tool_call.get("name"), tool_call.get("id"), fn.get("arguments") or "{}"
    fn = getattr(tool_call, "function", None)
    return getattr(fn, "name", None), getattr(tool_call, "id", None), getattr(fn, "arguments", None) or "{}"


class MlflowCrewAIAdapter(MlflowFrameworkAdapter):
    library = CREWAI
    client_span = "Completions"

    def autolog(self) -> None:
        import json

        import mlflow.crewai
        import mlflow.openai
        from crewai import Agent, Crew, Task
        from crewai.agents.agent_executor import AgentExecutor

        adapter = self
        inner = AgentExecutor._execute_single_native_tool_call

        def execute_single_native_tool_call(executor, tool_call, *args, **kwargs):
            """Runs inside the TOOL span MLflow's patch opens around it: the runs whose body is CrewAI's own (the
            delegation tool) or that have none (a tool the agent does not have) are recorded here."""
            name, call_id, arguments = _call_of(tool_call)
            truth = adapter.truth
            offered = {getattr(t, "name", None) for t in getattr(executor, "tools", None) or []}
            if truth is not None and name == DELEGATION_TOOL:
                truth.record_tool(call_id, name, "ok", args=json.loads(arguments or "{}"))
            elif truth is not None and name not in offered and name not in truth.offered_tools:
                truth.record_tool(call_id, name, "unknown_tool", args=json.loads(arguments or "{}"))
            return inner(executor, tool_call, *args, **kwargs)

        AgentExecutor._execute_single_native_tool_call = execute_single_native_tool_call
        originals = {(cls, m): getattr(cls, m) for cls, m in ((Crew, "kickoff"), (Agent, "execute_task"),
                                                              (Task, "execute_sync"),
                                                              (AgentExecutor, "_execute_single_native_tool_call"))}
        mlflow.crewai.autolog()
        mlflow.openai.autolog()  # the native OpenAI provider's client calls
        for (cls, method), original in originals.items():
            if getattr(cls, method) is original:
                raise RuntimeError(f"mlflow.crewai.autolog did not patch {cls.__name__}.{method}")


class MlflowPydanticAIAdapter(MlflowFrameworkAdapter):
    library = PYDANTIC_AI
    pydantic_ai_instrumentation = False  # the app does not call Agent.instrument_all

    def autolog(self) -> None:
        import mlflow.pydantic_ai
        from pydantic_ai import Agent
        from pydantic_ai.capabilities.instrumentation import Instrumentation

        originals = {(cls, m): getattr(cls, m) for cls, m in ((Agent, "run"), (Instrumentation, "wrap_model_request"),
                                                              (Instrumentation, "wrap_tool_execute"))}
        mlflow.pydantic_ai.autolog()
        for (cls, method), original in originals.items():
            if getattr(cls, method) is original:
                raise RuntimeError(f"mlflow.pydantic_ai.autolog did not patch {cls.__name__}.{method}")


def record_untraced(truth: Truth, agent_spans: set[str]) -> None:
    """What MLflow opened no span for: a request sent with no span (no `traceparent`, no MLflow span current) and a
    tool whose body ran under its agent's span."""
    surfaced = truth.error is not None
    # A run's error that already ended a traced request's span (the first 500 or timeout, ERROR on its `Completions`
    # span) shows on the agent, task and crew spans as that span's failure: a later failed request with no span of its
    # own (CrewAI's retry of the task, untraced once the session failed) leaves no evidence of its own there.
    traced_failure = any(r.get("otel_span") and r.get("otel_span") not in agent_spans
                         and not (r.get("status") == 200 and r.get("outcome") == "ok") for r in truth.server_log)
    for r in truth.server_log:
        if r.get("otel_span") is None or r.get("otel_span") in agent_spans:
            sent_under = r.get("otel_span")
            r["otel_span"] = None
            r["untraced"] = True
            if sent_under and not (r.get("status") == 200 and r.get("outcome") == "ok"):
                # A failed request with no span of its own: its error reaches the agent span it was sent under (the
                # outermost patched call still traced), and is in the trace only if the run ended with it.
                r["failure_span"] = sent_under
                r["failure_in_trace"] = surfaced and not traced_failure
    untraced = [r["seq"] for r in truth.server_log if r.get("untraced")]
    if untraced:
        truth.notes.append(f"model requests {untraced} sent with no MLflow span of their own")
    for t in truth.tools:
        if t["span_id"] in agent_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under its agent's span: no span of its own")
            t["span_id"] = None
    # One model call per request span (a request retried inside one span is one call), none for an untraced one.
    truth.kind_counts["model_call"] = len({r["otel_span"] for r in truth.server_log if r.get("otel_span")})


def run_mlflow_crewai(adapter: MlflowCrewAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from apps.crewai_app import kickoff_crew, start_role
    from apps.traceloop_crewai_app import recording_task_cls

    adapter.truth = truth
    try:
        run = kickoff_crew(scenario, base_url, truth, task_cls=recording_task_cls(truth))
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    agent_spans: dict[str, str] = {}
    for role, span_id in run.llm_hook_spans:
        if span_id and span_id not in agent_spans:
            agent_spans[span_id] = role
            truth.record_agent(role, span_id=span_id)
    truth.notes.append(f"before-LLM-call hook spans: {run.llm_hook_spans}")
    if scenario == "handoff":
        # The delegation tool's run (its TOOL span, recorded by the executor wrapper) runs the coworker's
        # Agent.execute_task: its own AGENT span, inside the tool's.
        role = start_role(scenario)
        from_span = next((sid for sid, r in agent_spans.items() if r == role), None)
        to_span = next((sid for sid, r in agent_spans.items() if r == "billing_agent"), None)
        truth.handoffs.append({"from_span": from_span, "to_span": to_span})
    record_untraced(truth, set(agent_spans))


def run_mlflow_pydantic_ai(adapter: MlflowPydanticAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from apps.pydantic_ai_app import run_pydantic_ai

    adapter.truth = truth
    try:
        run_pydantic_ai(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    record_untraced(truth, {a["span_id"] for a in truth.agents})


def main() -> int:
    lib = sys.argv[sys.argv.index("--lib") + 1] if "--lib" in sys.argv else ""
    if lib == CREWAI:
        from apps.crewai_app import crewai_home

        with crewai_home():
            # CrewAI re-executes a failed task once (+retry_once), as for the other CrewAI directories.
            return app_main(MlflowCrewAIAdapter(), run_mlflow_crewai, family="raw+retry_once",
                            handoff_family="crewai+retry_once")
    if lib == PYDANTIC_AI:
        # The app's retry after a 429 (a `RetryModelRequest` from Pydantic AI's request hook) attempts the request again
        # inside the same `wrap_model_request`, hence inside the same MLflow LLM span, which ends OK and records
        # nothing of the failed attempt: two requests, one model call, no evidence of the 429.
        return app_main(MlflowPydanticAIAdapter(), run_mlflow_pydantic_ai,
                        extra_meta={"model_calls_by_span": True, "retry_evidence": False})
    print(f"--lib must be one of {[CREWAI, PYDANTIC_AI]}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
