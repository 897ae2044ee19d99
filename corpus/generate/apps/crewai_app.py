"""CrewAI (native OpenAI provider, function calling) against the fake server, traced by OpenInference's CrewAI
instrumentation plus its OpenAI client instrumentation (the LLM spans).

    .venvs/crewai/bin/python -m apps.crewai_app --lib openinference-crewai --scenario handoff --out DIR
    .venvs/crewai-anthropic/bin/python -m apps.crewai_app --lib openinference-crewai-anthropic --scenario handoff --out DIR

`openinference-crewai-anthropic`: the same crew on CrewAI's native Anthropic provider (`LLM(model="anthropic/...")`
builds `AnthropicCompletion`, the `anthropic` SDK, at the fake server's Messages face), traced by the CrewAI
instrumentation plus OpenInference's Anthropic client instrumentation.

CrewAI runs with its telemetry off (CREWAI_DISABLE_TELEMETRY, CREWAI_TRACING_ENABLED=false; OTEL_SDK_DISABLED is
not set, we export our own spans) and HOME / CREWAI_STORAGE_DIR in a temporary folder that is removed afterwards.
One crew, one task, one agent (the handoff: a second agent and CrewAI's delegation tool, "Delegate work to
coworker"). Ground truth: tool bodies (ToolRunner; CrewAI's delegation tool is wrapped so that it records itself),
the fake server's log (CrewAI's transport interceptor, `LLM(interceptor=...)`, marks each HTTP request with the
OpenAI LLM span current when it is sent), and the app's own calls around the wrapped methods.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, plain_functions, terminal_status_for  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "openinference-crewai"
ANTHROPIC_LIBRARY = "openinference-crewai-anthropic"


class CrewAIAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True
    model_provider = "openai"
    failed_request_span_exported = True

    def setup(self, endpoint):
        from openinference.instrumentation.crewai import CrewAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        CrewAIInstrumentor().instrument(tracer_provider=self.provider)
        self.instrument_client()

    def instrument_client(self):
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


class CrewAIAnthropicAdapter(CrewAIAdapter):
    """OpenInference's Anthropic instrumentation 0.1.20 (`_MessagesWrapper`): a `Messages.create` that raised gets its
    error status and exception event but is never ended (`finish_tracing` runs on the success path only), so the span
    of a failed request is never exported (`failed_request_span_exported`)."""

    library = ANTHROPIC_LIBRARY
    model_provider = "anthropic"
    failed_request_span_exported = False

    def model_span_for(self, request: dict) -> str | None:
        return None if request.get("unexported") else request.get("otel_span")

    def instrument_client(self):
        from openinference.instrumentation.anthropic import AnthropicInstrumentor

        AnthropicInstrumentor().instrument(tracer_provider=self.provider)


ADAPTERS = {a.library: a for a in (CrewAIAdapter, CrewAIAnthropicAdapter)}


@contextmanager
def crewai_home(**extra_env: str) -> Iterator[str]:
    """CrewAI's telemetry off and its HOME / CREWAI_STORAGE_DIR / XDG_DATA_HOME in a temporary folder, removed on exit
    (OTEL_SDK_DISABLED is not set: we export our own spans). ``extra_env`` adds variables of an instrumentation."""
    home = tempfile.mkdtemp(prefix="corpus-crewai-")
    os.environ.update(
        HOME=home,
        CREWAI_STORAGE_DIR=os.path.join(home, "storage"),
        CREWAI_DISABLE_TELEMETRY="true",
        CREWAI_TRACING_ENABLED="false",
        XDG_DATA_HOME=os.path.join(home, "data"),
        **extra_env,
    )
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


def start_role(scenario: str) -> str:
    """The role of the agent the crew's one task is given to."""
    return "triage_agent" if scenario == "handoff" else "support_agent"


@dataclass(slots=True)
class CrewRun:
    """What a kickoff leaves for the ground truth: the tool runner and, per before-LLM-call hook, the agent's role
    with the span current in it (in order)."""

    runner: ToolRunner
    llm_hook_spans: list[tuple[str | None, str | None]]
    span_parents: dict[str, str | None] = field(default_factory=dict)
    """The parent of each span current when a model request was sent (read from the live span)."""


