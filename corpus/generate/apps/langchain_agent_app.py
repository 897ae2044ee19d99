"""LangChain v1's agent (`langchain.agents.create_agent`) on Anthropic's model through langchain-anthropic's
`ChatAnthropic` against the fake server's Messages face, traced by OpenInference's LangChain instrumentation or by
OpenLLMetry's through traceloop-sdk; or (`openinference-langchain-bedrock`, its own venv) on Amazon Bedrock through
langchain-aws's `ChatBedrockConverse` against the fake server's Converse face, traced by OpenInference's.

    .venvs/langchain-anthropic/bin/python -m apps.langchain_agent_app --lib openinference-langchain-anthropic \
        --scenario handoff --out DIR
    .venvs/langchain-bedrock/bin/python -m apps.langchain_agent_app --lib openinference-langchain-bedrock \
        --scenario handoff --out DIR

The agent: `create_agent(ChatAnthropic(...), tools, system_prompt=..., middleware=[...], name=...)` with the
middleware a user adds for what the scenarios exercise: `ToolErrorMiddleware` (a tool that raised goes back to the
model as an error ToolMessage; create_agent's tool node re-raises it otherwise) and, in `model_429`,
`ModelRetryMiddleware` (one retry on the client's rate-limit error, no wait; each attempt a chat-model run of its own).
The client retries nothing (`max_retries=0`; on Bedrock botocore's own retries off, `total_max_attempts: 1`, as in
`corpusgen/raw_loop_bedrock.py`). The handoff is LangChain's multi-agent handoff: two create_agent
graphs as nodes of a parent StateGraph, the triage agent's `transfer_to_billing_agent` tool returning a
`Command(goto="billing_agent", graph=Command.PARENT)`; the billing agent's node hands back to the triage agent, which
answers (the `supervisor` script).

The Anthropic SDK's own OpenTelemetry spans (on by default in anthropic 2.x, on the global provider) are switched off
(`ANTHROPIC_OPEN_TELEMETRY=false`), as in `apps/anthropic_app.py`: the trace shows what the instrumentation emits.

Ground truth as in `apps/langgraph_app.py` (its callback handler): every LangChain run and the instrumentation's span
of it; the request hook on the client's HTTP client marks each request with the open chat-model run's span; tool
bodies record themselves under their run's span. Agents are the compiled create_agent graphs' runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import CLIENT_TIMEOUT_S, ToolRunner, terminal_status_for  # noqa: E402
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402
from langchain.tools import ToolRuntime  # noqa: E402  (module level: @tool resolves annotations)
from langgraph.types import Command  # noqa: E402

from apps.langchain_tools import corpus_tools  # noqa: E402
from apps.langgraph_app import _current_run_id, _hex, _make_truth_handler, _null, label_runs, tool_body  # noqa: E402

os.environ["ANTHROPIC_OPEN_TELEMETRY"] = "false"


class OpenInferenceLangChainAdapter:
    library = "openinference-langchain-anthropic"
    convention = "openinference"
    content = True
    model_provider = "anthropic"

    def setup(self, endpoint):
        from openinference.instrumentation.langchain import LangChainInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        LangChainInstrumentor().instrument(tracer_provider=self.provider)

    def span_of(self, run_id):
        from openinference.instrumentation.langchain import LangChainInstrumentor

        return LangChainInstrumentor().get_span(run_id)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


class OpenInferenceLangChainBedrockAdapter(OpenInferenceLangChainAdapter):
    """The same instrumentation alone, on ChatBedrockConverse (its README pairs it with no model-client
    instrumentation)."""

    library = "openinference-langchain-bedrock"
    model_provider = "bedrock"


class TraceloopLangChainAdapter:
    """`Traceloop.init` as its README has it: every instrumentation it finds (LangChain and Anthropic here)."""

    library = "traceloop-langchain-anthropic"
    convention = "openllmetry"
    content = True
    model_provider = "anthropic"

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

    @staticmethod
    def label_wrapper_spans(runs, counts, truth, middleware):
        """The instrumentation wraps `AgentMiddleware`'s own hook methods (`patch.py`, `_wrap_middleware_hooks`): a hook
        node run (`<class>.<hook>`) of a middleware class that inherits that hook calls the wrapped method, whose span
        (inside the node run's) records the same call again: a span of no node kind (`other`). A class's own hook is
        not wrapped. (create_agent adds a node for every hook it finds not to be `AgentMiddleware`'s, and the wrapped
        methods never are: each of the four hooks of every middleware is a node under this instrumentation.)"""
        from langchain.agents.middleware import AgentMiddleware

        inherited = set()
        for cls in middleware:
            for hook in ("before_agent", "before_model", "after_model", "after_agent"):
                owner = next(c for c in cls.__mro__ if hook in c.__dict__)
                if owner is AgentMiddleware:
                    inherited.add(f"{cls.__name__}.{hook}")
        wrapped = [rec for rec in runs.values() if rec["type"] == "chain" and rec["name"] in inherited
                   and rec["metadata"].get("langgraph_node") == rec["name"]]
        if wrapped:
            counts["other"] = counts.get("other", 0) + len(wrapped)
            truth.notes.append(f"{len(wrapped)} middleware hook call(s) the instrumentation's hook wrapper records "
                               "inside the hook's node run (other)")

    def shutdown(self):
        from opentelemetry import trace

        provider = trace.get_tracer_provider()
        provider.force_flush()
        provider.shutdown()


ADAPTERS = {a.library: a for a in (OpenInferenceLangChainAdapter, OpenInferenceLangChainBedrockAdapter,
                                   TraceloopLangChainAdapter)}


def _anthropic_model(base_url: str, mark):
    """ChatAnthropic at the fake server's Messages face; the client's RateLimitError retried by the middleware."""
    import anthropic
    from corpusgen.raw_loop_anthropic import ANTHROPIC_MODEL, anthropic_failure
    from langchain_anthropic import ChatAnthropic

    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    llm = ChatAnthropic(model=ANTHROPIC_MODEL, base_url=root, api_key="sk-ant-corpus-fake", max_tokens=1024,
                        temperature=0.2, max_retries=0, default_request_timeout=CLIENT_TIMEOUT_S)
    llm._client._client.event_hooks["request"].append(mark)  # ground truth only: the span of each request
    return llm, (anthropic.RateLimitError,), anthropic_failure


def _bedrock_model(base_url: str, mark):
    """ChatBedrockConverse at the fake server's Bedrock face (`endpoint_url`, dummy credentials, botocore's retries
    off); a ThrottlingException retried by the middleware. Non-streamed (`converse`): the class's default."""
    from botocore.config import Config
    from botocore.exceptions import ClientError
    from corpusgen.raw_loop_bedrock import BEDROCK_MODEL_ID, REGION, bedrock_failure
    from langchain_aws import ChatBedrockConverse

    root = base_url[:-3] if base_url.endswith("/v1") else base_url
    config = Config(read_timeout=CLIENT_TIMEOUT_S, connect_timeout=CLIENT_TIMEOUT_S,
                    retries={"mode": "standard", "total_max_attempts": 1})
    llm = ChatBedrockConverse(model=BEDROCK_MODEL_ID, region_name=REGION, endpoint_url=root,
                              aws_access_key_id="AKIACORPUSFAKE000000", aws_secret_access_key="corpus-fake-secret",
                              max_tokens=1024, temperature=0.2, config=config)
    llm.client.meta.events.register("before-send.bedrock-runtime", lambda request, **_: mark(request))

    def throttled(exc: Exception) -> bool:
        return isinstance(exc, ClientError) and (exc.response.get("Error") or {}).get("Code") == "ThrottlingException"

    return llm, throttled, bedrock_failure


