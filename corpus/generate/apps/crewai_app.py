"""CrewAI (native OpenAI provider, function calling) against the fake server, traced by OpenInference's CrewAI
instrumentation plus its OpenAI client instrumentation (the LLM spans).

    .venvs/crewai/bin/python -m apps.crewai_app --lib openinference-crewai --scenario handoff --out DIR

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
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, plain_functions, terminal_status_for  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "openinference-crewai"


class CrewAIAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        from openinference.instrumentation.crewai import CrewAIInstrumentor
        from openinference.instrumentation.openai import OpenAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        CrewAIInstrumentor().instrument(tracer_provider=self.provider)
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


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


def kickoff_crew(
    scenario: str, base_url: str, truth: Truth, *, step_callback=None, task_callback=None, task_cls=None
) -> CrewRun:
    """Builds the scenario's crew (one task; the handoff adds a coworker and CrewAI's delegation), runs it and records
    the crew span, the tool executions and the terminal status. ``step_callback(role)`` and ``task_callback(role)``
    get the role of the agent whose step or task ended; ``task_cls`` replaces ``crewai.Task``."""
    import httpx
    from crewai import LLM, Agent, Crew, Process, Task
    from crewai.hooks.llm_hooks import register_before_llm_call_hook
    from crewai.llms.hooks.base import BaseInterceptor
    from crewai.tools import tool

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)

    class SpanMark(BaseInterceptor[httpx.Request, httpx.Response]):
        def on_outbound(self, message):
            _, span_id = current_ids()
            if span_id:
                message.headers["x-corpus-otel-span"] = span_id
            return message

        def on_inbound(self, message):
            return message

        async def aon_outbound(self, message):
            return self.on_outbound(message)

        async def aon_inbound(self, message):
            return message

    llm = LLM(
        model=f"openai/{MODEL}",
        base_url=base_url,
        api_key="sk-corpus-fake",
        temperature=0.2,
        timeout=CLIENT_TIMEOUT_S,
        max_retries=0,
        interceptor=SpanMark(),
    )
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
    return CrewRun(runner=runner, llm_hook_spans=llm_hook_spans)


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

    run = kickoff_crew(scenario, base_url, truth, step_callback=record_agent, task_callback=record_agent)
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
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with crewai_home():
        adapter = CrewAIAdapter()
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
