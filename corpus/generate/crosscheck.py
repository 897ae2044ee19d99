#!/usr/bin/env python3
"""Sanity check (not a labeller): classify captured spans with the label rules and compare with labels.json.

`python corpus/generate/crosscheck.py` prints every trace whose span-kind counts differ from the labels' counts
(tool_proposal excluded: it is not a span). The labels come from ground truth; a mismatch here means the generator
or the mapping table in apps/agents.py is wrong and must be investigated, never "fixed" by copying these counts.
"""
import json
import re
import sys
from collections import Counter
from pathlib import Path

TRACES = Path(__file__).resolve().parent.parent / "traces"


# LlamaIndex (OpenInference): an agent's or agent workflow's run is a CHAIN span named after the class.
_LLAMA_INDEX_AGENT_RUN = re.compile(r"^\w*(Agent|AgentWorkflow)\.run$")


def classify(span):
    a = {x["key"]: next(iter(x["value"].values())) for x in span.get("attributes", [])}
    oi = a.get("openinference.span.kind")
    if oi:
        if oi == "TOOL" and span["name"].startswith("handoff to "):
            return "handoff"
        if oi == "CHAIN" and _LLAMA_INDEX_AGENT_RUN.match(span["name"]):
            return "agent_invocation"
        if oi == "LLM" and not any(k.startswith(("llm.input_messages.", "llm.token_count.")) for k in a):
            return "other"  # an LLM-kind span that sent no request (LlamaIndex's `_prepare_chat_with_tools`)
        return {"AGENT": "agent_invocation", "LLM": "model_call", "TOOL": "tool_execution",
                "CHAIN": "workflow_step", "GUARDRAIL": "guardrail"}.get(oi, "other")
    tl = a.get("traceloop.span.kind")
    if tl:
        return {"agent": "agent_invocation", "tool": "tool_execution", "workflow": "workflow_step",
                "task": "workflow_step", "handoff": "handoff"}.get(tl, "other")
    op = a.get("gen_ai.operation.name")
    if a.get("mcp.method.name") and not op:
        return "mcp_client"  # the MCP SDK's CLIENT span of a request; a tools/call executes at its SERVER span
    return {"invoke_agent": "agent_invocation", "chat": "model_call", "generate_content": "model_call",
            "execute_tool": "tool_execution",
            "invoke_workflow": "workflow_step", "unknown": "workflow_step", "agent_handoff": "handoff",
            "guardrail_check": "guardrail",
            # Strands: one span per event-loop cycle, one per multi-agent (Swarm) run
            "execute_event_loop_cycle": "workflow_step", "invoke_swarm": "workflow_step"}.get(op, "other")


def main():
    bad = 0
    for lp in sorted(TRACES.glob("*/*/labels.json")):
        labels = json.loads(lp.read_text())
        got = Counter()
        for line in (lp.parent / "trace.otlp.json").read_text().splitlines():
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for sp in ss.get("spans", []):
                        if sp["traceId"] == labels["trace_id"]:
                            got[classify(sp)] += 1
        want = {k: v for k, v in labels["nodes_by_kind"].items() if k != "tool_proposal"}
        diff = {k: (v, got.get(k, 0)) for k, v in want.items() if got.get(k, 0) != v}
        if got.get("other", 0) != labels["nodes_by_kind"].get("other", 0):
            diff["other"] = (labels["nodes_by_kind"].get("other"), got.get("other", 0))
        if diff:
            bad += 1
            print(f"{lp.parent.relative_to(TRACES)}: (label, classified) {diff}")
    print(f"crosscheck: {bad} trace(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
