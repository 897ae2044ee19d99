"""AG2 (`ag2` 0.14, imported as `autogen`) agents on the real `openai` client against the fake server, traced by MLflow
Tracing's AG2 autolog (`mlflow.ag2.autolog()`, from `mlflow-skinny`: the lightweight `mlflow-tracing` does not ship
`mlflow.ag2`).

    .venvs/mlflow-ag2/bin/python -m apps.mlflow_ag2_app --lib mlflow-ag2 --scenario handoff --out DIR

The agents, tools, config list (two identical entries: AG2's fallback retries a failed request once), group chat with
handoffs and tool-call ids are those of `apps/openlit_ag2_app.py` (`run_single`, `run_group`, `llm_config`,
`install_call_ids`), as `openlit-ag2` runs them; only the tracing differs. MLflow exports through its own
TracerProvider and OTLP exporter (`corpusgen/mlflow_export.py`, no tracking server), as for the other MLflow
directories; the app opens no span of its own (MLflow's spans live in its own provider and context).

What the autolog does (read in mlflow-skinny 3.18.0, `mlflow/ag2/ag2_logger.py`): `runtime_logging.start(logger=
MlflowAg2Logger())`, AG2's runtime logging. Its `log_new_agent` patches `initiate_chat` (the session's root span, named
`initiate_chat`, type UNKNOWN, only when no session is open) and `register_function` (each registered function wrapped:
a TOOL span named after the function). `log_chat_completion`, called by AG2's client after a request, opens an LLM span
`chat_completion` (inputs the request, outputs AG2's response); `log_event("received_message")` opens an AGENT span
named after the message's **sender** (inputs the previous message, outputs this one) and moves under it every LLM and
TOOL span started since the previous message (their parent rewritten before they end). None of these spans is made
current.

Ground truth, read from the autolog's own span objects and never from the trace: a span processor on MLflow's provider
sees every span it starts; the span `log_chat_completion` started is the model call of the request it logs (the fake
server's newest request not yet claimed: AG2's requests are sequential); the span `log_event` started for a received
message is that message's reply span (a workflow step: one reply of its sender, as `openlit-ag2` labels a
`generate_reply`; an AG2 agent has no run of its own); the session's root span (no parent) a workflow step and the
root a run-level finding is anchored on; a tool body records the newest started span named after its tool (the
autolog's TOOL span around it). A request with no span is `untraced`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import plain_functions, terminal_status_for  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.mlflow_export import (  # noqa: E402
    StartedSpans,
    flush_mlflow,
    mlflow_otlp_export,
    mlflow_tracer_provider,
    span_id_hex,
)
from corpusgen.scenarios import SCENARIOS  # noqa: E402
from corpusgen.truth import Truth, use_current_span  # noqa: E402

from apps.openlit_ag2_app import (  # noqa: E402
    HANDOFF_PREFIX,
    CallIdRunner,
    install_call_ids,
    llm_config,
    run_group,
    run_single,
)

LIBRARY = "mlflow-ag2"


@dataclass(slots=True)
class AutologCalls:
    """What the autolog's logger opened, per call: (request seq, span id) of each `log_chat_completion`, (sender,
    span id) of each received message's span, in call order."""

    completions: list[tuple[int | None, str]] = field(default_factory=list)
    messages: list[tuple[str, str]] = field(default_factory=list)
    server_log: list[dict] = field(default_factory=list)

    def install(self, spans: StartedSpans) -> None:
        from mlflow.ag2.ag2_logger import MlflowAg2Logger

        calls = self
        log_chat_completion, log_event = MlflowAg2Logger.log_chat_completion, MlflowAg2Logger.log_event

        def chat_completion(logger, *args, **kwargs):
            before = len(spans.started)
            result = log_chat_completion(logger, *args, **kwargs)
            for s in spans.started[before:]:
                claimed = {seq for seq, _ in calls.completions}
                seq = next((r["seq"] for r in reversed(calls.server_log) if r["seq"] not in claimed), None)
                calls.completions.append((seq, span_id_hex(s)))
            return result

        def event(logger, source, name, **kwargs):
            before = len(spans.started)
            result = log_event(logger, source, name, **kwargs)
            for s in spans.started[before:]:
                calls.messages.append((s.name, span_id_hex(s)))
            return result

        MlflowAg2Logger.log_chat_completion = chat_completion
        MlflowAg2Logger.log_event = event


