"""LangGraph.js (`@langchain/langgraph`'s prebuilt `createReactAgent`; `@langchain/langgraph-supervisor` for the
handoff) with `@langchain/openai`'s `ChatOpenAI` against the fake server, traced by OpenInference's JavaScript
LangChain instrumentation (`@arizeai/openinference-instrumentation-langchain`) through the OpenTelemetry JS SDK's
OTLP/gRPC exporter: the JavaScript form of the `openinference-langgraph` directory (apps/langgraph_app.py).

    .venvs/openinference-langgraph-js/bin/python -m apps.openinference_langgraph_js_app \
        --lib openinference-langgraph-js --scenario handoff --out DIR

The agent is JavaScript (`js-langgraph/langgraph_app.mjs`, dependencies pinned in `js-langgraph/package-lock.json`,
installed by `run_all.py` with `npm ci`); this module is its host (`corpusgen.node_host`: the tool bodies are
`corpusgen/tools.py`'s, run by `corpusgen.frameworks.ToolRunner`).

Ground truth, never read back from the trace: model calls from the request header (the span of the chat-model run
open when `ChatOpenAI`'s `fetch` sends the request, from the instrumentation's own run-to-span map; the retry after
a 429 is LangChain's `withRetry`, a new chat-model run); tool executions from the tool bodies (the span of the tool run
whose body runs); the handoff from langgraph-supervisor's `transfer_to_billing_agent` tool run (recorded at its start:
its body is the library's); node kinds from what each LangChain run is (the app reports every run LangChain's
callbacks announced: a compiled agent graph is an agent invocation, any other chain a workflow step), as in
apps/langgraph_app.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import node_host  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.scenarios import SCENARIOS  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "openinference-langgraph-js"
JS_APP = Path(__file__).resolve().parents[1] / "js-langgraph" / "langgraph_app.mjs"
HANDOFF_TOOL = "transfer_to_billing_agent"


class LangGraphJsAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True
    js_app = JS_APP
    env: dict[str, str] | None = None  # the node process's environment (None: this one's)

    def setup(self, endpoint: str) -> None:
        self.endpoint = endpoint  # the exporter lives in the node process

    def shutdown(self) -> None:  # the node process flushed and shut its tracer provider down before it exited
        pass

    def graph_runs(self, ended: dict) -> set[str] | None:
        """The runs of compiled agent graphs, where the app's records of the runs alone do not tell them (None: they
        do, by their parents; `classify_runs`)."""
        return None


def classify_runs(runs: list[dict], agent_graphs: dict[str, list[str]], truth: Truth,
                  known_graph_runs: set[str] | None = None) -> dict[str, int]:
    """Agents and workflow steps from LangChain's runs (apps/langgraph_app.py's rule): a chain run is an agent's
    compiled graph when a child run is one of that graph's nodes (named so, with the same `langgraph_node`), or when it
    is one of `known_graph_runs` if given; any other chain run is a workflow step; model and tool runs are counted
    from the server log and the tool bodies."""
    by_id = {r["run_id"]: r for r in runs}
    nodes = {name: set(names) - {"__start__"} for name, names in agent_graphs.items()}
    graph_runs = set(known_graph_runs or ())
    for r in runs if known_graph_runs is None else ():
        parent = by_id.get(r["parent"])
        if parent is not None and parent["type"] == "chain" and r["name"] in nodes.get(parent["name"], ()) \
                and r.get("langgraph_node") == r["name"]:
            graph_runs.add(parent["run_id"])
    counts = {"agent_invocation": 0, "workflow_step": 0}
    other = []
    for r in runs:
        if not r.get("span_id"):
            truth.notes.append(f"run {r['name']} ({r['type']}) has no span")
            continue
        truth.trace_id = truth.trace_id or r.get("trace_id")
        if r["type"] == "chain" and r["run_id"] in graph_runs:
            counts["agent_invocation"] += 1
            truth.agents.append({"name": r["name"], "span_id": r["span_id"]})
        elif r["type"] == "chain":
            counts["workflow_step"] += 1
            truth.workflows.append({"name": r["name"], "span_id": r["span_id"]})
        elif r["type"] not in ("llm", "tool"):
            other.append(r["name"])
    if other:
        counts["other"] = len(other)
        truth.notes.append("runs of no node kind: " + ", ".join(sorted(set(map(str, other)))))
    truth.notes.append("runs: " + ", ".join(f"{r['name']}[{r['type']}]" for r in runs))
    return counts


def run_langgraph_js(adapter: LangGraphJsAdapter, scenario: str, base_url: str, truth: Truth) -> dict:
    truth.offered_tools = set(SCENARIOS[scenario]["tools"]) | set(SCENARIOS[scenario].get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add(HANDOFF_TOOL)
    host = node_host.run_node_app(adapter.js_app, adapter.endpoint, base_url, node_host.spec(scenario), truth,
                                  env=adapter.env)
    ended = host.ended or {}
    truth.notes.extend(ended.get("notes") or [])
    counts = classify_runs(ended.get("runs") or [], ended.get("agent_graphs") or {}, truth, adapter.graph_runs(ended))
    handoffs = [t for t in truth.tools if t["name"] == HANDOFF_TOOL]
    if handoffs:
        # langgraph-supervisor's transfer tool does nothing but hand the run over (a Command to the parent graph): its
        # execution is the handoff node; its target the billing agent's graph run that follows.
        counts["handoff"] = len(handoffs)
        counts["tool_execution"] = sum(1 for t in truth.tools if t["span_id"]) - len(handoffs)
        billing = [a["span_id"] for a in truth.agents if a["name"] == "billing_agent"]
        for h in handoffs:
            truth.handoffs.append({"from_span": h["span_id"], "to_span": billing[0] if billing else None})
    truth.kind_counts = counts
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("LangChain's withRetry re-ran the chat model after HTTP 429 (a new chat-model run)")
    return ended


def main() -> int:
    return app_main(LangGraphJsAdapter(), run_langgraph_js, handoff_family="supervisor")


if __name__ == "__main__":
    sys.exit(main())
