"""CrewAI (native OpenAI provider, function calling) against the fake server, traced by OpenLLMetry's CrewAI
instrumentation plus its OpenAI client instrumentation (the model calls).

    .venvs/traceloop-crewai/bin/python -m apps.traceloop_crewai_app --lib traceloop-crewai --scenario handoff --out DIR

The crew, its agents, tools, scripts and CrewAI settings are those of `apps/crewai_app.py` (`kickoff_crew`); only
the instrumentation and the ground-truth hooks differ. OpenLLMetry's CrewAI instrumentor wraps `Crew.kickoff`,
`Task.execute_sync`, `Agent.execute_task` and `crewai.llm.LLM.call`; CrewAI's native OpenAI provider is not an `LLM`
(it subclasses `BaseLLM`), so the model calls are the OpenAI instrumentation's `openai.chat` spans. It opens no span
for a tool: tool bodies run under the agent's span.

Ground truth: the crew span from `before_kickoff_callbacks` (inside `Crew.kickoff`); the task span from a `Task`
subclass whose `_execute_core` runs inside `Task.execute_sync`; agent spans from CrewAI's before-LLM-call hook (it
runs in the agent's executor, inside `Agent.execute_task`: one span per execution, so a retried task's second
attempt and a delegated coworker each have their own); model spans from the request header (CrewAI's transport
interceptor); tool bodies (ToolRunner) record the span current inside them, and a tool whose body ran under one of
those agent spans had no span of its own (`executed_by_span: null`; `truth.py` anchors its findings on the
proposing model span).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.crewai_app import crewai_home, delegation_call, kickoff_crew, start_role  # noqa: E402

LIBRARY = "traceloop-crewai"


class TraceloopCrewAIAdapter:
    library = LIBRARY
    convention = "openllmetry"
    content = True

    def setup(self, endpoint):
        from opentelemetry.instrumentation.crewai import CrewAIInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        CrewAIInstrumentor().instrument(tracer_provider=self.provider)
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def recording_task_cls(truth: Truth):
    """`crewai.Task` whose `_execute_core` (called by `Task.execute_sync`, inside its span) records the task span."""
    import crewai

    class Task(crewai.Task):
        # Named `Task`: the instrumentation chooses the attributes it records by the instance's class name.
        def _execute_core(self, agent, context, tools):
            truth.record_workflow("task")
            return super()._execute_core(agent, context, tools)

    return Task


def run_traceloop_crewai(adapter: TraceloopCrewAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run = kickoff_crew(scenario, base_url, truth, task_cls=recording_task_cls(truth))
    agent_spans: dict[str, str] = {}
    for role, span_id in run.llm_hook_spans:
        if span_id and span_id not in agent_spans:
            agent_spans[span_id] = role
            truth.record_agent(role, span_id=span_id)
    truth.notes.append(f"before-LLM-call hook spans: {run.llm_hook_spans}")
    if scenario == "handoff":
        call = delegation_call(truth)
        role = start_role(scenario)
        from_span = next((sid for sid, r in agent_spans.items() if r == role), None)
        to_span = next((sid for sid, r in agent_spans.items() if r == "billing_agent"), None)
        if call and from_span and to_span:
            # CrewAI's delegation tool calls the coworker's Agent.execute_task (its own agent span, a child of the
            # delegating agent's); the delegation itself runs with no span, under the delegating agent's.
            truth.record_tool(
                call["id"], "delegate_work_to_coworker", "ok", span_id=from_span, args=json.loads(call["arguments"])
            )
            truth.handoffs.append({"from_span": from_span, "to_span": to_span})
    for t in truth.tools:
        if t["span_id"] in agent_spans:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under agent span {t['span_id']}: no span")
            t["span_id"] = None


def main() -> int:
    # The instrumentor's token and duration histograms go to the global MeterProvider (none is set: no-op).
    with crewai_home(TRACELOOP_METRICS_ENABLED="false"):
        return app_main(
            TraceloopCrewAIAdapter(), run_traceloop_crewai, family="raw+retry_once", handoff_family="crewai+retry_once"
        )


if __name__ == "__main__":
    sys.exit(main())
