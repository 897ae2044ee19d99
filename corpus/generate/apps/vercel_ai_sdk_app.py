"""The Vercel AI SDK (npm `ai`, `generateText` with tools on `@ai-sdk/openai`'s chat model) against the fake server,
traced by one of the SDK's telemetry integrations (`@ai-sdk/otel`) through the OpenTelemetry JS SDK's OTLP/gRPC
exporter; the library directory chooses it (`INTEGRATIONS`):

- `vercel-ai-sdk`: `LegacyOpenTelemetry`, the SDK's own `ai.*` spans (`ai.generateText`, `ai.generateText.doGenerate`,
  `ai.toolCall`);
- `vercel-ai-sdk-genai`: `OpenTelemetry`, the OpenTelemetry GenAI conventions (`invoke_agent <model>`, `step <n>`,
  `chat <model>`, `execute_tool <name>`), the integration the SDK's documentation registers.
- `openinference-vercel`: the same `OpenTelemetry` integration, its spans exported through
  `@arizeai/openinference-vercel`'s `OpenInferenceBatchSpanProcessor` (default options, no span filter), which adds
  OpenInference attributes (`openinference.span.kind`, `input.value`, `llm.input_messages.*`, ...) to each span before
  the exporter sends it. The ground truth is read as for `vercel-ai-sdk-genai` (the processor adds no span).

    .venvs/vercel-ai-sdk/bin/python -m apps.vercel_ai_sdk_app --lib vercel-ai-sdk-genai --scenario handoff --out DIR

The agent is JavaScript (`js/vercel_ai_sdk_app.mjs`, dependencies pinned in `js/package-lock.json`, installed by
`run_all.py` with `npm ci`); this module is its host (`corpusgen.node_host`: the spec file, the JSON-lines channel,
the tool bodies run by `corpusgen.frameworks.ToolRunner`, so the tools are those of `corpusgen/tools.py`).

Ground truth, never read back from the trace: model calls from the request header (the app's `fetch` sends the span
current when the request goes out: legacy, the `ai.generateText.doGenerate` step span, which the SDK keeps open around
the provider call, its retries and the step's tool runs; genai, the `chat` span, open around the provider call and its
retries; either way the app's one retry after HTTP 429 is a second request on the same span); tool executions from the
tool bodies (the span current inside `execute`: `ai.toolCall` / `execute_tool`, with the SDK's `toolCallId`); agent
runs from the span current at a run's first request: its ancestor that the run's `generateText` opened under the
caller's context (`ai.generateText` / `invoke_agent`; the app records every span's parent as the SDK starts it);
workflow steps from the spans between a run's span and its requests' spans (genai's `step <n>`, one per step, as
Strands' event-loop cycles; legacy has none: its step span is the model call);
the handoff as a tool (`handoff_to_billing_agent`) whose `execute` runs the billing agent's `generateText`, labelled
from the triage run to the billing run (as Pydantic AI's delegation). A call of a tool not offered is answered by the
SDK itself (a tool error sent back to the model, no tool span): proposed, never executed.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import node_host  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.scenarios import SCENARIOS  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

# library directory -> (the app's --telemetry integration, its --span-processor, convention recorded in the labels)
INTEGRATIONS = {
    "vercel-ai-sdk": ("legacy", "batch", "vercel-ai"),
    "vercel-ai-sdk-genai": ("genai", "batch", "otel-genai"),
    "openinference-vercel": ("genai", "openinference", "openinference"),
}
JS_APP = Path(__file__).resolve().parents[1] / "js" / "vercel_ai_sdk_app.mjs"
HANDOFF_TOOL = "handoff_to_billing_agent"


class VercelAISDKAdapter:
    content = True

    def __init__(self, library: str):
        self.library = library
        self.telemetry, self.span_processor, self.convention = INTEGRATIONS[library]

    def setup(self, endpoint: str) -> None:
        self.endpoint = endpoint  # the exporter lives in the node process

    def shutdown(self) -> None:  # the node process flushed and shut its provider down before it exited
        pass


def run_vercel_ai_sdk(adapter: VercelAISDKAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    truth.offered_tools = set(SCENARIOS[scenario]["tools"]) | set(SCENARIOS[scenario].get("specialist_tools", []))
    extra = (HANDOFF_TOOL,) if scenario == "handoff" else ()
    truth.offered_tools.update(extra)
    node_host.run_node_app(JS_APP, adapter.endpoint, base_url, node_host.spec(scenario, extra), truth,
                           extra_args=("--telemetry", adapter.telemetry, "--span-processor", adapter.span_processor,
                                       "--service-name", f"corpus-{adapter.library}"))
    if scenario == "handoff" and len(truth.agents) >= 2:
        # Agent delegation: the billing agent's run is nested inside the delegating tool's span, a plain tool execution
        # of the triage agent (as Pydantic AI's): the handoff is labelled from the delegating run.
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": truth.agents[1]["span_id"]})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--lib", required=True, choices=sorted(INTEGRATIONS))
    library = ap.parse_known_args(argv)[0].lib
    # Both integrations retry a request inside one span (legacy `ai.generateText.doGenerate`, genai `chat`, each open
    # around the provider call and its retries): a span is one model call, and a retried 429 leaves nothing on it.
    return app_main(VercelAISDKAdapter(library), run_vercel_ai_sdk, extra_meta={"model_calls_by_span": True},
                    argv=argv)


if __name__ == "__main__":
    sys.exit(main())