def _crew_llm(model_provider: str, base_url: str, interceptor):
    """CrewAI's native provider for ``model_provider``: ``openai/<model>`` builds `OpenAICompletion` (the openai
    client), ``anthropic/<model>`` `AnthropicCompletion` (the anthropic client; its base URL without the fake
    server's /v1, which the client adds). Client retries off (a retry is CrewAI's), the corpus client timeout."""
    from crewai import LLM

    if model_provider == "anthropic":
        from corpusgen.raw_loop_anthropic import ANTHROPIC_MODEL, MAX_TOKENS

        root = base_url[:-3] if base_url.endswith("/v1") else base_url
        return LLM(model=f"anthropic/{ANTHROPIC_MODEL}", base_url=root, api_key="sk-ant-corpus-fake",
                   temperature=0.2, max_tokens=MAX_TOKENS, timeout=CLIENT_TIMEOUT_S, max_retries=0,
                   interceptor=interceptor)
    return LLM(model=f"openai/{MODEL}", base_url=base_url, api_key="sk-corpus-fake", temperature=0.2,
               timeout=CLIENT_TIMEOUT_S, max_retries=0, interceptor=interceptor)


def _anthropic_terminal_status(truth: Truth, exc: BaseException | None) -> None:
    """The anthropic client's timeout and rate-limit errors, which `terminal_status_for` (openai's) reads as
    `error`."""
    from corpusgen.raw_loop_anthropic import anthropic_failure

    e, seen = exc, 0
    while e is not None and seen < 10:
        status = anthropic_failure(e)
        if status:
            truth.terminal_status = status
            return
        e, seen = e.__cause__ or e.__context__, seen + 1


def kickoff_crew(
    scenario: str, base_url: str, truth: Truth, *, step_callback=None, task_callback=None, task_cls=None,
    model_provider: str = "openai",
) -> CrewRun:
    """Builds the scenario's crew (one task; the handoff adds a coworker and CrewAI's delegation), runs it and records
    the crew span, the tool executions and the terminal status. ``step_callback(role)`` and ``task_callback(role)``
    get the role of the agent whose step or task ended; ``task_cls`` replaces ``crewai.Task``; ``model_provider``
    picks CrewAI's native provider (`_crew_llm`)."""
    import httpx
    from crewai import Agent, Crew, Process, Task
    from crewai.hooks.llm_hooks import register_before_llm_call_hook
    from crewai.llms.hooks.base import BaseInterceptor
    from crewai.tools import tool
    from opentelemetry import trace as otel_trace

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)

    span_parents: dict[str, str | None] = {}

    class SpanMark(BaseInterceptor[httpx.Request, httpx.Response]):
        def on_outbound(self, message):
            _, span_id = current_ids()
            if span_id:
                message.headers["x-corpus-otel-span"] = span_id
                parent = getattr(otel_trace.get_current_span(), "parent", None)
                span_parents[span_id] = format(parent.span_id, "016x") if parent is not None else None
            return message

        def on_inbound(self, message):
            return message

        async def aon_outbound(self, message):
            return self.on_outbound(message)

        async def aon_inbound(self, message):
            return message

    llm = _crew_llm(model_provider, base_url, SpanMark())
    tools = {name: tool(name)(fn) for name, fn in plain_functions(runner).items()}

    def record_crew(inputs):
        """Crew.before_kickoff_callbacks run inside the span the instrumentation opens for `Crew.kickoff`."""
        truth.record_workflow("crew")
        return inputs

    llm_hook_spans: list[tuple[str | None, str | None]] = []

    def before_llm_call(context):
        """CrewAI's before-LLM-call hook runs in the agent's executor, before the OpenAI client opens its span."""
        role = getattr(context.agent, "role", None)
        llm_hook_spans.append((role, current_ids()[1]))
        return None

    register_before_llm_call_hook(before_llm_call)

    # max_retry_limit=1: CrewAI re-executes a task once after an error (429, 5xx, timeout); the scripts repeat a
    # failing 5xx / timeout step for that retry (+retry_once).
    def agent(name, system, tool_names, **kw):
        return Agent(
            role=name,
            goal="Answer the customer's request using the tools.",
            backstory=system,
            tools=[tools[n] for n in tool_names],
            llm=llm,
            max_iter=10,
            max_retry_limit=1,
            verbose=False,
            step_callback=(lambda step, _n=name: step_callback(_n)) if step_callback else None,
            **kw,
        )

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        start = agent(start_role(scenario), SYSTEM_PROMPT, spec["tools"], allow_delegation=True)
        billing = agent("billing_agent", SPECIALIST_PROMPT, spec["specialist_tools"], allow_delegation=False)
        agents = [start, billing]
        truth.offered_tools |= {"delegate_work_to_coworker", "ask_question_to_coworker"}
    else:
        start = agent(start_role(scenario), SYSTEM_PROMPT, spec["tools"], allow_delegation=False)
        agents = [start]
    task = (task_cls or Task)(description=spec["user"], expected_output="A short answer to the customer.", agent=start)
    crew = Crew(
        agents=agents,
        tasks=[task],
        process=Process.sequential,
        verbose=False,
        before_kickoff_callbacks=[record_crew],
        task_callback=(lambda output: task_callback(task.agent.role)) if task_callback else None,
    )
    exc: BaseException | None = None
    try:
        crew.kickoff()
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    if model_provider == "anthropic":
        _anthropic_terminal_status(truth, exc)
    return CrewRun(runner=runner, llm_hook_spans=llm_hook_spans, span_parents=span_parents)


