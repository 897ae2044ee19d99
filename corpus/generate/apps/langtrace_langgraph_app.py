"""LangGraph's prebuilt ReAct agent (`langgraph-supervisor` for the handoff) with LangChain's `ChatOpenAI` against the
fake server, traced by Langtrace (`langtrace-python-sdk`): `langtrace.init(...)` with a custom OTLP/gRPC exporter.

    .venvs/langtrace-langgraph/bin/python -m apps.langtrace_langgraph_app --lib langtrace-langgraph --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/langgraph_app.py` (`run_langgraph`); only the
instrumentation differs.

How Langtrace traces LangGraph (read in langtrace-python-sdk 3.8.21: `langtrace.py`,
`instrumentation/{langchain_core,langgraph,openai}/`): no callback handler. `init` wraps (wrapt) every public method of
the public classes of a fixed list of langchain-core modules (chat models, language models, retrievers, prompts,
`runnables.base` and `passthrough`, output parsers; `stream`, `bind`, `get_name` ... excluded), LangGraph's
`StateGraph.add_node` / `add_edge` / `add_conditional_edges` / `set_entry_point` / `set_finish_point` (graph building,
not running), and the OpenAI client's `chat.completions.create`. The LangGraph wrappers are off here
(`disable_instrumentations={"only": ["langgraph"]}`): the `add_node` one reads a second positional argument and raises
IndexError on `add_node(graph)` (a compiled graph whose name is the node's, as langgraph-supervisor adds its agents),
which ends the handoff run before it starts; they record graph building only. Each wrapper opens a CLIENT span named
`Class.method` (the OpenAI one `openai.chat.completions.create`), the langchain-core ones made current, the OpenAI one
not. Attributes: `langtrace.*` (sdk, service name / type / version), `langchain.task.name`, `langchain.inputs` /
`langchain.outputs` / `langchain.metadata` (JSON of the call's arguments and result), some `gen_ai.request.*` /
`gen_ai.usage.*`; the OpenAI span carries `gen_ai.*` request / response attributes and the prompt and completion as
`gen_ai.content.prompt` / `gen_ai.content.completion` events. LangGraph's own runnables (Pregel, its node and tool
runnables) and langchain-core's tools are in no wrapped module: graphs, nodes and tool runs get no span. Nothing ties
the model turns of one run together: without a surrounding span each `RunnableSequence.invoke` (the agent node's
prompt | model) is a trace of its own, so the app calls `graph.invoke` inside Langtrace's own
`with_langtrace_root_span()` (what its documentation gives for one trace per run; `wrap_invoke`): a span named
`LangtraceRootSpan` with no attribute, scope `langtrace_python_sdk.utils.with_root_span`, ERROR with the exception
when the run raises.

Local only: `api_host` is the capture server (with the default host and no API key `init` returns before tracing;
with another host it adds a BatchSpanProcessor on the custom exporter and asks Langtrace's cloud for nothing), its
Sentry error reporting off (`LANGTRACE_ERROR_REPORTING=False`), and its release check (`check_if_sdk_is_outdated`, a
GET to api.github.com on every `init`) replaced by a no-op. An audit hook on `socket.connect` refuses anything but
loopback.

Ground truth: the run records of `run_langgraph`'s callback handler. A run's span is the Langtrace span current when
the run starts, when a wrapper opened it between the start of the parent run (or the root span) and the run's start:
a wrapper around the run's own `invoke`. Runs with none (graphs, nodes, tools, the handoff tool) are noted and not
labelled; their bodies are recorded with no span (tool executions then anchor on the proposing model call). The model
call of a request is Langtrace's OpenAI span open in the sending thread (a span processor keeps it from start to end).
The root span is no LangChain run: it is labelled a workflow step, the run's outermost
container (the first workflow, the budget's anchor when no agent has a span).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import run_one  # noqa: E402

from apps.langgraph_app import _hex, run_langgraph  # noqa: E402

LIBRARY = "langtrace-langgraph"
ROOT_SPAN_NAME = "LangtraceRootSpan"  # with_langtrace_root_span's default name


def _request_spans():
    from opentelemetry.sdk.trace import SpanProcessor

    class RequestSpans(SpanProcessor):
        """Langtrace's OpenAI span open in each thread (it is never made current)."""

        def __init__(self):
            self.open: dict = {}
            self.lock = threading.Lock()

        def on_start(self, span, parent_context=None):
            scope = getattr(span, "instrumentation_scope", None)
            if scope is not None and scope.name.startswith("langtrace_python_sdk.instrumentation.openai"):
                with self.lock:
                    self.open[threading.get_ident()] = span

        def on_end(self, span):
            with self.lock:
                for key, value in list(self.open.items()):
                    if value is span:
                        del self.open[key]

        def shutdown(self):
            pass

        def force_flush(self, timeout_millis=30000):
            return True

    return RequestSpans()


