"""The raw agent loop of `apps/raw.py` (`corpusgen/raw_loop.py` on the `openai` client, Chat Completions) traced by
AgentOps (`agentops`, its OpenTelemetry-based SDK: its OpenAI instrumentation, the app's units under its decorators).
Run inside the agentops-openai venv:

    .venvs/agentops-openai/bin/python -m apps.agentops_openai_app --lib agentops-openai --scenario handoff --out DIR

Taken in place of AgentOps' LangGraph instrumentation on the agents of `openinference-langgraph`: its
`StateGraph.add_node` wrapper replaces each node's action by a plain function `@functools.wraps`-ed from it, and
LangGraph's prebuilt agent adds its model node as a `RunnableCallable`, whose signature `inspect.signature` cannot read
through the wrapper's `__wrapped__`: `create_react_agent` raises ValueError, the agent is never built and no LangGraph
run happens (NOTES-frameworks-cr.md).

AgentOps is set up as for `agentops-agno` (`apps/agentops_agno_app.py`, whose adapter this one extends):
`agentops.init(exporter_endpoint=...)` with no API key and every other option at its default, its OTLP/HTTP span
exporter pointed at the local relay to the capture server (`corpusgen/otlp_http_relay.py`), its log file off, a
connect guard that refuses anything but loopback. `openai` is imported before `init` and no agentic library is: its
import monitor keeps its OpenAI instrumentation on (`openai.chat.completion` spans, made current while the request is
sent). The app's workflow, agents and tools are functions under AgentOps' own decorators, as its documentation writes
them (`@agentops.workflow`, `@agentops.agent`, `@agentops.tool`, each with the unit's name; a tool function's
parameters are the call's arguments, which AgentOps records as the span's input).

Ground truth as in every raw loop, never read back from the exported trace: the span current inside each workflow,
agent and tool body, the span current when each HTTP request is sent (the request header), the server log; the
session span from `agentops.init()`'s return value is the run's outermost workflow step. The app ends the session with
`agentops.end_trace(end_state=...)` after the run.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.agentops_agno_app import AgentOpsAgnoAdapter  # noqa: E402
from apps.agentops_frameworks_app import _end_session, _start_agentops  # noqa: E402

LIBRARY = "agentops-openai"


class AgentOpsOpenAIAdapter(AgentOpsAgnoAdapter):
    """agentops: its session span, its OpenAI client spans, the app's units under its decorators. The relay, connect
    guard and shutdown are the Agno adapter's."""

    library = LIBRARY

    def setup(self, endpoint):
        self.endpoint = endpoint
        _start_agentops(self, ("openai",))
        from openai.resources.chat.completions import Completions

        if not hasattr(Completions.create, "__wrapped__"):
            raise RuntimeError(f"agentops did not instrument the OpenAI client (Completions.create not wrapped); "
                               f"active: {self.instrumentors}")

    def workflow(self, name, fn):
        import agentops

        return agentops.workflow(name=name)(fn)()

    def agent(self, name, fn):
        import agentops

        return agentops.agent(name=name)(fn)()

    def tool(self, name, call_id, args, fn):
        import agentops

        def run(**kwargs):
            return fn(**kwargs)

        # The tool function as a user writes it: its parameters are the call's arguments.
        run.__signature__ = inspect.Signature(
            [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in args])
        run.__name__ = name
        return agentops.tool(name=name)(run)(**args)


def run_agentops_openai(adapter: AgentOpsOpenAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_raw(adapter, scenario, base_url, truth)
    finally:
        _end_session(adapter, truth)


def main() -> int:
    return app_main(AgentOpsOpenAIAdapter(), run_agentops_openai)


if __name__ == "__main__":
    sys.exit(main())
