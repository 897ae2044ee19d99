"""Agno (`agno`) agents on the real `openai` client against the fake server, traced by AgentOps (`agentops`, its
OpenTelemetry-based SDK, its own Agno instrumentation). Run inside the agentops-agno venv:

    .venvs/agentops-agno/bin/python -m apps.agentops_agno_app --lib agentops-agno --scenario handoff --out DIR

The agents, tools, team, retry, scripts and ground truth are those of `apps/agno_app.py` (`run_agno`); only the
instrumentation differs. AgentOps is set up as for `agentops-openai-agents` (`apps/agentops_openai_agents_app.py`):
`agentops.init(exporter_endpoint=...)` with no API key and every other option at its default, its OTLP/HTTP span
exporter pointed at a local relay to the capture server (`corpusgen/otlp_http_relay.py`), its log file off, a connect
guard that refuses anything but loopback. Agno is imported before `init`, as Agno's AgentOps example does, so that
`init`'s scan of the imported modules finds it: AgentOps' Agno instrumentation (`agentops.instrumentation.agentic.agno`,
for agno >= 1.5.8) wraps `Agent.run` (`<agent>.agno.agent.run.agent`), `Team.run` (`<team>.agno.team.run.workflow`) and
`FunctionCall.execute` (`agno.tool.execute.tool_usage`) with wrapt; its other targets (`Agent._set_session_metrics`,
`Team._run`, workflow and storage methods) are not in agno 3.x or not used here. With `auto_start_session` at its
default `init` opens a session span (`default.session`) and keeps it current: the agent's run span is its child.

Ground truth as for `openinference-agno` (the hooks of `run_agno`), never read back from the exported trace: model
calls from the request header (the OTel span current when the request is sent); tool executions and call ids from each
tool's `pre_hook` and body (inside the span current in `FunctionCall.execute`); agent runs from the agent / team
`pre_hooks`; the team's `delegate_task_to_member` through its `tool_hooks`; the session span from `agentops.init()`'s
return value. The app ends the session with `agentops.end_trace(end_state=...)` after the run, as the Agents SDK app
under AgentOps does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.agentops_openai_agents_app import _hex  # noqa: E402
from apps.agno_app import run_agno  # noqa: E402

LIBRARY = "agentops-agno"


class AgentOpsAgnoAdapter:
    """agentops: its session span, its Agno instrumentation (agent / team / tool spans), whatever else it turns on."""

    library = LIBRARY
    convention = "agentops"
    content = True

    def setup(self, endpoint):
        from corpusgen.agentops_relay import start_agentops_relay

        traces_endpoint = start_agentops_relay(self, endpoint)
        # As Agno's AgentOps example: the framework imported, then `agentops.init()`.
        import agentops
        import agno.agent  # noqa: F401
        import agno.models.openai  # noqa: F401
        import agno.team  # noqa: F401
        from agentops import instrumentation

        self.session = agentops.init(exporter_endpoint=traces_endpoint)
        self.instrumentors = sorted(type(i).__name__ for i in instrumentation._active_instrumentors)
        from agno.agent import Agent
        from agno.tools.function import FunctionCall

        for owner, method in ((Agent, "run"), (FunctionCall, "execute")):
            if not hasattr(getattr(owner, method), "__wrapped__"):
                raise RuntimeError(f"agentops did not instrument Agno ({owner.__name__}.{method} not wrapped); "
                                   f"active: {self.instrumentors}")

    def shutdown(self):
        from agentops.sdk.core import tracer

        tracer.shutdown()  # ends any trace still open, flushes, shuts its tracer and meter providers down
        self.relay.stop()
        if self.relay.errors:
            raise RuntimeError(f"OTLP/HTTP relay errors: {self.relay.errors}")
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")
        truth = getattr(self, "truth", None)
        if truth is not None:
            hosts = sorted({h for h, _ in self.guard.seen})
            kinds = sorted({f"{ctype} {enc or 'identity'} authorization={auth}"
                            for ctype, enc, auth in self.relay.seen})
            truth.notes.append(f"OTLP/HTTP export requests: {len(self.relay.seen)} {kinds}; python socket "
                               f"connections: {len(self.guard.seen)}, hosts {hosts}")


def run_agentops_agno(adapter: AgentOpsAgnoAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import agentops

    try:
        run_agno(adapter, scenario, base_url, truth)
    finally:
        ended = "Success" if truth.terminal_status in ("success", "policy_violation") else "Error"
        agentops.end_trace(end_state=ended)  # every trace still open: the session
    span = adapter.session.span if adapter.session is not None else None
    if _hex(span) is None:
        raise RuntimeError("agentops.init() started no session span")
    # The session span: the app's run as AgentOps records it, around the agent's (or team's) run span.
    truth.workflows.insert(0, {"name": span.name, "span_id": _hex(span)})
    truth.kind_counts["workflow_step"] = truth.kind_counts.get("workflow_step", 0) + 1
    truth.notes.append(f"session ended {ended}; AgentOps instrumentors active after init: {adapter.instrumentors}")
    adapter.truth = truth  # shutdown adds what the export did


def main() -> int:
    # Agno's own telemetry is off per agent and team (`telemetry=False` in run_agno); this covers anything else of it.
    os.environ.setdefault("AGNO_TELEMETRY", "false")
    # agno_app's script family for every scenario (its handoff is the Team's delegate_task_to_member script).
    return app_main(AgentOpsAgnoAdapter(), run_agentops_agno, family="agno", handoff_family="agno")


if __name__ == "__main__":
    sys.exit(main())
