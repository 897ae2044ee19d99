"""Genkit (npm `genkit`: tools from `ai.defineTool`, each agent run a flow from `ai.defineFlow` around one
`ai.generate({tools})` call) on the OpenAI plugin of `@genkit-ai/compat-oai` (Chat Completions against the fake server),
traced by Genkit's own OpenTelemetry spans (`genkit:*` attributes) and exported through `enableTelemetry` with the
OpenTelemetry JS SDK's OTLP/gRPC exporter as a span processor.

    .venvs/genkit-native/bin/python -m apps.genkit_app --lib genkit-native --scenario handoff --out DIR

The agent is JavaScript (`js-genkit/genkit_app.mjs`, dependencies pinned in `js-genkit/package-lock.json`, installed
by `run_all.py` with `npm ci`); this module is its host (`corpusgen.node_host`: the tool bodies are
`corpusgen/tools.py`'s, run by `corpusgen.frameworks.ToolRunner`).

Ground truth, never read back from the trace: model calls from the request header (the span current when the OpenAI
client's `fetch` sends the request: Genkit's model action span); tool executions from the tool bodies (the tool action's
span, current inside the tool's function; Genkit hands a tool no call id, so the call id is the server log's proposal
with the same name and arguments); agent runs from the flows (the flow's span, current inside it); workflow steps from
Genkit's `generate` spans, seen as they start by a span processor of the app's; the handoff as the raw loop's
(`handoff_to_billing_agent`, a tool of the app's whose body runs the billing agent's flow), labelled from the triage
run to the billing run nested in that tool's span.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import node_host  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.scenarios import SCENARIOS  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "genkit-native"
JS_APP = Path(__file__).resolve().parents[1] / "js-genkit" / "genkit_app.mjs"
HANDOFF_TOOL = "handoff_to_billing_agent"


class GenkitAdapter:
    library = LIBRARY
    convention = "genkit"
    content = True

    def setup(self, endpoint: str) -> None:
        self.endpoint = endpoint  # the exporter lives in the node process

    def shutdown(self) -> None:  # the node process flushed Genkit's span processors before it exited
        pass


def run_genkit(adapter: GenkitAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    extra = (HANDOFF_TOOL,) if scenario == "handoff" else ()
    truth.offered_tools = set(SCENARIOS[scenario]["tools"]) | set(SCENARIOS[scenario].get("specialist_tools", []))
    truth.offered_tools |= set(extra)
    node_host.run_node_app(JS_APP, adapter.endpoint, base_url, node_host.spec(scenario, extra), truth)
    if scenario == "handoff" and len(truth.agents) >= 2:
        # The billing agent's flow runs inside the handoff tool's span, a tool execution of the triage run: the
        # handoff is labelled from the delegating run to the delegate's (as Mastra's sub-agent).
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": truth.agents[1]["span_id"]})


def main() -> int:
    return app_main(GenkitAdapter(), run_genkit)


if __name__ == "__main__":
    sys.exit(main())
