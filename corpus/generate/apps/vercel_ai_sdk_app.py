"""The Vercel AI SDK (npm `ai`, `generateText` with tools on `@ai-sdk/openai`'s chat model) against the fake server,
traced by one of the SDK's telemetry integrations (`@ai-sdk/otel`) through the OpenTelemetry JS SDK's OTLP/gRPC
exporter; the library directory chooses it (`INTEGRATIONS`):

- `vercel-ai-sdk`: `LegacyOpenTelemetry`, the SDK's own `ai.*` spans (`ai.generateText`, `ai.generateText.doGenerate`,
  `ai.toolCall`);
- `vercel-ai-sdk-genai`: `OpenTelemetry`, the OpenTelemetry GenAI conventions (`invoke_agent <model>`, `step <n>`,
  `chat <model>`, `execute_tool <name>`), the integration the SDK's documentation registers.

    .venvs/vercel-ai-sdk/bin/python -m apps.vercel_ai_sdk_app --lib vercel-ai-sdk-genai --scenario handoff --out DIR

The agent is JavaScript (`js/vercel_ai_sdk_app.mjs`, dependencies pinned in `js/package-lock.json`, installed by
`run_all.py` with `npm ci`); this module is its host. It starts `node` with the capture server's endpoint, the fake
server's base URL and a spec file (the scenario's prompt, tools and the tools' definitions from `corpusgen`), and
answers the app's requests on the app's stdin: a tool body is run here by `corpusgen.frameworks.ToolRunner` (the same
tools, results, failures and policy as every Python app), so the tools are those of `corpusgen/tools.py`.

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
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import ToolRunner  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

# library directory -> (the app's --telemetry integration, convention recorded in the labels)
INTEGRATIONS = {
    "vercel-ai-sdk": ("legacy", "vercel-ai"),
    "vercel-ai-sdk-genai": ("genai", "otel-genai"),
}
JS_DIR = Path(__file__).resolve().parents[1] / "js"
JS_APP = JS_DIR / "vercel_ai_sdk_app.mjs"
MARK = "@corpus "
HANDOFF_TOOL = "handoff_to_billing_agent"
RUN_TIMEOUT_S = 120


class VercelAISDKAdapter:
    content = True

    def __init__(self, library: str):
        self.library = library
        self.telemetry, self.convention = INTEGRATIONS[library]

    def setup(self, endpoint: str) -> None:
        self.endpoint = endpoint  # the exporter lives in the node process

    def shutdown(self) -> None:  # the node process flushed and shut its provider down before it exited
        pass


def _spec(scenario: str) -> dict:
    spec = SCENARIOS[scenario]
    names = [*spec["tools"], *spec.get("specialist_tools", []), *([HANDOFF_TOOL] if scenario == "handoff" else [])]
    return {
        "scenario": scenario,
        "user": spec["user"],
        "tools": spec["tools"],
        "specialist_tools": spec.get("specialist_tools", []),
        "system_prompt": SYSTEM_PROMPT,
        "specialist_prompt": SPECIALIST_PROMPT,
        "definitions": {n: {"description": T.DESCRIPTIONS[n], "parameters": T.tool_definition(n)["function"]["parameters"]}
                        for n in names},
    }


class Host:
    """Answers the JavaScript app's requests and keeps what it reports in the Truth."""

    def __init__(self, truth: Truth):
        self.truth = truth
        self.runner = ToolRunner(truth, truth.server_log)
        self.ended: dict | None = None

    def _at_span(self, span_id: str | None, body):
        first = len(self.truth.tools)
        try:
            return body()
        finally:
            for t in self.truth.tools[first:]:  # ToolRunner records the span current here (none): the app's span
                t["span_id"] = span_id

    def handle(self, msg: dict) -> dict | None:
        op = msg["op"]
        if op == "tool":
            try:
                result = self._at_span(msg["span_id"], lambda: self.runner.run(msg["name"], msg["args"],
                                                                                call_id=msg["call_id"]))
                return {"result": result}
            except T.ToolFailure as exc:
                return {"error": str(exc)}
        if op == "record":
            self._at_span(msg["span_id"], lambda: self.runner.record_other(msg["name"], msg["args"],
                                                                           call_id=msg["call_id"]))
            return {}
        if op == "agent":
            self.truth.record_agent(msg["name"], span_id=msg["span_id"], trace_id=msg["trace_id"])
        elif op == "step":
            self.truth.record_workflow("step", span_id=msg["span_id"], trace_id=msg["trace_id"])
        elif op == "end":
            self.ended = msg
        return None


def run_vercel_ai_sdk(adapter: VercelAISDKAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH")
    truth.offered_tools = set(SCENARIOS[scenario]["tools"]) | set(SCENARIOS[scenario].get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add(HANDOFF_TOOL)
    host = Host(truth)
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(_spec(scenario)), encoding="utf-8")
        proc = subprocess.Popen([node, str(JS_APP), "--endpoint", adapter.endpoint, "--base-url", base_url,
                                 "--spec", str(spec_path), "--telemetry", adapter.telemetry,
                                 "--service-name", f"corpus-{adapter.library}"],
                                cwd=JS_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
        assert proc.stdin is not None and proc.stdout is not None
        for line in proc.stdout:
            if not line.startswith(MARK):
                sys.stdout.write(line)
                continue
            msg = json.loads(line[len(MARK):])
            reply = host.handle(msg)
            if "id" in msg:
                proc.stdin.write(json.dumps({"id": msg["id"], **(reply or {})}) + "\n")
                proc.stdin.flush()
        proc.stdin.close()
        if proc.wait(timeout=RUN_TIMEOUT_S) != 0 or host.ended is None:
            raise RuntimeError(f"the JavaScript app failed (exit {proc.returncode})")
    error = host.ended.get("error")
    if error:
        truth.error = f"{error['name']}: {error['message']}"
        truth.terminal_status = error["kind"]
    else:
        truth.terminal_status = "policy_violation" if host.runner.denied else "success"
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
