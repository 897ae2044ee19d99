"""LangGraph.js (the agents of `js-langgraph/langgraph_agent.mjs`, those of `openinference-langgraph-js`) traced by
OpenLLMetry's Node.js SDK (`@traceloop/node-server-sdk`: its LangChain instrumentation, which the SDK always enables,
and its OpenAI instrumentation on the `openai` module `@langchain/openai` uses), exported by the SDK's batch span
processor through the OpenTelemetry JS SDK's OTLP/gRPC exporter it is given.

    .venvs/traceloop-langgraph-js/bin/python -m apps.traceloop_langgraph_js_app \
        --lib traceloop-langgraph-js --scenario handoff --out DIR

The JavaScript entry module is `js-langgraph/langgraph_traceloop_app.mjs` (the same package.json and lock as
`openinference-langgraph-js`); this module is its host, `apps/openinference_langgraph_js_app.py`'s run with another
entry module and environment (`TRACELOOP_TELEMETRY=false`, no Traceloop API key or base URL).

Ground truth, never read back from the trace: model calls from the request header (here the span current when
`ChatOpenAI`'s `fetch` sends: the OpenAI instrumentation's span of the client's `create`); a request that got no
successful answer is recorded only by the LangChain instrumentation's span of its chat-model run (the OpenAI
instrumentation ends its span only when `create` returns a result), the span the app names for it; tool executions from
the tool bodies (the span the LangChain instrumentation's handler opened for the tool run whose body runs). The
instrumentation's patch of LangChain's callback manager drops the handlers and the parent run id a child run would
inherit, so the app's callback handler is handed every run the instrumentation's handler sees (its start callbacks,
wrapped), with the class LangChain names for it: agents are the runs of the class `CompiledStateGraph` named as one of
the app's agents, any other chain run a workflow step (`graph_runs`), as for `openinference-langgraph-js` where parents
tell; the SDK's `withWorkflow` span around the run is one more workflow step when the run returned (never ended, so
never exported, when it raised). The LangChain instrumentation's span of a chat-model run whose request the OpenAI
instrumentation's span records is counted as no node of its own (one model call per request).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.openinference_langgraph_js_app import LangGraphJsAdapter, run_langgraph_js  # noqa: E402

LIBRARY = "traceloop-langgraph-js"
JS_APP = Path(__file__).resolve().parents[1] / "js-langgraph" / "langgraph_traceloop_app.mjs"


class TraceloopLangGraphJsAdapter(LangGraphJsAdapter):
    library = LIBRARY
    convention = "openllmetry"
    js_app = JS_APP

    def graph_runs(self, ended: dict) -> set[str]:
        """The instrumentation's patch of LangChain's callback manager leaves every run but the top one without a
        parent run id: an agent's compiled graph is a chain run of the class `CompiledStateGraph` (as LangChain named
        it to the callbacks) named as one of the app's agents."""
        classes = ended.get("run_classes") or {}
        agents = set(ended.get("agent_graphs") or {})
        return {r["run_id"] for r in ended.get("runs") or []
                if r["type"] == "chain" and r["name"] in agents and classes.get(r["run_id"]) == "CompiledStateGraph"}

    def setup(self, endpoint: str) -> None:
        super().setup(endpoint)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRACELOOP_")}
        env["TRACELOOP_TELEMETRY"] = "false"
        self.env = env


def unanswered_requests(requests: list[dict], truth: Truth) -> None:
    """A request that got no successful answer is recorded by the LangChain instrumentation's span of its chat-model
    run alone: the OpenAI instrumentation ends its span of `create` only when the client returns a result, so that
    span (the one current at send time, in the request header) is never exported. Such a request's span is the
    chat-model run's (from the app, per request: the two span ids and the HTTP status, null when no answer came)."""
    moved = {}
    for req in requests:
        if req.get("span_id") and req.get("run_span_id") and req.get("status") != 200:
            moved[req["span_id"]] = req["run_span_id"]
    for r in truth.server_log:
        if r.get("otel_span") in moved:
            truth.notes.append(f"model request {r['seq']} got no successful answer (server status {r.get('status')}): "
                               "the OpenAI instrumentation's span of it never ended; its span is its chat-model run's")
            r["otel_span"] = moved[r["otel_span"]]


def run(adapter: TraceloopLangGraphJsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    ended = run_langgraph_js(adapter, scenario, base_url, truth)
    unanswered_requests(ended.get("requests") or [], truth)
    # The app reported the SDK's workflow span (a `step` message) before the run: a workflow step of its own, ended and
    # exported only when the run returned (`withWorkflow` ends its span when the function's promise resolves, never when
    # it rejects: read in the SDK's `withEntity`).
    steps = [w for w in truth.workflows if w["name"] == "step"]
    if truth.error:
        truth.workflows[:] = [w for w in truth.workflows if w["name"] != "step"]
        truth.notes.extend("the run raised: the SDK's workflow span was never ended (not exported)" for _ in steps)
        steps = []
    truth.kind_counts["workflow_step"] = truth.kind_counts.get("workflow_step", 0) + len(steps)


def main() -> int:
    return app_main(TraceloopLangGraphJsAdapter(), run, handoff_family="supervisor")


if __name__ == "__main__":
    sys.exit(main())