def record_unexported(truth: Truth, run: CrewRun) -> None:
    """A failed request whose span the instrumentation never ends: no span in the trace (`untraced`); what the failure
    left is the error on the span it was sent under (the agent's task span, which CrewAI's error reaches), where its
    finding is anchored (`failure_span`), and only when the run ended with that error (`failure_in_trace`): a 429
    retried by CrewAI's rate-limit retry, or an error its task retry recovered from, leaves nothing."""
    surfaced = truth.error is not None
    for r in truth.server_log:
        if r.get("status") == 200 and r.get("outcome") == "ok":
            continue
        r["unexported"] = True
        r["untraced"] = True
        r["failure_span"] = run.span_parents.get(r.get("otel_span"))
        r["failure_in_trace"] = surfaced
    unexported = [r["seq"] for r in truth.server_log if r.get("unexported")]
    if unexported:
        truth.notes.append(f"model requests {unexported} failed: their spans were never ended (never exported)")
    truth.kind_counts["model_call"] = sum(1 for r in truth.server_log if not r.get("unexported"))


def delegation_call(truth: Truth) -> dict | None:
    """The delegation the model proposed (the handoff script's first call), from the server log."""
    return next(
        (p for r in truth.server_log for p in r.get("proposed") or [] if p["name"] == "delegate_work_to_coworker"),
        None,
    )


def run_crewai(adapter: CrewAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    """The ground truth under OpenInference: one AGENT span per task (`<role>._execute_core`; CrewAI's retry of the
    task stays inside it), the coworker inside the delegation's TOOL span."""
    role = start_role(scenario)
    agent_spans: dict[str | None, str] = {}

    def record_agent(name):
        """Agent step / task callbacks of the task's own agent run inside its `<role>._execute_core` span (a
        delegated coworker's steps run inside the delegation tool's span: no agent span of its own)."""
        if name != role:
            return
        _, span_id = current_ids()
        if span_id and span_id not in agent_spans:
            agent_spans[span_id] = name
            truth.record_agent(name)

    run = kickoff_crew(scenario, base_url, truth, step_callback=record_agent, task_callback=record_agent,
                       model_provider=adapter.model_provider)
    if not adapter.failed_request_span_exported:
        record_unexported(truth, run)
    llm_hook_spans = run.llm_hook_spans
    # The task's agent span is the span current in its first before-LLM-call hook (also when every call failed).
    for hook_role, span_id in llm_hook_spans:
        if hook_role == role and span_id and span_id not in agent_spans:
            agent_spans[span_id] = hook_role
            truth.agents.insert(0, {"name": hook_role, "span_id": span_id})
            break
    if scenario == "handoff":
        coworker = next(((r, s) for r, s in llm_hook_spans if r == "billing_agent"), None)
        call = delegation_call(truth)
        truth.notes.append(f"before-LLM-call hook spans: {llm_hook_spans}")
        if coworker and call:
            # The coworker runs inside the delegation tool's span (CrewAI calls agent.execute_task from the tool;
            # no Task._execute_core, hence no AGENT span for it): that span executes the call and is the handoff.
            tool_span = coworker[1]
            truth.record_tool(
                call["id"], "delegate_work_to_coworker", "ok", span_id=tool_span, args=json.loads(call["arguments"])
            )
            from_span = next((sid for sid, r in agent_spans.items() if r == role), None)
            truth.handoffs.append({"from_span": from_span, "to_span": tool_span})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with crewai_home():
        adapter = ADAPTERS[a.lib]()
        meta = {
            "library": adapter.library,
            "convention": adapter.convention,
            "scenario": a.scenario,
            "content_captured": adapter.content,
        }
        family = ("crewai" if a.scenario == "handoff" else "raw") + "+retry_once"
        return run_one(meta, adapter, run_crewai, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
