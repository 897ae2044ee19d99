"""The OpenAI Agents SDK for JavaScript (the agents of `js-openai-agents/openai_agents_agent.mjs`, those of
`openinference-openai-agents-js`) traced by OpenLLMetry's Node.js SDK (`@traceloop/node-server-sdk`: its OpenAI
instrumentation on the `openai` module the Agents SDK's Chat Completions model calls; OpenLLMetry has no instrumentation
of the Agents SDK for JavaScript), with the app's units in the SDK's wrappers (`withWorkflow` around the run, `withAgent`
around each `run` of the Agents SDK, `withTool` around each tool body), exported by the SDK's batch span processor
through the OpenTelemetry JS SDK's OTLP/gRPC exporter it is given.

    .venvs/traceloop-openai-agents-js/bin/python -m apps.traceloop_openai_agents_js_app \
        --lib traceloop-openai-agents-js --scenario handoff --out DIR

The JavaScript entry module is `js-openai-agents/openai_agents_traceloop_app.mjs` (the same package.json and lock as
`openinference-openai-agents-js`); this module is its host (`corpusgen.node_host`), with `TRACELOOP_TELEMETRY=false` and
no Traceloop API key or base URL.

Ground truth, never read back from the trace: the app reports every span it saw start (each wrapper's span, the span
current when the client sent a request: the OpenAI instrumentation's span of `create`) and whether it ended. A span that
never ended is never exported: the SDK's wrappers end their span only when the wrapped function returns (a tool that
raised, an agent run or a workflow a failed request ended), and the OpenAI instrumentation ends its span only when
`create` returns a result (a request answered 429 or 500, or timed out). Such a tool ran with no span (its finding
anchored on its proposer); such a request is `untraced`, its finding anchored on the innermost span around it that was
exported (`failure_span`; when none was, on the last model call exported before it), and no exported span records its
error (`failure_in_trace: false`). The handoff is the Agents SDK's (`transfer_to_billing_agent`, executed by the SDK with
no span): from the span of the `run` that started with the triage agent to the model call of the billing agent's first
request (the agent a request belongs to: the instructions it carries).
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

LIBRARY = "traceloop-openai-agents-js"
JS_APP = Path(__file__).resolve().parents[1] / "js-openai-agents" / "openai_agents_traceloop_app.mjs"
HANDOFF_TOOL = "transfer_to_billing_agent"


class TraceloopOpenAIAgentsJsAdapter:
    library = LIBRARY
    convention = "openllmetry"
    content = True
    env: dict[str, str] | None = None

    def setup(self, endpoint: str) -> None:
        self.endpoint = endpoint  # the exporter lives in the node process
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRACELOOP_")}
        env["TRACELOOP_TELEMETRY"] = "false"
        self.env = env

    def shutdown(self) -> None:  # the node process flushed its span processor before it exited
        pass


def apply_spans(spans: list[dict], truth: Truth) -> dict[str, int]:
    """Agents, workflow steps, tool spans and request spans from the app's report (only spans that ended exist)."""
    ended = {s["span_id"] for s in spans if s.get("ended")}
    for s in spans:
        if not s.get("ended"):
            truth.notes.append(f"{s['kind']} span {s['name']} never ended: not exported")
            continue
        truth.trace_id = truth.trace_id or s["trace_id"]
        if s["kind"] == "workflow":
            truth.workflows.append({"name": s["name"], "span_id": s["span_id"]})
        elif s["kind"] == "agent":
            truth.agents.append({"name": s["name"], "span_id": s["span_id"]})
    for t in truth.tools:
        if t["span_id"] and t["span_id"] not in ended:
            t["span_id"] = None  # the body raised: withTool's span never ended
    requests = {s["span_id"]: s for s in spans if s["kind"] == "request"}
    last_exported = None
    for r in truth.server_log:
        req = requests.get(r.get("otel_span"))
        if r.get("otel_span") in ended:
            last_exported = r["otel_span"]
            continue
        r["untraced"] = True
        workflows = [w["span_id"] for w in truth.workflows]
        r["failure_span"] = (req.get("run") if req and req.get("run") in ended
                             else workflows[0] if workflows else last_exported)
        r["failure_in_trace"] = False
        r["otel_span"] = None
        truth.notes.append(f"model request {r['seq']} (status {r.get('status')}, {r.get('outcome')}): the OpenAI "
                           "instrumentation's span of it never ended")
    first_billing = next((s for s in spans if s["kind"] == "request" and s.get("agent") == "billing_agent"
                          and s["span_id"] in ended), None)
    if first_billing is not None:
        start_run = next((a["span_id"] for a in truth.agents if a["name"] == "triage_agent"), None)
        truth.handoffs.append({"from_span": start_run, "to_span": first_billing["span_id"]})
    return {"model_call": sum(1 for r in truth.server_log if not r.get("untraced"))}


def run(adapter: TraceloopOpenAIAgentsJsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    truth.offered_tools = set(SCENARIOS[scenario]["tools"]) | set(SCENARIOS[scenario].get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add(HANDOFF_TOOL)
    host = node_host.run_node_app(JS_APP, adapter.endpoint, base_url, node_host.spec(scenario), truth, env=adapter.env)
    ended = host.ended or {}
    truth.notes.extend(ended.get("notes") or [])
    truth.kind_counts = apply_spans(ended.get("spans") or [], truth)


def main() -> int:
    return app_main(TraceloopOpenAIAgentsJsAdapter(), run, handoff_family="agents")


if __name__ == "__main__":
    sys.exit(main())