class MlflowAG2Adapter:
    """mlflow: its AG2 autolog (AG2's runtime logging), MLflow's own OTLP exporter."""

    library = LIBRARY
    convention = "mlflow"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self._tmp = mlflow_otlp_export(endpoint, self.library)
        import mlflow.ag2

        self.spans = StartedSpans()
        self.calls = AutologCalls()
        self.calls.install(self.spans)
        mlflow.ag2.autolog()
        from autogen import runtime_logging

        if not runtime_logging.logging_enabled():
            raise RuntimeError("mlflow.ag2.autolog did not start AG2's runtime logging")
        mlflow_tracer_provider().add_span_processor(self.spans)
        self.tool_names: set[str] = set()
        self.executed: dict[str, str] = {}  # tool-call id -> the TOOL span opened while it was executed
        use_current_span(self._tool_span)

    def _tool_span(self):
        from opentelemetry.trace import INVALID_SPAN

        return self.spans.newest_named(self.tool_names) or INVALID_SPAN

    def model_span_for(self, request: dict) -> str | None:
        return next((sid for seq, sid in self.calls.completions if seq == request.get("seq")), None)

    def shutdown(self) -> None:
        flush_mlflow(self._tmp)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def install_executed_spans(adapter: MlflowAG2Adapter) -> None:
    """The TOOL span the autolog opened inside each `execute_function` (the wrapped function it calls), by call id:
    AG2's own transfer function (`transfer_to_target`, registered as `transfer_to_<agent>_<n>`) records itself before
    it runs (`install_call_ids`), so its span is known only here; an unknown function opens none."""
    from wrapt import wrap_function_wrapper

    def wrapper(wrapped, instance, args, kwargs):
        call_id = kwargs.get("call_id", args[1] if len(args) > 1 else None)
        before = len(adapter.spans.started)
        try:
            return wrapped(*args, **kwargs)
        finally:
            opened = adapter.spans.started[before:]
            if opened and call_id:
                adapter.executed[call_id] = span_id_hex(opened[0])

    wrap_function_wrapper("autogen.agentchat.conversable_agent", "ConversableAgent.execute_function", wrapper)


def run_mlflow_ag2(adapter: MlflowAG2Adapter, scenario: str, base_url: str, truth: Truth) -> None:
    spec = SCENARIOS[scenario]
    adapter.calls.server_log = truth.server_log
    runner = CallIdRunner(truth, truth.server_log)
    install_call_ids(runner)
    install_executed_spans(adapter)
    functions = plain_functions(runner)
    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    adapter.tool_names = set(functions) | {f"{HANDOFF_PREFIX}billing_agent_1"}
    if scenario == "handoff":
        truth.offered_tools.add(f"{HANDOFF_PREFIX}billing_agent_1")
    exc: BaseException | None = None
    try:
        config = llm_config(base_url)
        if scenario == "handoff":
            run_group(config, functions, truth)
        else:
            run_single(scenario, config, functions)
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    label_spans(adapter, truth)


def label_spans(adapter: MlflowAG2Adapter, truth: Truth) -> None:
    """Node kinds from the autolog's own spans (module docstring), the handoff, and the requests with no span."""
    root = adapter.spans.root
    if root is not None:
        truth.trace_id = format(root.get_span_context().trace_id, "032x")
        truth.root_span = span_id_hex(root)
        truth.record_workflow(root.name, span_id=truth.root_span, trace_id=truth.trace_id)
    for name, span_id in adapter.calls.messages:
        truth.record_workflow(name, span_id=span_id)
    traced = {seq for seq, _ in adapter.calls.completions}
    for r in truth.server_log:
        if r["seq"] not in traced:
            # AG2 logs no completion for a request that raised a timeout: no span. Its error reaches the session's
            # root span (ERROR with the exception) when the run ended with it.
            r["untraced"] = True
            if not (r.get("status") == 200 and r.get("outcome") == "ok"):
                r["failure_span"] = truth.root_span
                r["failure_in_trace"] = truth.error is not None
    truth.kind_counts["model_call"] = len(traced - {None})
    untraced = [r["seq"] for r in truth.server_log if r.get("untraced")]
    if untraced:
        truth.notes.append(f"model requests {untraced} logged by no log_chat_completion: no span of their own")
    message_spans = {sid for _, sid in adapter.calls.messages} | {truth.root_span}
    for t in truth.tools:
        if t["call_id"] in adapter.executed:
            t["span_id"] = adapter.executed[t["call_id"]]
        if t["span_id"] is None or t["span_id"] in message_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran with no span of its own")
            t["span_id"] = None
    transfers = [t for t in truth.tools if t["name"].startswith(HANDOFF_PREFIX) and t["span_id"]]
    if transfers:
        # AG2's transfer function (`transfer_to_target`) does nothing but name the next speaker (its result is
        # `Transfer to <agent>`): its execution is the handoff node, as AutoGen Swarm's transfer, the Agents SDK's and
        # ADK's transfer_to_agent are. It goes to the billing agent's first reply, whose span's inputs (the message it
        # answers) hold the transfer's result with its call id.
        billing = next((sid for n, sid in adapter.calls.messages if n == "billing_agent"), None)
        for t in transfers:
            truth.handoffs.append({"from_span": t["span_id"], "to_span": billing})
        truth.kind_counts["handoff"] = len(transfers)
        truth.kind_counts["tool_execution"] = sum(1 for t in truth.tools if t["span_id"]) - len(transfers)


def main() -> int:
    # A request that failed with an HTTP error is logged by AG2 as a completion whose response is
    # `error_code:<the error body's code>, config <n> failed`: its span, status OK, names no HTTP status (the fake
    # server's error bodies have no code), so a 429 retried on the next config entry cannot be told from any other failed
    # request in the trace (`retry_evidence: false`: its finding `indeterminate`).
    return app_main(MlflowAG2Adapter(), run_mlflow_ag2, family="raw+retry_once", handoff_family="ag2_group",
                    extra_meta={"retry_evidence": False})


if __name__ == "__main__":
    sys.exit(main())
