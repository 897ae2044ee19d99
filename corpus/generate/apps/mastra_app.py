"""Mastra (npm `@mastra/core`: an Agent with `createTool` tools on `@ai-sdk/openai`'s chat model) against the fake
server, traced by Mastra's observability (`@mastra/observability`) and exported by `@mastra/otel-exporter`'s
`OtelExporter` (the `custom` provider, OTLP/gRPC; Mastra's spans converted to OpenTelemetry GenAI spans).

    .venvs/mastra/bin/python -m apps.mastra_app --lib mastra --scenario handoff --out DIR

The agent is JavaScript (`js-mastra/mastra_app.mjs`, dependencies pinned in `js-mastra/package-lock.json`, installed
by `run_all.py` with `npm ci`); this module is its host (`corpusgen.node_host`, as the Vercel AI SDK's app: the tool
bodies are `corpusgen/tools.py`'s, run by `corpusgen.frameworks.ToolRunner`).

Ground truth, never read back from the trace: model calls from the request header (the app's `fetch` sends the
MODEL_INFERENCE span Mastra opened under the MODEL_STEP span current at the request, known to the app from Mastra's
span-start events; Mastra retries a request inside that span, so the app's one retry after HTTP 429 is a second request
on the same span); tool executions from the tool bodies (the span current inside `execute`: the TOOL_CALL span, with
Mastra's `toolCallId`); agent runs from the AGENT_RUN span above the step current at a run's first request; the
handoff as Mastra's sub-agent tool (`agents: {billing_agent}` offers the tool `agent-billing_agent`, whose body is
Mastra's: recorded from the `onDelegationStart` hook inside that tool's span), labelled from the triage run to the
billing run (an agent delegation, as Pydantic AI's).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import node_host  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.scenarios import SCENARIOS  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "mastra"
JS_APP = Path(__file__).resolve().parents[1] / "js-mastra" / "mastra_app.mjs"
HANDOFF_TOOL = "agent-billing_agent"


class MastraAdapter:
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def setup(self, endpoint: str) -> None:
        self.endpoint = endpoint  # the exporter lives in the node process

    def shutdown(self) -> None:  # the node process flushed and shut Mastra down before it exited
        pass


def run_mastra(adapter: MastraAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    truth.offered_tools = set(SCENARIOS[scenario]["tools"]) | set(SCENARIOS[scenario].get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add(HANDOFF_TOOL)
    # Mastra's anonymous usage telemetry off (the network is the fake server and the capture server only).
    env = {**os.environ, "MASTRA_TELEMETRY_DISABLED": "1"}
    node_host.run_node_app(JS_APP, adapter.endpoint, base_url, node_host.spec(scenario), truth, env=env)
    if scenario == "handoff" and len(truth.agents) >= 2:
        # Agent delegation: the billing agent's run is nested inside the sub-agent tool's span, a tool execution of
        # the triage agent: the handoff is labelled from the delegating run.
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": truth.agents[1]["span_id"]})


# What the library records (truth.py label rules), read in `@mastra/observability`'s and `@mastra/otel-exporter`'s
# sources: Mastra retries a request inside its MODEL_INFERENCE span (a span is one model call; a retried 429 leaves
# nothing on it); a step's input is a preview of the messages sent (`extractStepInput`: a tool call is
# `[tool: <name>]`, a tool result `[tool-result: <name>]`, without call id or content) and the `chat` span has no input
# messages, so tool results in model inputs are not in the trace; tool calls are in the step's output
# (`mastra.model_step.output`), the agent's tools (names) on its run span.
LABEL_RULES = {
    "model_calls_by_span": True,
    "model_input_recorded": False,
}


def main() -> int:
    return app_main(MastraAdapter(), run_mastra, handoff_family="mastra_agents", extra_meta=LABEL_RULES)


if __name__ == "__main__":
    sys.exit(main())
