"""LangGraph's prebuilt ReAct agent (`langgraph.prebuilt.create_react_agent`; `langgraph-supervisor` for the handoff)
with LangChain's `ChatOpenAI` against the fake server, traced by OpenInference's LangChain instrumentation.

    .venvs/langgraph/bin/python -m apps.langgraph_app --lib openinference-langgraph --scenario handoff --out DIR

OpenInference opens one span per LangChain run (callback handler) and never makes it the current OTel span, so
ground truth comes from LangChain's own callbacks: a handler passed in the run config records every run (id, parent,
name, run type, LangGraph metadata, the tool-call id LangChain hands to `on_tool_start`) and reads the span
OpenInference opened for it from the instrumentor (`LangChainInstrumentor().get_span(run_id)`). The HTTP request hook
marks each request with the span of the chat-model run that is open when it is sent (model turns are sequential);
tool bodies find their own run through LangChain's run context and record themselves under its span. Node kinds come
from what each run is (a compiled agent graph, a chat model, a tool, any other runnable); nothing is read back from
the exported trace.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Annotated

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    terminal_status_for,
)
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402
from langchain_core.tools import InjectedToolCallId  # noqa: E402  (module level: @tool resolves annotations)
from langgraph.prebuilt import InjectedState  # noqa: E402

from apps.langchain_tools import corpus_tools  # noqa: E402

LIBRARY = "openinference-langgraph"


def _hex(otel_span):
    if otel_span is None:
        return None
    ctx = otel_span.get_span_context()
    return format(ctx.span_id, "016x") if ctx.is_valid else None


class LangGraphAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        from openinference.instrumentation.langchain import LangChainInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.instrumentor = LangChainInstrumentor()
        self.instrumentor.instrument(tracer_provider=self.provider)

    def span_of(self, run_id):
        """The OTel span the instrumentation opened for a LangChain run (None when it has none, or no longer)."""
        from openinference.instrumentation.langchain import LangChainInstrumentor

        return LangChainInstrumentor().get_span(run_id)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def _current_run_id():
    """The LangChain run whose body is executing (a tool body runs with its run's child config set)."""
    from langchain_core.callbacks import BaseCallbackManager
    from langchain_core.runnables.config import var_child_runnable_config

    config = var_child_runnable_config.get()
    if not isinstance(config, dict):
        return None
    for v in config.values():
        if isinstance(v, BaseCallbackManager) and v.parent_run_id:
            return v.parent_run_id
    return None


def tool_body(handler, span_of, runner, truth: Truth):
    """A tool body for :func:`apps.langchain_tools.corpus_tools`: the corpus tool run under the tool run's span (made
    current only here, so that the ToolRunner records that span), with the tool-call id LangChain handed to the run's
    callbacks."""
    from opentelemetry import trace

    def body(name, args):
        run_id = _current_run_id()
        call_id = handler.tool_call_ids.get(run_id)
        span = span_of(run_id) if run_id else None
        if span is None:
            truth.notes.append(f"tool {name}: no span for its run")
            return runner.run(name, args, call_id=call_id)
        with trace.use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            return runner.run(name, args, call_id=call_id)

    return body


def _make_truth_handler(_span_of):
    from langchain_core.callbacks import BaseCallbackHandler

    class TruthCallbacks(BaseCallbackHandler):
        """Records every LangChain run and the instrumentation's span of each (read when the run ends or fails: this
        handler is called before the instrumentation's, whose span exists from the run's start to after its end)."""

        run_inline = True

        def __init__(self):
            self.runs: dict = {}  # run id -> record, in start order
            self.open_models: list = []
            self.tool_call_ids: dict = {}
            self.lock = threading.Lock()

        def _start(self, run_id, parent_run_id, run_type, name, metadata, **extra):
            from opentelemetry import trace

            # "current": the span current when the run started (a wrapper around a graph or node function that
            # an instrumentation made current, where it opened one).
            with self.lock:
                self.runs[run_id] = {"run_id": run_id, "parent": parent_run_id, "type": run_type, "name": name,
                                     "metadata": dict(metadata or {}), "otel": None, "ended": False,
                                     "current": _hex(trace.get_current_span()), **extra}
            # The instrumentation's span exists from its handler's start callback to its end callback; which of the two
            # handlers LangChain calls first differs between callback managers, so the span is looked up at the
            # run's start, at its children's starts and at its end.
            self._resolve(run_id)
            if parent_run_id is not None:
                self._resolve(parent_run_id)

        def _resolve(self, run_id):
            rec = self.runs.get(run_id)
            if rec is None or rec["otel"] is not None:
                return
            span = _span_of(run_id)
            if span is not None:
                rec["otel"] = _hex(span)
                rec["trace"] = format(span.get_span_context().trace_id, "032x")

        def _end(self, run_id, error=None):
            rec = self.runs.get(run_id)
            if rec is None:
                return
            self._resolve(run_id)
            rec["ended"] = True
            rec["error"] = type(error).__name__ if error is not None else None
            with self.lock:
                if run_id in self.open_models:
                    self.open_models.remove(run_id)

        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, metadata=None, name=None,
                           **kw):
            self._start(run_id, parent_run_id, "chain", name or (serialized or {}).get("name"), metadata)

        def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None, metadata=None,
                                name=None, **kw):
            self._start(run_id, parent_run_id, "llm", name or (serialized or {}).get("name"), metadata)
            with self.lock:
                self.open_models.append(run_id)

        def on_llm_start(self, serialized, prompts, *, run_id, parent_run_id=None, metadata=None, name=None, **kw):
            self.on_chat_model_start(serialized, None, run_id=run_id, parent_run_id=parent_run_id,
                                     metadata=metadata, name=name)

        def on_tool_start(self, serialized, input_str, *, run_id, parent_run_id=None, metadata=None, name=None,
                          tool_call_id=None, **kw):
            self._start(run_id, parent_run_id, "tool", name or (serialized or {}).get("name"), metadata,
                        tool_call_id=tool_call_id)
            with self.lock:
                self.tool_call_ids[run_id] = tool_call_id

        def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, metadata=None, name=None,
                               **kw):
            self._start(run_id, parent_run_id, "retriever", name or (serialized or {}).get("name"), metadata)

        def on_chain_end(self, outputs, *, run_id, **kw):
            self._end(run_id)

        def on_chain_error(self, error, *, run_id, **kw):
            self._end(run_id, error)

        def on_llm_end(self, response, *, run_id, **kw):
            self._end(run_id)

        def on_llm_error(self, error, *, run_id, **kw):
            self._end(run_id, error)

        def on_tool_end(self, output, *, run_id, **kw):
            self._end(run_id)

        def on_tool_error(self, error, *, run_id, **kw):
            self._end(run_id, error)

        def on_retriever_end(self, documents, *, run_id, **kw):
            self._end(run_id)

        def on_retriever_error(self, error, *, run_id, **kw):
            self._end(run_id, error)

        def model_span(self):
            with self.lock:
                open_models = list(self.open_models)
            if len(open_models) != 1:
                return None
            return _hex(_span_of(open_models[0]))

    return TruthCallbacks()


