"""Agno (`agno`) agents on the real `openai` client against the fake server, traced by OpenLIT (`openlit.init` with its
Agno instrumentor and its OpenAI client instrumentor only).

    .venvs/openlit-agno/bin/python -m apps.openlit_agno_app --lib openlit-agno --scenario handoff --out DIR

The agents, tools, team, retry, scripts and ground truth are those of `apps/agno_app.py` (`run_agno`); only the
instrumentation differs. OpenLIT's Agno instrumentor wraps `Agent.__init__` (a `create_agent <name>` span, in a trace of
its own when the agent is built outside any span, linked from the agent's run spans), `Agent.run` / `arun` /
`continue_run` (`invoke_agent <name>`), `Team.run` / `arun` (`invoke_workflow <name>`), `FunctionCall.execute` /
`aexecute` (`execute_tool <name>`) and Agno's vector-db, memory and knowledge calls (unused here). It opens no span for a
model call (nothing of `Model` is wrapped), so OpenLIT's OpenAI instrumentor traces the `OpenAIChat` requests (a
`chat <model>` span per `chat.completions.create`, current while the request is sent: each attempt of Agno's
`Model.retries` is its own). Every other OpenLIT instrumentor (the OTel HTTP client ones among them) is disabled.

Ground truth as for `openinference-agno` and `traceloop-agno` (the hooks of `run_agno`): model calls from the request
header (the span current at send time, the OpenAI chat span); tool executions and call ids from each tool's `pre_hook`
and body (inside `execute_tool <tool>`); agent runs from the agent/team `pre_hooks` (inside `invoke_agent <agent>`, and
for the team `invoke_workflow triage_agent`); the team's `delegate_task_to_member` through its `tool_hooks` (inside
`execute_tool delegate_task_to_member`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.agno_app import run_agno  # noqa: E402

LIBRARY = "openlit-agno"
# OpenLIT's instrumentor names (its `INSTRUMENTOR_MAP` keys): Agno's runs and tools, and the OpenAI client's requests.
INSTRUMENTORS = ("agno", "openai")


class OpenlitAgnoAdapter:
    """openlit: its Agno instrumentor (agent / team / tool spans) + its OpenAI client instrumentor (model calls)."""

    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint):
        self.guard = ConnectGuard()
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}", only=INSTRUMENTORS)
        from agno.agent.agent import Agent
        from agno.tools.function import FunctionCall

        for owner, method in ((Agent, "run"), (FunctionCall, "execute")):
            if not hasattr(getattr(owner, method), "__wrapped__"):
                raise RuntimeError(f"openlit did not instrument Agno ({owner.__name__}.{method} not wrapped)")

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_openlit_agno(adapter: OpenlitAgnoAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_agno(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    # Agno's own telemetry is off per agent and team (`telemetry=False` in run_agno); this covers anything else of it.
    os.environ.setdefault("AGNO_TELEMETRY", "false")
    # agno_app's script family for every scenario (its handoff is the Team's delegate_task_to_member script).
    return app_main(
        OpenlitAgnoAdapter(),
        run_openlit_agno,
        family="agno",
        handoff_family="agno",
        # OpenLIT's OpenAI wrapper writes a chat span's input messages when a response arrives; a failed request
        # (HTTP 429 / 500, timeout) records none (as under openlit-openai-agents and openlit-crewai).
        extra_meta={"failed_request_input_recorded": False},
    )


if __name__ == "__main__":
    sys.exit(main())
