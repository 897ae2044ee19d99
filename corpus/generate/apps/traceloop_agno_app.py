"""Agno (`agno`) agents on the real `openai` client against the fake server, traced by OpenLLMetry's Agno
instrumentation plus its OpenAI client instrumentation (the model calls).

    .venvs/traceloop-agno/bin/python -m apps.traceloop_agno_app --lib traceloop-agno --scenario handoff --out DIR

The agents, tools, team, retry, scripts and ground truth are those of `apps/agno_app.py` (`run_agno`); only the
instrumentation differs. OpenLLMetry's Agno instrumentor (`opentelemetry-instrumentation-agno`) wraps `Agent.run` /
`Agent.arun` (a `<agent>.agent` span), `Team.run` / `Team.arun` (a `<team>.team` span, `traceloop.span.kind=
workflow`) and `FunctionCall.execute` / `aexecute` (a `<tool>.tool` span); it opens no span for a model call, so
OpenLLMetry's OpenAI instrumentor traces the `OpenAIChat` requests (an `openai.chat` span per
`chat.completions.create`, current while the request is sent: each attempt of Agno's `Model.retries` is its own).

Ground truth as for `openinference-agno` (the hooks of `run_agno`): model calls from the request header (the span
current at send time, `openai.chat`); tool executions from each tool's `pre_hook` and body (inside the `<tool>.tool`
span); agent runs from the agent/team `pre_hooks` (inside `<agent>.agent`, and for the team `triage_agent.team`); the
team's `delegate_task_to_member` through its `tool_hooks` (inside `delegate_task_to_member.tool`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402

from apps.agno_app import run_agno  # noqa: E402

LIBRARY = "traceloop-agno"


class TraceloopAgnoAdapter:
    """opentelemetry-instrumentation-agno (agent / team / tool spans) + opentelemetry-instrumentation-openai."""

    library = LIBRARY
    convention = "openllmetry"
    content = True

    def setup(self, endpoint):
        from opentelemetry.instrumentation.agno import AgnoInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        AgnoInstrumentor().instrument(tracer_provider=self.provider)
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def main() -> int:
    # The instrumentors' duration and token histograms go to the global MeterProvider (none is set: no-op).
    os.environ.setdefault("TRACELOOP_METRICS_ENABLED", "false")
    # agno_app's script family for every scenario (its handoff is the Team's delegate_task_to_member script).
    return app_main(TraceloopAgnoAdapter(), run_agno, family="agno", handoff_family="agno")


if __name__ == "__main__":
    sys.exit(main())
