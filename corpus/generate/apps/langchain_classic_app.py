"""LangChain's classic agent loop: `create_tool_calling_agent(llm, tools, prompt)` + `AgentExecutor(agent=..., tools=...)`
from `langchain_classic.agents` (LangChain 1.x keeps the pre-LangGraph agents in langchain-classic), on langchain-openai's
`ChatOpenAI` against the fake server's OpenAI face, traced by OpenInference's LangChain instrumentation or by
OpenLLMetry's through traceloop-sdk `Traceloop.init`.

    .venvs/langchain-classic/bin/python -m apps.langchain_classic_app --lib openinference-langchain-agentexecutor \
        --scenario handoff --out DIR

The agent as LangChain's documentation writes it: a chat prompt (system, `{input}`, the `{agent_scratchpad}`
placeholder), `create_tool_calling_agent`, and an `AgentExecutor` named after the agent. The executor streams the agent
runnable (its `stream_runnable` default), so every model request is a streamed Chat Completions request;
`stream_usage=True` asks for the usage chunk, as ChatOpenAI does by default against OpenAI's own endpoint (a custom
`base_url` turns that default off). The client retries nothing (`max_retries=0`); in `model_429` the model is
`llm.with_fallbacks([llm])` on the rate-limit error (the same model once more: LangChain's retry that also holds for a
streamed call, which `with_retry` does not). A tool failure is raised as LangChain's `ToolException`, and every tool's
`handle_tool_error` turns it into the observation `Error: <message>` (the wording of LangGraph's ToolNode and of the
LangChain v1 app's ToolErrorMiddleware handler): the tool run ends without error and the model gets the text. (With
`handle_tool_error=True` the observation is the bare message, and nothing in the trace says the tool failed; with the
default, False, the exception ends the executor's run.) A call to a tool the
executor does not have runs LangChain's `InvalidTool` (a tool run named `invalid_tool` whose observation is
"<name> is not a valid tool, try one of [...]"). `max_iterations` stays at its default, 15 (no script comes near it).
AgentExecutor has no handoff of its own: the triage executor's `transfer_to_billing_agent` tool hands the request to
the billing executor (run inside the tool) and returns its answer, then the triage agent answers (the `supervisor`
script). As in the LangGraph apps (`label_runs`), the transfer tool's execution is the handoff node and the billing
agent's run its target.

Ground truth as in `apps/langgraph_app.py` (its callback handler, tool body and run labelling): every LangChain run and
the instrumentation's span of it; each request marked with the open chat-model run's span; tool bodies record
themselves under their run's span. AgentExecutor hands no tool-call id to the tool run, so a tool's call id is the
server log's proposal of the same name and arguments. Agents are the executors' runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, terminal_status_for  # noqa: E402
from corpusgen.harness import run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.langchain_tools import corpus_tools  # noqa: E402
from apps.langgraph_app import (
    LangGraphAdapter,
    _current_run_id,
    _hex,
    _make_truth_handler,
    _null,
    label_runs,
    tool_body,  # noqa: E402
)


class OpenInferenceAgentExecutorAdapter(LangGraphAdapter):
    """OpenInference's LangChain instrumentor on the app's provider, as for the LangGraph app."""

    library = "openinference-langchain-agentexecutor"


class TraceloopAgentExecutorAdapter:
    """`Traceloop.init` as its README has it: every instrumentation it finds (LangChain and OpenAI here)."""

    library = "traceloop-langchain-agentexecutor"
    convention = "openllmetry"
    content = True

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        import langchain_core.callbacks
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from traceloop.sdk import Traceloop

        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, resource_attributes={"deployment.environment.name": "corpus"})
        # The instrumentor keeps its one callback handler in the wrapper it puts on BaseCallbackManager.__init__.
        init = langchain_core.callbacks.BaseCallbackManager.__init__
        self.callback_handler = init._self_wrapper._callback_handler

    def span_of(self, run_id):
        holder = self.callback_handler.spans.get(run_id)
        return holder.span if holder is not None else None

    def shutdown(self):
        from opentelemetry import trace

        provider = trace.get_tracer_provider()
        provider.force_flush()
        provider.shutdown()


ADAPTERS = {a.library: a for a in (OpenInferenceAgentExecutorAdapter, TraceloopAgentExecutorAdapter)}


def _invalid_tool_truth(runner: ToolRunner, span_of):
    """A callback handler that records each `InvalidTool` run (the executor's answer to a call of a tool it does not
    have) as the execution of the tool the model asked for, status `unknown_tool`, under that run's span; the call's
    name and arguments come from the executor's `on_agent_action`, which precedes the run."""
    from langchain_classic.agents.tools import InvalidTool
    from langchain_core.callbacks import BaseCallbackHandler

    invalid_name = InvalidTool().name

    class InvalidToolTruth(BaseCallbackHandler):
        run_inline = True

        def __init__(self):
            self.actions: list = []
            self.open: dict = {}

        def on_agent_action(self, action, **kw):
            self.actions.append(action)

        def on_tool_start(self, serialized, input_str, *, run_id, name=None, inputs=None, **kw):
            if (name or (serialized or {}).get("name")) != invalid_name or not isinstance(inputs, dict):
                return
            requested = inputs.get("requested_tool_name")
            action = next((a for a in reversed(self.actions) if a.tool == requested), None)
            args = action.tool_input if action is not None and isinstance(action.tool_input, dict) else {}
            self.open[run_id] = (requested, dict(args), getattr(action, "tool_call_id", None))

        def on_tool_end(self, output, *, run_id, **kw):
            if run_id in self.open:
                requested, args, call_id = self.open.pop(run_id)
                runner.truth.record_tool(call_id or runner.resolve_call_id(requested, args), requested,
                                         "unknown_tool", span_id=_hex(span_of(run_id)), args=args)

    return InvalidToolTruth()