def run_langgraph(adapter: LangGraphAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import httpx
    import openai
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import ToolNode, create_react_agent
    from opentelemetry import trace

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    _span_of = adapter.span_of
    handler = _make_truth_handler(_span_of)

    # An instrumentation that wraps the OpenAI client's `create` with a span it does not make current (Langtrace) has
    # that span open in the sending thread: the adapter finds it (`request_span`), and it is the model call's.
    request_span = getattr(adapter, "request_span", None)

    def mark(request):
        span_id = _hex(request_span()) if request_span is not None else handler.model_span()
        if span_id:
            request.headers["x-corpus-otel-span"] = span_id
        else:
            truth.notes.append(f"no single open chat-model run when a request was sent ({request.url.path})")

    # No client retries (max_retries=0): one HTTP request per chat-model run. Keep-alive off as in the other
    # framework apps (ToolNode runs tools in worker threads; nothing here shares a pooled connection across them).
    http_client = openai.DefaultHttpxClient(event_hooks={"request": [mark]},
                                            limits=httpx.Limits(max_keepalive_connections=0))
    llm = ChatOpenAI(
        model=MODEL,
        base_url=base_url,
        api_key="sk-corpus-fake",
        temperature=0.2,
        max_retries=0,
        timeout=CLIENT_TIMEOUT_S,
        http_client=http_client,
    )

    registry = corpus_tools(tool_body(handler, _span_of, runner, truth))
    handoff_spans: list = []

    def model_for(tools):
        if scenario != "model_429":
            return llm
        # LangChain's own retry (RunnableRetry) on rate limits only, no wait: each attempt is a chat-model run of its
        # own. A dynamic model (callable) lets the prebuilt agent use the retrying runnable as its model.
        bound = llm.bind_tools(tools).with_retry(
            retry_if_exception_type=(openai.RateLimitError,), stop_after_attempt=2, wait_exponential_jitter=False
        )
        return lambda state, runtime: bound

    def agent(name, system, tools):
        # ToolNode(handle_tool_errors=True): a tool that raised goes back to the model as an error ToolMessage (the
        # default handler re-raises everything but argument errors, which would end the run).
        return create_react_agent(
            model_for(tools), ToolNode(tools, handle_tool_errors=True), prompt=system, name=name
        )

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    agent_graphs: dict = {}
    if scenario == "handoff":
        from langgraph_supervisor import create_handoff_tool, create_supervisor

        orig = create_handoff_tool(agent_name="billing_agent")

        @tool(orig.name, description=orig.description)
        def transfer(state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]):
            """langgraph-supervisor's handoff tool, recording itself first."""
            run_id = _current_run_id()
            span = _span_of(run_id) if run_id else None
            with trace.use_span(span, end_on_exit=False) if span is not None else _null():
                runner.record_other(orig.name, {}, call_id=tool_call_id)
            handoff_spans.append(_hex(span))
            return orig.func(state=state, tool_call_id=tool_call_id)

        transfer.metadata = dict(orig.metadata or {})
        truth.offered_tools.add(orig.name)
        billing = agent("billing_agent", SPECIALIST_PROMPT, [registry[n] for n in spec["specialist_tools"]])
        supervisor_tools = [transfer] + [registry[n] for n in spec["tools"]]
        graph = create_supervisor(
            [billing],
            model=llm,
            tools=supervisor_tools,
            prompt=SYSTEM_PROMPT,
            supervisor_name="triage_agent",
        ).compile()
        agent_graphs = {"billing_agent": billing, "triage_agent": _supervisor_agent(graph, "triage_agent")}
    else:
        graph = agent("support_agent", SYSTEM_PROMPT, [registry[n] for n in spec["tools"]])
        agent_graphs = {"support_agent": graph}

    # An instrumentation that is a LangChain callback handler passed in the run config (Langfuse's CallbackHandler)
    # comes from the adapter (`callbacks()`), after the truth handler; the others attach themselves.
    extra_callbacks = list(adapter.callbacks()) if hasattr(adapter, "callbacks") else []

    def invoke():
        graph.invoke({"messages": [{"role": "user", "content": spec["user"]}]},
                     config={"callbacks": [handler, *extra_callbacks], "recursion_limit": 40})

    # An instrumentation whose spans of one run share no trace unless the app opens one around it (Langtrace's
    # `with_langtrace_root_span`) wraps the call that runs the agent (`wrap_invoke`), as its users do.
    wrap_invoke = getattr(adapter, "wrap_invoke", None)
    if wrap_invoke is not None:
        invoke = wrap_invoke(invoke)
    exc = None
    try:
        invoke()
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("LangChain's RunnableRetry re-ran the chat model after HTTP 429 (a new chat-model run)")

    label_runs(handler, agent_graphs, handoff_spans, truth)
    label_wrapper_spans = getattr(adapter, "label_wrapper_spans", None)
    if label_wrapper_spans is not None:  # spans of the instrumentation that are no LangChain run (its own wrappers)
        label_wrapper_spans(handler.runs, truth.kind_counts, truth)