def _start_recorder(starts):
    from langchain_core.callbacks import BaseCallbackHandler
    from opentelemetry import trace

    class StartSpans(BaseCallbackHandler):
        """The OTel span current when each LangChain run starts (and its parent run)."""

        run_inline = True

        def _start(self, run_id, parent_run_id):
            starts[run_id] = (parent_run_id, trace.get_current_span())

        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):
            self._start(run_id, parent_run_id)

        def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None, **kw):
            self._start(run_id, parent_run_id)

        def on_llm_start(self, serialized, prompts, *, run_id, parent_run_id=None, **kw):
            self._start(run_id, parent_run_id)

        def on_tool_start(self, serialized, input_str, *, run_id, parent_run_id=None, **kw):
            self._start(run_id, parent_run_id)

        def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kw):
            self._start(run_id, parent_run_id)

    return StartSpans()


class LangtraceLangGraphAdapter:
    library = LIBRARY
    convention = "langtrace"
    content = True

    def setup(self, endpoint):
        self.guard = ConnectGuard()
        os.environ["LANGTRACE_ERROR_REPORTING"] = "False"  # its Sentry client stays uninitialised
        import langtrace_python_sdk.langtrace as langtrace
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        langtrace.check_if_sdk_is_outdated = lambda: None  # a GET to api.github.com on every init
        langtrace.init(custom_remote_exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True),
                       api_host=f"http://{endpoint}", service_name=f"corpus-{self.library}",
                       disable_instrumentations={"only": ["langgraph"]})
        self.provider = trace.get_tracer_provider()
        if not hasattr(self.provider, "add_span_processor"):
            raise RuntimeError("langtrace.init set no SDK TracerProvider")
        self.requests = _request_spans()
        self.provider.add_span_processor(self.requests)
        self.starts: dict = {}  # run id -> (parent run id, span current at its start)
        self.root = None

    def callbacks(self):
        return [_start_recorder(self.starts)]

    def wrap_invoke(self, invoke):
        """The agent's run inside Langtrace's root span (`with_langtrace_root_span()`, its default name): without
        it every model turn is a trace of its own. The span records the run's exception, as for any decorated
        function."""
        from langtrace_python_sdk import with_langtrace_root_span
        from opentelemetry import trace

        adapter = self

        @with_langtrace_root_span()
        def run():
            adapter.root = trace.get_current_span()
            return invoke()

        return run

    def request_span(self):
        with self.requests.lock:
            return self.requests.open.get(threading.get_ident())

    def span_of(self, run_id):
        """The span a Langtrace wrapper opened for the run; INVALID_SPAN when none (bodies then record no span)."""
        from opentelemetry import trace

        entry = self.starts.get(run_id)
        if entry is None:
            return trace.INVALID_SPAN
        parent_id, current = entry
        parent = self.starts.get(parent_id)
        before = parent[1] if parent is not None else self.root
        if not current.get_span_context().is_valid or before is None or current is before:
            return trace.INVALID_SPAN
        return current

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_langtrace_langgraph(adapter, scenario, base_url, truth):
    try:
        run_langgraph(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    # The root span opened around the run is the run's outermost container: a workflow step, the first.
    root = _hex(adapter.root)
    if root is not None:
        truth.workflows.insert(0, {"name": ROOT_SPAN_NAME, "span_id": root})
        truth.kind_counts["workflow_step"] = truth.kind_counts.get("workflow_step", 0) + 1
        truth.trace_id = format(adapter.root.get_span_context().trace_id, "032x")
    # The handoff tool has no span here: no handoff node, and no tool execution for it (run_langgraph counts both
    # from the tool records, span or not, when there is a handoff).
    if "handoff" in truth.kind_counts:
        spanned = [h for h in truth.handoffs if h["from_span"]]
        truth.handoffs = spanned
        truth.kind_counts["handoff"] = len(spanned)
        truth.kind_counts["tool_execution"] = sum(1 for t in truth.tools if t["span_id"]) - len(spanned)


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = LangtraceLangGraphAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
    }
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_langtrace_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
