"""The raw agent loop over the `anthropic` client (`corpusgen/raw_loop_anthropic.py`, the Messages API at the fake
server's Messages face: the loop of `openinference-anthropic` / `traceloop-anthropic`) traced by AgentOps (`agentops`,
its OpenTelemetry-based SDK: its Anthropic instrumentation, the app's units under its decorators). Run inside the
agentops-anthropic venv:

    .venvs/agentops-anthropic/bin/python -m apps.agentops_anthropic_app --lib agentops-anthropic --scenario handoff --out DIR

AgentOps is set up as for `agentops-openai` (`apps/agentops_openai_app.py`, whose adapter this one extends):
`agentops.init(exporter_endpoint=...)` with no API key and every other option at its default, its OTLP/HTTP span
exporter pointed at the local relay to the capture server (`corpusgen/otlp_http_relay.py`), a connect guard that
refuses anything but loopback. `anthropic` is imported before `init` and no agentic library is: its import monitor
keeps its Anthropic instrumentation on (`anthropic.messages.create` spans, made current while the request is sent).
The app's workflow, agents and tools are functions under AgentOps' own decorators, as in `agentops-openai`.

Ground truth as in every raw loop, never read back from the exported trace: the span current inside each workflow,
agent and tool body, the span current when each HTTP request is sent (the request header), the server log; the
session span from `agentops.init()`'s return value is the run's outermost workflow step. The app ends the session with
`agentops.end_trace(end_state=...)` after the run (NOTES-frameworks-da.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.raw_loop_anthropic import run_raw_anthropic  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.agentops_frameworks_app import _end_session, _start_agentops  # noqa: E402
from apps.agentops_openai_app import AgentOpsOpenAIAdapter  # noqa: E402

LIBRARY = "agentops-anthropic"


class AgentOpsAnthropicAdapter(AgentOpsOpenAIAdapter):
    """agentops: its session span, its Anthropic client spans, the app's units under its decorators (the OpenAI
    adapter's `workflow` / `agent` / `tool`, relay, connect guard and shutdown)."""

    library = LIBRARY

    def setup(self, endpoint):
        self.endpoint = endpoint
        _start_agentops(self, ("anthropic",))
        from anthropic.resources.messages import Messages

        if not hasattr(Messages.create, "__wrapped__"):
            raise RuntimeError(f"agentops did not instrument the Anthropic client (Messages.create not wrapped); "
                               f"active: {self.instrumentors}")


def run_agentops_anthropic(adapter: AgentOpsAnthropicAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_raw_anthropic(adapter, scenario, base_url, truth)
    finally:
        _end_session(adapter, truth)


def main() -> int:
    return app_main(AgentOpsAnthropicAdapter(), run_agentops_anthropic)


if __name__ == "__main__":
    sys.exit(main())