def run_executor(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    import httpx
    import openai
    from langchain_classic.agents import AgentExecutor, create_tool_calling_agent
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.tools import ToolException, tool
    from langchain_openai import ChatOpenAI
    from opentelemetry import trace

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    span_of = adapter.span_of
    handler = _make_truth_handler(span_of)
    invalid_truth = _invalid_tool_truth(runner, span_of)

    def mark(request):
        span_id = handler.model_span()
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id
        else:
            truth.notes.append(f"no single open chat-model run when a request was sent ({request.url.path})")

    http_client = openai.DefaultHttpxClient(event_hooks={"request": [mark]},
                                            limits=httpx.Limits(max_keepalive_connections=0))
    llm = ChatOpenAI(model=MODEL, base_url=base_url, api_key="sk-corpus-fake", temperature=0.2, max_retries=0,
                     timeout=CLIENT_TIMEOUT_S, http_client=http_client, stream_usage=True)
    model = llm.with_fallbacks([llm], exceptions_to_handle=(openai.RateLimitError,)) if scenario == "model_429" else llm

    corpus_body = tool_body(handler, span_of, runner, truth)

    def body(name, args):
        try:
            return corpus_body(name, args)
        except T.ToolFailure as e:  # the error a LangChain tool raises for its executor to hand back to the model
            raise ToolException(str(e)) from e

    def tool_error(exc) -> str:
        return f"Error: {exc}"

    registry = corpus_tools(body)
    for t in registry.values():
        t.handle_tool_error = tool_error

    def executor(name, system, tools):
        prompt = ChatPromptTemplate.from_messages(
            [("system", system), ("human", "{input}"), ("placeholder", "{agent_scratchpad}")])
        agent = create_tool_calling_agent(model, tools, prompt)
        return AgentExecutor(agent=agent, tools=tools, name=name)

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    agent_names = ["support_agent"]
    handoff_spans: list = []
    if scenario == "handoff":
        billing = executor("billing_agent", SPECIALIST_PROMPT, [registry[n] for n in spec["specialist_tools"]])

        @tool
        def transfer_to_billing_agent() -> str:
            """Transfer the conversation to the billing agent (refunds, invoices)."""
            run_id = _current_run_id()
            span = span_of(run_id) if run_id else None
            with trace.use_span(span, end_on_exit=False) if span is not None else _null():
                runner.record_other("transfer_to_billing_agent", {})
            handoff_spans.append(_hex(span))
            return billing.invoke({"input": spec["user"]})["output"]

        transfer_to_billing_agent.handle_tool_error = tool_error
        truth.offered_tools.add("transfer_to_billing_agent")
        run = executor("triage_agent", SYSTEM_PROMPT, [transfer_to_billing_agent] + [registry[n] for n in spec["tools"]])
        agent_names = ["triage_agent", "billing_agent"]
    else:
        run = executor("support_agent", SYSTEM_PROMPT, [registry[n] for n in spec["tools"]])

    exc = None
    try:
        run.invoke({"input": spec["user"]}, config={"callbacks": [handler, invalid_truth]})
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("the model's fallback (the same ChatOpenAI) re-ran the request after HTTP 429")
    label_executor_runs(handler, agent_names, handoff_spans, truth)


def label_executor_runs(handler, agent_names: list[str], handoff_spans: list, truth: Truth) -> None:
    """Node kinds, handoff nodes and handoffs from the run records with `label_runs` (no compiled graph here: every
    chain run a workflow step), then each executor's run (the chain run named after its agent) an agent invocation, and
    the handoff's target the billing agent's run."""
    label_runs(handler, {}, handoff_spans, truth)
    executors = {rec["otel"]: rec["name"] for rec in handler.runs.values()
                 if rec["type"] == "chain" and rec["name"] in agent_names and rec["otel"] is not None}
    moved = [w for w in truth.workflows if w["span_id"] in executors]
    truth.workflows = [w for w in truth.workflows if w["span_id"] not in executors]
    truth.agents.extend(moved)
    truth.kind_counts["workflow_step"] -= len(moved)
    truth.kind_counts["agent_invocation"] += len(moved)
    billing = [a["span_id"] for a in truth.agents if a["name"] == "billing_agent"]
    for handoff in truth.handoffs:
        handoff["to_span"] = handoff["to_span"] or (billing[0] if billing else None)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = ADAPTERS[a.lib]()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_executor, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
