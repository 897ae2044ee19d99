"""The OpenAI Agents SDK for JavaScript (`@openai/agents`) on Chat Completions against the fake server, traced by
OpenInference's Agents SDK instrumentation for JavaScript (`@arizeai/openinference-instrumentation-openai-agents`)
through the OpenTelemetry JS SDK's OTLP/gRPC exporter: the JavaScript form of the `openinference-openai-agents`
directory (apps/agents.py).

    .venvs/openinference-openai-agents-js/bin/python -m apps.openinference_openai_agents_js_app \
        --lib openinference-openai-agents-js --scenario handoff --out DIR

The agent is JavaScript (`js-openai-agents/openai_agents_app.mjs`, dependencies pinned in
`js-openai-agents/package-lock.json`, installed by `run_all.py` with `npm ci`); this module is its host
(`corpusgen.node_host`: the tool bodies are `corpusgen/tools.py`'s, run by `corpusgen.frameworks.ToolRunner`, which
denies `delete_*` in the body as apps/agents.py's tools do).

Ground truth, never read back from the trace: model calls from the request header (the OTel span the instrumentation
opened for the SDK's generation span current when the client sends); tool executions from the tool bodies (the OTel
span of the SDK's function span current in the body, the call id the SDK hands the body); node kinds, agents and the
handoff from the SDK's own traces and spans, each with the OTel span the instrumentation opened for it (read from its
span maps when the SDK announces the span), as apps/agents.py counts them.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import node_host  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.scenarios import SCENARIOS  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "openinference-openai-agents-js"
JS_APP = Path(__file__).resolve().parents[1] / "js-openai-agents" / "openai_agents_app.mjs"
HANDOFF_TOOL = "transfer_to_billing_agent"

# SDK span type -> label node kind under this instrumentation (its getSpanKind: the trace's root an AGENT span, agent
# AGENT, generation LLM, function TOOL, handoff TOOL "handoff to <agent>" (a handoff node), guardrail GUARDRAIL, every
# other type CHAIN).
KIND_MAP = {"__root__": "agent_invocation", "agent": "agent_invocation", "generation": "model_call",
            "function": "tool_execution", "handoff": "handoff", "custom": "workflow_step", "task": "workflow_step",
            "turn": "workflow_step", "guardrail": "guardrail"}


class OpenAIAgentsJsAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint: str) -> None:
        self.endpoint = endpoint  # the exporter lives in the node process

    def shutdown(self) -> None:  # the node process flushed and shut its tracer provider down before it exited
        pass


def count_sdk_spans(roots: list[dict], sdk_spans: list[dict], truth: Truth) -> dict[str, int]:
    """Node counts, agents and handoffs from the SDK's traces and spans (apps/agents.py's rule)."""
    counts = {k: 0 for k in ("agent_invocation", "model_call", "tool_execution", "workflow_step", "handoff",
                             "guardrail")}
    for root in roots:
        if not root.get("ended"):
            # The SDK ends no trace whose function threw (withTrace ends it only after a result), and the
            # instrumentation ends the root span of such a trace only when a top-level agent span failed: the root span
            # stays open and is never exported.
            truth.notes.append(f"the root span of SDK trace {root['name']!r} was never ended: not exported")
            continue
        counts[KIND_MAP["__root__"]] += 1
        truth.trace_id = truth.trace_id or root["trace_id"]
        truth.agents.append({"name": root["name"], "span_id": root["otel"]})
    for rec in sdk_spans:
        kind = KIND_MAP.get(rec["type"], "workflow_step")
        if rec["otel"] is None or not rec.get("ended"):
            truth.notes.append(f"SDK span {rec['type']}:{rec['name']} has no OTel span that was ended")
            continue
        counts[kind] = counts.get(kind, 0) + 1
        truth.trace_id = truth.trace_id or rec["trace_id"]
        if kind == "agent_invocation":
            truth.agents.append({"name": rec["name"], "span_id": rec["otel"]})
    handoffs = [r for r in sdk_spans if r["type"] == "handoff"]
    for h in handoffs:
        target = next((r for r in sdk_spans if r["type"] == "agent" and r["name"] == h.get("to_agent") and r["otel"]),
                      None)
        truth.handoffs.append({"from_span": h["otel"], "to_span": target["otel"] if target else None})
    if handoffs:
        # The SDK executes the model's transfer_to_<agent> call as its handoff span (one handoff per run here).
        truth.flow_overrides["call_handoff_1"] = {"executed_by_span": handoffs[0]["otel"]}
    truth.notes.append("sdk spans: " + ", ".join(f"{r['type']}:{r['name']}" for r in sdk_spans))
    return counts


def run_openai_agents_js(adapter: OpenAIAgentsJsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    truth.offered_tools = set(SCENARIOS[scenario]["tools"]) | set(SCENARIOS[scenario].get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add(HANDOFF_TOOL)
    host = node_host.run_node_app(JS_APP, adapter.endpoint, base_url, node_host.spec(scenario), truth)
    ended = host.ended or {}
    truth.notes.extend(ended.get("notes") or [])
    truth.kind_counts = count_sdk_spans(ended.get("roots") or [], ended.get("sdk_spans") or [], truth)


def main() -> int:
    return app_main(OpenAIAgentsJsAdapter(), run_openai_agents_js, handoff_family="agents")


if __name__ == "__main__":
    sys.exit(main())
