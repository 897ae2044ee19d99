"""CrewAI (native OpenAI provider, function calling) on the real `openai` client against the fake server, traced by
AgentOps (`agentops`, its OpenTelemetry-based SDK, its own CrewAI instrumentation). Run inside the agentops-crewai venv:

    .venvs/agentops-crewai/bin/python -m apps.agentops_crewai_app --lib agentops-crewai --scenario handoff --out DIR

The crew, agents, tools, scripts, CrewAI settings (telemetry off, HOME in a temporary folder) and ground-truth hooks
are those of `apps/traceloop_crewai_app.py` (`run_traceloop_crewai`, the crew of `apps/crewai_app.py`); only the
instrumentation differs. AgentOps is set up as for `agentops-agno` (`apps/agentops_agno_app.py`, whose adapter this
one extends): `agentops.init(exporter_endpoint=...)` with no API key and every other option at its default, its
OTLP/HTTP span exporter pointed at the local relay to the capture server (`corpusgen/otlp_http_relay.py`), its log
file off, a connect guard that refuses anything but loopback. CrewAI is imported before `init`, so that `init`'s scan
of the imported modules finds it: AgentOps' CrewAI instrumentation (`agentops.instrumentation.agentic.crewai`, for
crewai >= 0.70.0) wraps `Crew.kickoff` (`crewai.workflow`), `Agent.execute_task` (`<role>.agent`),
`Task.execute_sync` (`<description>.task`), `LLM.call`, `execute_tool_and_check_finality` and `ToolUsage.use` with
wrapt. CrewAI's native OpenAI provider is no `LLM` and its native function calling runs a tool through neither of the
last two, so no span records a CrewAI model call or tool run: the model calls are its OpenAI client wrapper's
`openai.chat.completion` spans, and a tool body runs under the agent's span.

Ground truth as for `traceloop-crewai`, never read back from the exported trace: the crew span from
`before_kickoff_callbacks`, the task span from a `Task` subclass's `_execute_core` (inside `Task.execute_sync`), the
agent spans from CrewAI's before-LLM-call hook (inside `Agent.execute_task`: one per execution, a delegated
coworker's its own), model calls from the request header (CrewAI's transport interceptor), tool bodies (ToolRunner)
with the span current inside them (an agent span: no span of their own), the session span from `agentops.init()`'s
return value. The app ends the session with `agentops.end_trace(end_state=...)` after the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.agentops_agno_app import AgentOpsAgnoAdapter  # noqa: E402
from apps.agentops_openai_agents_app import _hex  # noqa: E402
from apps.crewai_app import crewai_home  # noqa: E402
from apps.traceloop_crewai_app import run_traceloop_crewai  # noqa: E402

LIBRARY = "agentops-crewai"


class AgentOpsCrewAIAdapter(AgentOpsAgnoAdapter):
    """agentops: its session span, its CrewAI instrumentation (crew / task / agent spans), its OpenAI client spans.
    The relay, connect guard and shutdown are the Agno adapter's."""

    library = LIBRARY

    def setup(self, endpoint):
        from corpusgen.agentops_relay import start_agentops_relay

        traces_endpoint = start_agentops_relay(self, endpoint)
        # The framework imported, then `agentops.init()` (as AgentOps' CrewAI examples: `import crewai` first).
        import agentops
        import crewai  # noqa: F401
        from agentops import instrumentation

        self.session = agentops.init(exporter_endpoint=traces_endpoint)
        self.instrumentors = sorted(type(i).__name__ for i in instrumentation._active_instrumentors)
        from crewai import Agent, Crew, Task

        for owner, method in ((Crew, "kickoff"), (Agent, "execute_task"), (Task, "execute_sync")):
            if not hasattr(getattr(owner, method), "__wrapped__"):
                raise RuntimeError(f"agentops did not instrument CrewAI ({owner.__name__}.{method} not wrapped); "
                                   f"active: {self.instrumentors}")


def run_agentops_crewai(adapter: AgentOpsCrewAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import agentops

    try:
        run_traceloop_crewai(adapter, scenario, base_url, truth)
    finally:
        ended = "Success" if truth.terminal_status in ("success", "policy_violation") else "Error"
        agentops.end_trace(end_state=ended)  # every trace still open: the session
    span = adapter.session.span if adapter.session is not None else None
    if _hex(span) is None:
        raise RuntimeError("agentops.init() started no session span")
    # The session span: the app's run as AgentOps records it, around the crew's kickoff span.
    truth.workflows.insert(0, {"name": span.name, "span_id": _hex(span)})  # counted with the crew's and task's
    truth.notes.append(f"session ended {ended}; AgentOps instrumentors active after init: {adapter.instrumentors}")
    adapter.truth = truth  # shutdown adds what the export did


def main() -> int:
    with crewai_home():
        # traceloop-crewai's script families (CrewAI re-executes a failed task once: +retry_once).
        return app_main(AgentOpsCrewAIAdapter(), run_agentops_crewai, family="raw+retry_once",
                        handoff_family="crewai+retry_once")


if __name__ == "__main__":
    sys.exit(main())