def label_runs(handler, agent_graphs: dict, handoff_spans: list, truth: Truth) -> None:
    """Node kinds and agents from LangChain's own run records. An agent invocation is the run of a compiled agent graph:
    the run named after the agent whose children are that graph's node runs (the supervisor graph also wraps each agent
    in node runs of the same name); any other chain run is a workflow step. A handoff tool (langgraph-supervisor's
    transfer, or an app's tool returning a Command to the parent graph) does nothing but hand the run over: its
    execution is the handoff node, as the Agents SDK's transfer and ADK's transfer_to_agent are; the handoff's target is
    the billing agent's graph run that follows it."""
    node_names = {name: set(g.nodes) - {"__start__"} for name, g in agent_graphs.items()}
    graph_runs = set()
    for rec in handler.runs.values():
        parent = handler.runs.get(rec["parent"])
        if parent is not None and parent["type"] == "chain" and rec["name"] in node_names.get(parent["name"], ()) \
                and rec["metadata"].get("langgraph_node") == rec["name"]:
            graph_runs.add(parent["run_id"])
    counts = {"agent_invocation": 0, "workflow_step": 0}
    other = []
    for rec in handler.runs.values():
        if rec["otel"] is None:
            truth.notes.append(f"run {rec['name']} ({rec['type']}) has no span")
            continue
        truth.trace_id = truth.trace_id or rec.get("trace")
        if rec["type"] == "chain" and rec["run_id"] in graph_runs:
            counts["agent_invocation"] += 1
            truth.agents.append({"name": rec["name"], "span_id": rec["otel"]})
        elif rec["type"] == "chain":
            counts["workflow_step"] += 1
            truth.workflows.append({"name": rec["name"], "span_id": rec["otel"]})
        elif rec["type"] not in ("llm", "tool"):  # model calls from the server log, tool executions from the tool bodies
            other.append(rec["name"])
    if other:
        counts["other"] = len(other)
        truth.notes.append("runs of no node kind: " + ", ".join(sorted(set(other))))
    if handoff_spans:
        counts["handoff"] = len(handoff_spans)
        counts["tool_execution"] = len(truth.tools) - len(handoff_spans)
    truth.kind_counts = counts
    truth.notes.append("runs: " + ", ".join(f"{r['name']}[{r['type']}]" for r in handler.runs.values()))
    billing_runs = [a["span_id"] for a in truth.agents if a["name"] == "billing_agent"]
    for h in handoff_spans:
        truth.handoffs.append({"from_span": h, "to_span": billing_runs[0] if billing_runs else None})


def _supervisor_agent(workflow, name):
    """The compiled agent graph langgraph-supervisor runs as the supervisor node `name`."""
    from langgraph.pregel import Pregel

    node = workflow.nodes[name]
    for candidate in (getattr(node, "bound", None), *getattr(node, "subgraphs", ())):
        if isinstance(candidate, Pregel):
            return candidate
    raise RuntimeError(f"supervisor node {name} runs no compiled graph")


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = LangGraphAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
    }
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
