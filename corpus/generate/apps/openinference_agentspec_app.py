"""An Oracle Open Agent Specification (Agent Spec) agent run by `pyagentspec`'s LangGraph runtime adapter, traced by
OpenInference's Agent Spec instrumentation (`openinference-instrumentation-agentspec`).

    .venvs/openinference-agentspec/bin/python -m apps.openinference_agentspec_app --lib openinference-agentspec \
        --scenario handoff --out DIR

The agent is declared in Agent Spec (`pyagentspec.agent.Agent` with an `OpenAiCompatibleConfig` at the fake server,
`ServerTool`s with string inputs and one string output; the handoff scenario a `pyagentspec.swarm.Swarm` of a triage
and a billing agent) and loaded into LangGraph by `pyagentspec.adapters.langgraph.AgentSpecLoader` with the app's tool
functions as its tool registry. The adapter builds LangChain's `create_agent` graphs (langgraph-swarm's for the
swarm) whose `ChatOpenAI` and tools carry its Agent Spec tracing callbacks, and wraps each agent graph's `stream` in
an `AgentExecutionSpan`. The model's `RetryPolicy(max_attempts=0, request_timeout=1.0)` (the client retries nothing;
the corpus' 1 s timeout); what the scenarios exercise is added as the loader's `middleware` (LangChain's
`ToolErrorMiddleware`: a tool that raised goes back to the model as an error message; in `model_429`
`ModelRetryMiddleware`, one retry on the client's rate-limit error), as in `apps/langchain_agent_app.py`.

`AgentSpecInstrumentor().instrument(tracer_provider=...)` at its default (no option: `mask_sensitive_information`
False, every input and output recorded) starts an Agent Spec `Trace` whose span processors wrap the provider's own:
each Agent Spec span becomes an OTel span (ids from the Agent Spec ids), exported through the provider's
BatchSpanProcessor to the capture server. None of these spans is ever the current OTel span, so ground truth comes from
Agent Spec's own span objects: a span processor appended to the same `Trace` records every Agent Spec span (kind,
name, parent, ended or not) and the OTel span the instrumentation made of it (read from the instrumentation's span
registry when the span starts). The HTTP request hook marks each request with the Agent Spec span current when it is
sent (the LLM generation span the adapter's callback made current); tool bodies record the current Agent Spec span
(their tool execution span) and the tool-call id LangChain hands them (`InjectedToolCallId`).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Annotated

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, terminal_status_for  # noqa: E402
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402
from langchain_core.tools import InjectedToolCallId  # noqa: E402  (module level: tools resolve annotations)

LIBRARY = "openinference-agentspec"
# The adapter's LLM callback records no token usage (`LlmGenerationResponse` without input / output tokens: the
# instrumentation writes `llm.token_count.*` as the string "null").
LABEL_RULES = {"usage_recorded": False}

TOOL_INPUTS = {
    "get_weather": ("Get the current weather for a city.", ["city"]),
    "lookup_order": ("Look up an order by its id, e.g. A-1001.", ["order_id"]),
    "update_record": ("Update one field of a stored record, e.g. record_id order/B-2002.",
                      ["record_id", "field", "value"]),
    "delete_file": ("Delete a file from the shared drive.", ["path"]),
    "get_file_info": ("Get metadata of a file on the shared drive.", ["path"]),
    "search_docs": ("Search the knowledge base.", ["query"]),
}


def _hex_span(otel_span) -> str | None:
    ctx = otel_span.get_span_context() if otel_span is not None else None
    return format(ctx.span_id, "016x") if ctx is not None and ctx.is_valid else None


def _make_recorder(oi_processors):
    """An Agent Spec span processor that records every Agent Spec span and the OTel span the instrumentation made of
    it (its registry holds it from the span's start to its end; this processor runs after the instrumentation's)."""
    from pyagentspec.tracing.spanprocessor import SpanProcessor

    class Recorder(SpanProcessor):
        def __init__(self):
            super().__init__(mask_sensitive_information=False)
            self.spans: dict[str, dict] = {}  # Agent Spec span id -> record, in start order
            self.lock = threading.Lock()

        def otel_of(self, span) -> tuple[str | None, str | None]:
            for p in oi_processors:
                otel = p._span_registry.get(span.id)
                if otel is not None:
                    ctx = otel.get_span_context()
                    return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")
            return None, None

        def on_start(self, span):
            trace_id, span_id = self.otel_of(span)
            parent = span._parent_span
            with self.lock:
                self.spans[span.id] = {"kind": type(span).__name__, "name": span.name, "otel": span_id,
                                       "trace": trace_id, "parent": parent.id if parent is not None else None,
                                       "ended": False, "span": span}

        def on_end(self, span):
            with self.lock:
                if span.id in self.spans:
                    self.spans[span.id]["ended"] = True

        def on_event(self, event, span):
            pass

        def startup(self):
            pass

        def shutdown(self):
            pass

        async def on_start_async(self, span):
            self.on_start(span)

        async def on_end_async(self, span):
            self.on_end(span)

        async def on_event_async(self, event, span):
            pass

        async def startup_async(self):
            pass

        async def shutdown_async(self):
            pass

        def otel(self, span_id: str | None) -> str | None:
            rec = self.spans.get(span_id) if span_id else None
            return rec["otel"] if rec else None

    return Recorder()


class OpenInferenceAgentSpecAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        from openinference.instrumentation.agentspec import AgentSpecInstrumentor, OpenInferenceSpanProcessor
        from pyagentspec.tracing.trace import get_trace

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        AgentSpecInstrumentor().instrument(tracer_provider=self.provider)
        trace = get_trace()
        oi = [p for p in trace.span_processors if isinstance(p, OpenInferenceSpanProcessor)]
        self.recorder = _make_recorder(oi)
        # The Trace's root span started with the Trace, before this recorder was added: recorded from the
        # instrumentation's registry here (it ends, and is exported, when the instrumentation is removed).
        self.recorder.on_start(trace._root_span)
        trace.span_processors.append(self.recorder)

    def shutdown(self):
        from openinference.instrumentation.agentspec import AgentSpecInstrumentor

        AgentSpecInstrumentor().uninstrument()
        self.provider.force_flush()
        self.provider.shutdown()


def _agentspec_tools(names):
    from pyagentspec.property import StringProperty
    from pyagentspec.tools import ServerTool

    out = []
    for name in names:
        description, inputs = TOOL_INPUTS[name]
        out.append(ServerTool(name=name, description=description,
                              inputs=[StringProperty(title=i, description=i) for i in inputs],
                              outputs=[StringProperty(title="result")]))
    return out


def _registry(runner: ToolRunner, recorder, truth: Truth) -> dict:
    """The app's tool functions for the loader's tool registry: each runs the corpus tool and records the current
    Agent Spec span (the tool execution span the adapter's callback opened) and the tool-call id LangChain injects."""
    from langchain_core.tools import StructuredTool
    from pyagentspec.tracing.spans.span import get_current_span
    from pydantic import create_model

    def make(name, inputs):
        def body(tool_call_id: Annotated[str, InjectedToolCallId], **kwargs) -> str:
            current = get_current_span()
            span_id = recorder.otel(current.id) if current is not None else None
            if span_id is None:
                truth.notes.append(f"tool {name}: no Agent Spec span current in its body")
            runner_args = {k: kwargs[k] for k in inputs}
            return _run(runner, name, runner_args, tool_call_id, span_id)

        fields = {i: (str, ...) for i in inputs}
        fields["tool_call_id"] = (Annotated[str, InjectedToolCallId], ...)
        schema = create_model(f"{name}_args", **fields)
        return StructuredTool(name=name, description=TOOL_INPUTS[name][0], args_schema=schema,
                              func=lambda tool_call_id, **kw: body(tool_call_id, **kw))

    return {name: make(name, inputs) for name, (_, inputs) in TOOL_INPUTS.items()}


def _run(runner: ToolRunner, name: str, args: dict, call_id: str, span_id: str | None) -> str:
    from corpusgen import tools as T

    truth = runner.truth
    if T.is_forbidden(name):
        runner.denied.append(name)
        truth.record_tool(call_id, name, "denied", span_id=span_id, args=args)
        return T.denial(name)
    try:
        out = T.FUNCTIONS[name](**args)
    except T.ToolFailure:
        truth.record_tool(call_id, name, "error", span_id=span_id, args=args)
        raise
    truth.record_tool(call_id, name, "ok", span_id=span_id, args=args)
    return out


def run_agent(adapter: OpenInferenceAgentSpecAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import httpx
    import openai
    from langchain.agents.middleware import ModelRetryMiddleware, ToolErrorMiddleware
    from pyagentspec.adapters.langgraph import AgentSpecLoader
    from pyagentspec.agent import Agent
    from pyagentspec.llms import OpenAiCompatibleConfig
    from pyagentspec.retrypolicy import RetryPolicy
    from pyagentspec.tracing.spans.span import get_current_span

    spec = SCENARIOS[scenario]
    recorder = adapter.recorder
    runner = ToolRunner(truth, truth.server_log)

    # Ground truth only: each HTTP request carries the OTel span of the Agent Spec span current when it is sent.
    original_send = httpx.Client.send

    def send(self, request, *args, **kwargs):
        current = get_current_span()
        span_id = recorder.otel(current.id) if current is not None else None
        kind = recorder.spans.get(current.id, {}).get("kind") if current is not None else None
        if span_id and kind == "LlmGenerationSpan":
            request.headers["x-corpus-otel-span"] = span_id
        else:
            truth.notes.append(f"no Agent Spec LLM generation span current when a request was sent ({kind})")
        return original_send(self, request, *args, **kwargs)

    httpx.Client.send = send

    llm = OpenAiCompatibleConfig(name="corpus-model", model_id=MODEL, url=base_url,
                                 retry_policy=RetryPolicy(max_attempts=0, request_timeout=CLIENT_TIMEOUT_S))
    middleware = [ToolErrorMiddleware(lambda exc, request: f"Error: {exc}")]
    if scenario == "model_429":
        middleware.append(ModelRetryMiddleware(max_retries=1, retry_on=(openai.RateLimitError,), on_failure="error",
                                               initial_delay=0.0, jitter=False))
    registry = _registry(runner, recorder, truth)
    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        from pyagentspec.swarm import Swarm

        triage = Agent(name="triage_agent", llm_config=llm, system_prompt=SYSTEM_PROMPT,
                       tools=_agentspec_tools(spec["tools"]))
        billing = Agent(name="billing_agent", llm_config=llm, system_prompt=SPECIALIST_PROMPT,
                        tools=_agentspec_tools(spec["specialist_tools"]))
        component = Swarm(name="support_swarm", first_agent=triage, relationships=[(triage, billing)])
        truth.offered_tools.add("transfer_to_billing_agent")
    else:
        component = Agent(name="support_agent", llm_config=llm, system_prompt=SYSTEM_PROMPT,
                          tools=_agentspec_tools(spec["tools"]))
    graph = AgentSpecLoader(tool_registry=registry, middleware=middleware).load_component(component)

    exc = None
    try:
        graph.invoke({"messages": [{"role": "user", "content": spec["user"]}]},
                     config={"recursion_limit": 40, "configurable": {"thread_id": f"corpus-{scenario}"}})
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    finally:
        httpx.Client.send = original_send
    terminal_status_for(truth, runner, exc)
    label_spans(recorder, truth, scenario)


def label_spans(recorder, truth: Truth, scenario: str) -> None:
    """Agents, handoffs and unexported model calls from the Agent Spec spans the run made."""
    spans = list(recorder.spans.values())
    for rec in spans:
        if rec["kind"] == "RootSpan":  # the Agent Spec Trace's own root span (CHAIN): the outermost workflow step
            truth.record_workflow(rec["name"], span_id=rec["otel"], trace_id=rec["trace"])
        elif rec["kind"] == "AgentExecutionSpan":
            truth.record_agent(rec["span"].agent.name, span_id=rec["otel"], trace_id=rec["trace"])
        elif truth.trace_id is None and rec["trace"]:
            truth.trace_id = rec["trace"]
    if scenario == "handoff":
        # langgraph-swarm's `transfer_to_billing_agent` tool carries no Agent Spec callback (the adapter adds it beside
        # the agent's converted tools): no span executes it. The handoff is from the triage agent's execution span to
        # the billing agent's, as in the raw loops (the delegating agent span, the receiving agent span).
        agents = {rec["span"].agent.name: rec["otel"] for rec in spans if rec["kind"] == "AgentExecutionSpan"}
        truth.handoffs.append({"from_span": agents.get("triage_agent"), "to_span": agents.get("billing_agent")})
    by_otel = {rec["otel"]: rec for rec in spans}
    exported = {rec["otel"] for rec in spans if rec["ended"]}
    failed = [r for r in truth.server_log if r.get("otel_span") and r["otel_span"] not in exported]
    for r in failed:
        rec = by_otel.get(r["otel_span"])
        parent = recorder.otel(rec["parent"]) if rec else None
        r["untraced"] = True
        r["failure_span"] = parent
        r["failure_in_trace"] = truth.error is not None and r is failed[-1]
        truth.notes.append(f"model request {r['seq']} (status {r.get('status')}, {r.get('outcome')}): its Agent Spec "
                           "LlmGenerationSpan was never ended (never exported)")
        r["otel_span"] = None
    truth.kind_counts["model_call"] = sum(1 for r in truth.server_log if not r.get("untraced"))
    others = sorted({rec["kind"] for rec in spans}
                    - {"RootSpan", "AgentExecutionSpan", "LlmGenerationSpan", "ToolExecutionSpan"})
    if others:
        truth.notes.append(f"other Agent Spec spans: {others}")


if __name__ == "__main__":
    sys.exit(app_main(OpenInferenceAgentSpecAdapter(), run_agent, handoff_family="agents", extra_meta=LABEL_RULES))