def run_agent(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    from langchain.agents import create_agent
    from langchain.agents.middleware import ModelRetryMiddleware, ToolErrorMiddleware
    from langchain.tools import tool
    from langchain_core.messages import ToolMessage
    from langgraph.graph import START, MessagesState, StateGraph
    from opentelemetry import trace

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    span_of = adapter.span_of
    handler = _make_truth_handler(span_of)

    def mark(request):
        span_id = handler.model_span()
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id
        else:
            path = getattr(request.url, "path", request.url)
            truth.notes.append(f"no single open chat-model run when a request was sent ({path})")

    make_model = _bedrock_model if adapter.model_provider == "bedrock" else _anthropic_model
    llm, retry_on, model_failure = make_model(base_url, mark)

    registry = corpus_tools(tool_body(handler, span_of, runner, truth))

    def middleware():
        chosen = [ToolErrorMiddleware(lambda exc, request: f"Error: {exc}")]
        if scenario == "model_429":
            chosen.append(ModelRetryMiddleware(max_retries=1, retry_on=retry_on,
                                               on_failure="error", initial_delay=0.0, jitter=False))
        return chosen

    def agent(name, system, tools):
        return create_agent(llm, tools, system_prompt=system, middleware=middleware(), name=name)

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    handoff_spans: list = []
    if scenario == "handoff":
        @tool
        def transfer_to_billing_agent(runtime: ToolRuntime) -> Command:
            """Transfer the conversation to the billing agent (refunds, invoices)."""
            run_id = _current_run_id()
            span = span_of(run_id) if run_id else None
            with trace.use_span(span, end_on_exit=False) if span is not None else _null():
                runner.record_other("transfer_to_billing_agent", {}, call_id=runtime.tool_call_id)
            handoff_spans.append(_hex(span))
            done = ToolMessage(content="Transferred to billing_agent.", tool_call_id=runtime.tool_call_id,
                               name="transfer_to_billing_agent")
            return Command(goto="billing_agent", graph=Command.PARENT,
                           update={"messages": [runtime.state["messages"][-1], done]})

        truth.offered_tools.add("transfer_to_billing_agent")
        triage = agent("triage_agent", SYSTEM_PROMPT,
                       [transfer_to_billing_agent] + [registry[n] for n in spec["tools"]])
        billing = agent("billing_agent", SPECIALIST_PROMPT, [registry[n] for n in spec["specialist_tools"]])
        builder = StateGraph(MessagesState)
        builder.add_node("triage_agent", triage, destinations=("billing_agent",))
        builder.add_node("billing_agent", billing)
        builder.add_edge(START, "triage_agent")
        builder.add_edge("billing_agent", "triage_agent")
        graph = builder.compile()
        agent_graphs = {"triage_agent": triage, "billing_agent": billing}
    else:
        graph = agent("support_agent", SYSTEM_PROMPT, [registry[n] for n in spec["tools"]])
        agent_graphs = {"support_agent": graph}

    exc = None
    try:
        graph.invoke({"messages": [{"role": "user", "content": spec["user"]}]},
                     config={"callbacks": [handler], "recursion_limit": 40})
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    seen, e = [], exc
    while e is not None and e not in seen and len(seen) < 10:
        seen.append(e)
        e = e.__cause__ or e.__context__
    failures = [f for f in map(model_failure, seen) if f]
    if failures:
        truth.terminal_status = failures[0]
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("ModelRetryMiddleware re-ran the chat model after HTTP 429 (a new chat-model run)")
    label_runs(handler, agent_graphs, handoff_spans, truth)
    label_wrapper_spans = getattr(adapter, "label_wrapper_spans", None)
    if label_wrapper_spans is not None:  # spans of the instrumentation that are no LangChain run (its own wrappers)
        label_wrapper_spans(handler.runs, truth.kind_counts, truth, (ToolErrorMiddleware, ModelRetryMiddleware))


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
    return run_one(meta, adapter, run_agent, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
