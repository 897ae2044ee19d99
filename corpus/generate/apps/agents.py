"""OpenAI Agents SDK (`openai-agents`, switched to Chat Completions unless the adapter's `model_api` is "responses"; run
with `Runner.run`, or `Runner.run_streamed` when the adapter's `stream` is set) against the fake server, one
instrumentation per run. Run inside that library's venv:

    .venvs/<venv>/bin/python -m apps.agents --lib openinference-openai-agents --scenario handoff --out DIR

Ground truth: a TracingProcessor registered *after* the instrumentor's own records every SDK span (type, name,
error) together with the OTel span the instrumentor created for it (read from the instrumentor's in-flight span
map at on_span_start time; Logfire keeps no map: it wraps the SDK's trace provider, and its wrapper of the SDK span
is `self` in a calling frame). HTTP requests carry the SDK's current span id and the current OTel span id (OpenLIT
opens no span for the SDK's generation span: its model-call span is the OpenAI client instrumentation's `chat`, current
when the request is sent); tool bodies record the ToolContext's tool_call_id with the SDK's current span id. MLflow
Tracing (`mlflow.openai.autolog()`) keeps its own TracerProvider and context: its spans are read from its tracing
processor's map, the span of an HTTP request from the W3C `traceparent` header MLflow's OpenAI client patch puts on the
request, and each `AgentRunner.run` span (MLflow's own, no SDK span) by a processor that runs ahead of MLflow's when the
SDK's task span starts. Laminar (`lmnr`, `Laminar.initialize`) registers its own Agents SDK tracing processor, which keeps
each SDK trace's root span and in-flight spans in a per-trace map (`_traces[trace_id].root_span / .spans[span_id]`), read
the same way. Nothing is read back from the exported trace.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.tool_context import ToolContext  # noqa: E402  (module level: function_tool resolves annotations)
from corpusgen import tools as T  # noqa: E402
from corpusgen.harness import init_logfire_local, otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

MODEL = "gpt-4o-mini"

# SDK span type (or custom span name) -> label node kind, per instrumentation (what each one emits for it).
KIND_MAPS = {
    # OpenInference: trace root is an AGENT span; agent->AGENT, custom task/turn->CHAIN, generation->LLM,
    # function->TOOL, handoff->TOOL "handoff to X" (a handoff node).
    "openinference-openai-agents": {"__root__": "agent_invocation", "agent": "agent_invocation",
                                    "generation": "model_call", "function": "tool_execution",
                                    "handoff": "handoff", "custom": "workflow_step", "task": "workflow_step", "turn": "workflow_step", "guardrail": "guardrail"},
    # OpenLLMetry: root "Agent Workflow" (traceloop.span.kind=workflow); custom task/turn spans are not exported.
    "traceloop-openai-agents": {"__root__": "workflow_step", "agent": "agent_invocation",
                                "generation": "model_call", "function": "tool_execution", "handoff": "handoff",
                                "guardrail": "guardrail"},
    # OTel contrib v2: root "Agent workflow" is an invoke_agent span; task/turn spans become `unknown` operations.
    "openai-agents-v2": {"__root__": "agent_invocation", "agent": "agent_invocation", "generation": "model_call",
                         "function": "tool_execution", "handoff": "handoff", "custom": "workflow_step", "task": "workflow_step", "turn": "workflow_step",
                         "guardrail": "guardrail"},
    # OpenLIT: root "invoke_workflow Agent workflow"; agent, handoff, guardrail and custom spans all become
    # `invoke_agent <name>` spans (a handoff is named after its target); it opens NO span for the SDK's generation
    # span (it leaves model calls to its OpenAI client instrumentation, a `chat <model>` span per request), so model
    # calls are counted from the server log, one per HTTP request, like the raw loops.
    "openlit-openai-agents": {"__root__": "workflow_step", "agent": "agent_invocation",
                              "function": "tool_execution", "handoff": "handoff", "custom": "workflow_step",
                              "task": "workflow_step", "turn": "workflow_step", "guardrail": "guardrail"},
    # Logfire: it wraps the SDK's trace provider and opens one logfire span per SDK trace ("OpenAI Agents trace:
    # Agent workflow", no GenAI operation: a workflow step) and per SDK span, the generation span included ("Chat
    # completion with 'gpt-4o-mini'"); task / turn spans are "Task: ..." / "Turn N for agent ...".
    "logfire-openai-agents": {"__root__": "workflow_step", "agent": "agent_invocation", "generation": "model_call",
                              "function": "tool_execution", "handoff": "handoff", "custom": "workflow_step",
                              "task": "workflow_step", "turn": "workflow_step", "guardrail": "guardrail"},
    # MLflow Tracing: its Agents SDK processor opens one MLflow span per SDK trace (`Agent workflow`, span type AGENT)
    # and per SDK span (agent -> AGENT, function -> TOOL, generation -> CHAT_MODEL `Generation`, guardrail ->
    # GUARDRAIL, every other type -> CHAIN: the task named `Agent workflow`, turns `Unknown`, the handoff `Handoff`);
    # its patch of AgentRunner.run adds an AGENT span `AgentRunner.run` per run (counted apart, `runner_spans`); its
    # OpenAI client patch a CHAT_MODEL `AsyncCompletions` span per create() call, the child of `Generation`: the model
    # call (one per HTTP request, named by the request's traceparent header). `Generation` is the SDK's record of the
    # same call around it: `other`.
    "mlflow-openai-agents": {"__root__": "agent_invocation", "agent": "agent_invocation", "generation": "other",
                             "function": "tool_execution", "handoff": "handoff", "custom": "workflow_step",
                             "task": "workflow_step", "turn": "workflow_step", "guardrail": "guardrail"},
    # Laminar: its Agents SDK processor opens one Laminar span per SDK trace (the root, named after the trace, `Agent
    # workflow`, lmnr.span.type DEFAULT: a workflow step) and one per SDK span: generation -> LLM (the model call; it
    # switches off its own OpenAI client instrumentation under every SDK span, so there is no second span per request),
    # function / handoff -> TOOL, agent / task / turn / custom -> DEFAULT.
    "laminar-openai-agents": {"__root__": "workflow_step", "agent": "agent_invocation", "generation": "model_call",
                              "function": "tool_execution", "handoff": "handoff", "custom": "workflow_step",
                              "task": "workflow_step", "turn": "workflow_step", "guardrail": "guardrail"},
}


def _hex(span) -> str | None:
    if span is None:
        return None
    ctx = span.get_span_context()
    return format(ctx.span_id, "016x") if ctx.is_valid else None


class TruthProcessor:
    """Registered after the instrumentor: maps SDK spans to the OTel spans the instrumentor created."""

    def __init__(self):
        self.sdk_spans: list[dict] = []
        self.by_sdk_id: dict[str, dict] = {}
        self.roots: list[dict] = []
        self.logfire = False  # set by the adapter: Logfire keeps no span map (see _logfire_otel_for)

    def _instrumentor_processors(self):
        from agents.tracing import get_trace_provider
        mp = getattr(get_trace_provider(), "_multi_processor", None)
        return [p for p in getattr(mp, "_processors", ()) if p is not self]

    def _otel_for(self, sdk_obj, key):
        if self.logfire:
            return self._logfire_otel_for(sdk_obj)
        for p in self._instrumentor_processors():
            traces = getattr(p, "_traces", None)
            if type(p).__name__ == "LaminarAgentsTraceProcessor" and isinstance(traces, dict):
                # Laminar: _traces[trace_id] -> _TraceState(root_span, spans[span_id] -> _SpanEntry(lmnr_span)); a
                # LaminarSpan wraps the OTel SDK span and answers get_span_context().
                state = traces.get(sdk_obj.trace_id)
                if state is None:
                    continue
                if key == "_root_spans":
                    return state.root_span
                entry = state.spans.get(sdk_obj.span_id)
                return entry.lmnr_span if entry is not None else None
            m = getattr(p, key, None)
            if not isinstance(m, dict):
                # MLflow: one map for traces (by trace id) and spans (by span id) of SpanWithToken(LiveSpan, token).
                m = getattr(p, "_span_id_to_mlflow_span", None)
            if isinstance(m, dict):
                for k in (sdk_obj.span_id if key == "_otel_spans" else sdk_obj.trace_id, sdk_obj):
                    try:
                        if k in m:
                            v = m[k]
                            if isinstance(v, tuple):  # OpenLIT keeps (otel_span, start_time, context, token) tuples.
                                return v[0]
                            if hasattr(v, "span") and hasattr(v.span, "_span"):  # MLflow's LiveSpan wraps the OTel span
                                return v.span._span
                            return v
                    except TypeError:
                        pass
        return None

    @staticmethod
    def _logfire_otel_for(sdk_obj):
        # Logfire wraps the SDK's trace provider instead of registering a processor: its LogfireSpanWrapper /
        # LogfireTraceWrapper starts its logfire span, then starts the wrapped SDK span / trace, which notifies the
        # processors. So the wrapper is `self` in a calling frame (no patching: a wrapper function of ours would show
        # up as the code.* location Logfire records on every span).
        frame = sys._getframe(1)
        while frame is not None:
            w = frame.f_locals.get("self")
            if hasattr(w, "span_helper") and getattr(w, "wrapped", None) is sdk_obj:
                return w.span_helper.span._span
            frame = frame.f_back
        return None

    def on_trace_start(self, trace):
        root = self._otel_for(trace, "_root_spans")
        self.roots.append({"name": trace.name, "otel": _hex(root),
                           "trace_id": format(root.get_span_context().trace_id, "032x") if root else None})

    def on_trace_end(self, trace):
        pass

    def on_span_start(self, span):
        data = span.span_data
        otel = self._otel_for(span, "_otel_spans")
        rec = {"sdk_id": span.span_id, "parent": span.parent_id, "type": data.type,
               "name": getattr(data, "name", None), "otel": _hex(otel),
               "trace_id": format(otel.get_span_context().trace_id, "032x") if otel else None}
        if data.type == "handoff":
            rec.update(from_agent=data.from_agent, to_agent=data.to_agent)
        self.sdk_spans.append(rec)
        self.by_sdk_id[span.span_id] = rec

    def on_span_end(self, span):
        rec = self.by_sdk_id.get(span.span_id)
        if rec is not None:
            rec["error"] = span.error
            if span.span_data.type == "handoff":
                rec.update(from_agent=span.span_data.from_agent, to_agent=span.span_data.to_agent)

    def shutdown(self):
        pass

    def force_flush(self):
        pass


class RunnerSpanProcessor:
    """MLflow only, registered AHEAD of MLflow's processor: when the SDK opens a run's task span, MLflow's current span
    is still the `AgentRunner.run` span its patch of AgentRunner.run opened (MLflow's own span, no SDK span)."""

    def __init__(self):
        self.runner_spans: list[dict] = []

    def on_trace_start(self, trace):
        pass

    def on_trace_end(self, trace):
        pass

    def on_span_start(self, span):
        if span.span_data.type != "task":
            return
        from mlflow.tracing.fluent import get_current_active_span
        live = get_current_active_span()
        otel = getattr(live, "_span", None)
        self.runner_spans.append({"name": getattr(live, "name", None), "otel": _hex(otel),
                                  "trace_id": format(otel.get_span_context().trace_id, "032x") if otel else None})

    def on_span_end(self, span):
        pass

    def shutdown(self):
        pass

    def force_flush(self):
        pass


class AgentsAdapter:
    def __init__(self, library: str):
        self.library = library
        self.convention = {"openinference-openai-agents": "openinference",
                           "traceloop-openai-agents": "openllmetry", "openai-agents-v2": "otel-genai",
                           "openlit-openai-agents": "otel-genai", "logfire-openai-agents": "logfire",
                           "mlflow-openai-agents": "mlflow", "laminar-openai-agents": "laminar"}[library]
        self.content = True
        self.truth_proc = TruthProcessor()
        self.runner_proc = RunnerSpanProcessor() if library == "mlflow-openai-agents" else None

    def setup(self, endpoint):
        from agents import add_trace_processor, set_trace_processors
        if self.library == "traceloop-openai-agents":
            os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                              TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
            from traceloop.sdk import Traceloop
            from traceloop.sdk.instruments import Instruments
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI
            Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                           exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                           telemetry_enabled=False, instruments={Instruments.OPENAI_AGENTS},
                           resource_attributes={"deployment.environment.name": "corpus"})
        elif self.library == "openlit-openai-agents":
            import json
            import tempfile

            import openlit
            provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI (openlit replaces them anyway)
            # openlit.init reuses the SDK TracerProvider set above (no exporter of its own). Without pricing_json it
            # downloads a price list at init: give it a local one with no prices (gen_ai.usage.cost = 0). Metrics and
            # its inference events (OTel log records, not span events) would go to console exporters without an
            # OTLP endpoint: off. Content capture is its default (on). Every other instrumentor it finds installed
            # (the OpenAI client, the Agents SDK, and the OTel HTTP client instrumentations it depends on) is on.
            self._pricing = Path(tempfile.mkdtemp()) / "pricing.json"
            self._pricing.write_text(json.dumps({"chat": {}, "embeddings": {}}))
            openlit.init(service_name=f"corpus-{self.library}", environment="corpus",
                         pricing_json=str(self._pricing), disable_metrics=True, disable_events=True)
        elif self.library == "logfire-openai-agents":
            import logfire
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI
            init_logfire_local(endpoint, f"corpus-{self.library}")  # the corpus exporter its only one
            # Wraps the SDK's trace provider: a logfire span per SDK trace and per SDK span, the generation span
            # included, so the model calls are spans without logfire.instrument_openai().
            logfire.instrument_openai_agents()
            self.truth_proc.logfire = True
        elif self.library == "mlflow-openai-agents":
            import tempfile
            # MLflow Tracing exports through its own TracerProvider (isolated from the global one, its default): with
            # OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set and no trace destination it adds only its OtelSpanProcessor (a
            # BatchSpanProcessor) with the gRPC OTLPSpanExporter (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, default grpc): no
            # tracking server. Tracking URI in a temporary folder (nothing is logged there); its usage telemetry off.
            # Attributes at their defaults (MLflow's own `mlflow.*` keys; MLFLOW_ENABLE_OTEL_GENAI_SEMCONV unset).
            self._tmp = Path(tempfile.mkdtemp(prefix="corpus-mlflow-"))
            os.environ.update(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"http://{endpoint}",
                              OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc", OTEL_SERVICE_NAME=f"corpus-{self.library}",
                              MLFLOW_TRACKING_URI=self._tmp.as_uri(), MLFLOW_DISABLE_TELEMETRY="true",
                              DO_NOT_TRACK="true")
            import mlflow.openai
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI (autolog clears them too)
            mlflow.openai.autolog()  # OpenAI client + AgentRunner.run patches, its Agents SDK tracing processor
            from agents.tracing import get_trace_provider
            mlflow_procs = list(get_trace_provider()._multi_processor._processors)
            set_trace_processors([self.runner_proc, *mlflow_procs])
        elif self.library == "laminar-openai-agents":
            # Laminar exports through its own TracerProvider (set as the global one) with its LaminarSpanProcessor (a
            # BatchSpanProcessor, max 64 spans a batch) and its OTLP/gRPC exporter (gzip, `authorization: Bearer <key>`)
            # to f"{base_url}:{grpc_port}": here the capture server (http:// -> insecure channel). The project API key
            # is a dummy: nothing checks it (no auth call; its HTTP client is built but used only by the browser
            # instrumentations, not installed, and the LMNR_DEBUG replay cache, off). Its log exporter points at the
            # same address (nothing logs). Every LMNR_* variable is cleared (LMNR_DEBUG, LMNR_SPAN_CONTEXT, ...).
            # service.name is init_tracing's `app_name` default, sys.argv[0] as read when lmnr is imported (the module
            # path of this app): set to the corpus service name before the import. Instruments at their default
            # (all it finds installed: its Agents SDK processor, its OpenAI client instrumentation, the threading
            # context patch); content capture at its default (on).
            for k in [k for k in os.environ if k.startswith("LMNR_")]:
                del os.environ[k]
            sys.argv[0] = f"corpus-{self.library}"
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI
            from lmnr import Laminar
            host, port = endpoint.rsplit(":", 1)
            Laminar.initialize(project_api_key="corpus-dummy-key", base_url=f"http://{host}", grpc_port=int(port),
                               http_port=int(port))
        else:
            provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI
            if self.convention == "openinference":  # openinference-openai-agents and its streamed run
                from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
                OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)
            else:
                os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
                from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor
                OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)
        add_trace_processor(self.truth_proc)

    def shutdown(self):
        if self.library == "logfire-openai-agents":
            import logfire
            logfire.force_flush()
            logfire.shutdown()
            return
        if self.library == "laminar-openai-agents":
            from lmnr import Laminar
            Laminar.flush()
            Laminar.shutdown()
            return
        from opentelemetry import trace
        provider = trace.get_tracer_provider()
        if self.library == "mlflow-openai-agents":
            from mlflow.tracing.provider import provider as mlflow_provider
            provider = mlflow_provider.get()  # MLflow's own (isolated) TracerProvider
        provider.force_flush()
        provider.shutdown()
        if self.library == "mlflow-openai-agents":
            import shutil
            shutil.rmtree(self._tmp, ignore_errors=True)

    def model_span_for(self, request_log_entry):
        if self.library == "mlflow-openai-agents":
            # The span of the create() call that sent the request: MLflow's client patch names it in the request's
            # W3C traceparent header (the hook copies its span id to x-corpus-otel-span).
            return request_log_entry.get("otel_span")
        if self.library == "openlit-openai-agents":
            # No OTel span for the SDK's generation span: the model call is the OpenAI client instrumentation's
            # span, current when the request is sent.
            return request_log_entry.get("otel_span")
        rec = self.truth_proc.by_sdk_id.get(request_log_entry.get("sdk_span") or "")
        return rec["otel"] if rec else None


def run_agents(adapter: AgentsAdapter, scenario: str, base_url: str, truth: Truth, toolbox=None) -> None:
    """One scenario. ``toolbox``: where the agents' tools come from when they are not the in-process function tools
    below: ``agent_kwargs(agent_name, tool_names)`` (the Agent's tool arguments), ``session()`` (an async context the
    run happens inside) and ``denied()`` (the tools its policy denied), e.g. an MCP server
    (apps/openinference_openai_agents_mcp_app.py)."""
    import openai
    from agents import (
        Agent,
        AgentsException,
        MaxTurnsExceeded,
        ModelSettings,
        Runner,
        function_tool,
        set_default_openai_api,
        set_default_openai_client,
    )
    from agents import trace as sdk_trace
    from agents.tracing import get_current_span
    from opentelemetry import trace as otel_trace

    spec = SCENARIOS[scenario]
    tp = adapter.truth_proc
    denied: list[str] = []

    stream = getattr(adapter, "stream", False)
    wire: list[tuple] = []  # (stream, stream_options) of each Chat Completions request the SDK sent

    async def hook(request):
        if stream and request.url.path.endswith("/chat/completions"):
            import json
            body = json.loads(request.content or b"{}")
            wire.append((bool(body.get("stream")), json.dumps(body.get("stream_options"))))
        sdk_span = get_current_span()
        if sdk_span is not None and getattr(sdk_span, "span_id", None):
            request.headers["x-corpus-sdk-span"] = sdk_span.span_id
        otel_ctx = otel_trace.get_current_span().get_span_context()
        if otel_ctx.is_valid:
            request.headers["x-corpus-otel-span"] = format(otel_ctx.span_id, "016x")
        if adapter.library == "mlflow-openai-agents":
            # MLflow's spans are in its own context, not OTel's; its OpenAI client patch sends the span of the create()
            # call as `traceparent` (00-<trace id>-<span id>-<flags>).
            parts = (request.headers.get("traceparent") or "").split("-")
            if len(parts) == 4:
                request.headers["x-corpus-otel-span"] = parts[2]

    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-corpus-fake", max_retries=0, timeout=1.0,
                                http_client=openai.DefaultAsyncHttpxClient(event_hooks={"request": [hook]}))
    set_default_openai_client(client, use_for_tracing=False)
    if getattr(adapter, "model_api", "chat_completions") == "chat_completions":
        set_default_openai_api("chat_completions")
    # else the SDK's default model API, the Responses API (apps/openinference_openai_agents_responses_app.py)

    def run_tool(ctx: ToolContext, name: str, args: dict) -> str:
        sdk_span = get_current_span()
        rec = tp.by_sdk_id.get(sdk_span.span_id) if sdk_span else None
        span_id = rec["otel"] if rec and rec["type"] == "function" else None
        if span_id is None:
            truth.notes.append(f"tool {name}: no OTel span found for the SDK function span")
        if T.is_forbidden(name):
            denied.append(name)
            truth.record_tool(ctx.tool_call_id, name, "denied", span_id=span_id, args=args)
            return T.denial(name)
        try:
            out = T.FUNCTIONS[name](**args)
        except T.ToolFailure:
            truth.record_tool(ctx.tool_call_id, name, "error", span_id=span_id, args=args)
            raise
        truth.record_tool(ctx.tool_call_id, name, "ok", span_id=span_id, args=args)
        return out

    def d(name):
        return dict(name_override=name, description_override=T.DESCRIPTIONS[name])

    @function_tool(**d("get_weather"))
    def get_weather(ctx: ToolContext, city: str) -> str:
        return run_tool(ctx, "get_weather", {"city": city})

    @function_tool(**d("lookup_order"))
    def lookup_order(ctx: ToolContext, order_id: str) -> str:
        return run_tool(ctx, "lookup_order", {"order_id": order_id})

    @function_tool(**d("update_record"))
    def update_record(ctx: ToolContext, record_id: str, field: str, value: str) -> str:
        return run_tool(ctx, "update_record", {"record_id": record_id, "field": field, "value": value})

    @function_tool(**d("delete_file"))
    def delete_file(ctx: ToolContext, path: str) -> str:
        return run_tool(ctx, "delete_file", {"path": path})

    @function_tool(**d("get_file_info"))
    def get_file_info(ctx: ToolContext, path: str) -> str:
        return run_tool(ctx, "get_file_info", {"path": path})

    @function_tool(**d("search_docs"))
    def search_docs(ctx: ToolContext, query: str) -> str:
        return run_tool(ctx, "search_docs", {"query": query})

    registry = {t.name: t for t in (get_weather, lookup_order, update_record, delete_file, get_file_info,
                                    search_docs)}
    settings = ModelSettings(temperature=0.2)

    def tools_of(agent_name: str, names) -> dict:
        if toolbox is not None:
            return toolbox.agent_kwargs(agent_name, list(names))
        return {"tools": [registry[n] for n in names]}

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        billing = Agent(name="billing_agent", instructions=SPECIALIST_PROMPT, model=MODEL, model_settings=settings,
                        **tools_of("billing_agent", spec["specialist_tools"]))
        start = Agent(name="triage_agent", instructions=SYSTEM_PROMPT, model=MODEL, model_settings=settings,
                      **tools_of("triage_agent", spec["tools"]), handoffs=[billing])
        truth.offered_tools.add("transfer_to_billing_agent")
    else:
        start = Agent(name="support_agent", instructions=SYSTEM_PROMPT, model=MODEL, model_settings=settings,
                      **tools_of("support_agent", spec["tools"]))

    async def run_app():
        if toolbox is None:
            return await run_traced()
        async with toolbox.session():
            return await run_traced()

    async def run_once():
        if not stream:
            return await Runner.run(start, spec["user"], max_turns=10)
        # A streamed run (apps/openinference_openai_agents_stream_app.py), its events consumed to the end as a chat UI
        # does; an exception the run raised comes out of stream_events() once the events before it are drained.
        result = Runner.run_streamed(start, spec["user"], max_turns=10)
        async for _event in result.stream_events():
            pass
        return result

    async def run_traced():
        # One explicit SDK trace per app run (what Runner.run would open itself), so that the app-level retry after
        # an HTTP 429 (a second Runner.run) lands in the same trace.
        with sdk_trace("Agent workflow"):
            try:
                return await run_once()
            except openai.RateLimitError:
                truth.notes.append("app retried the run once after HTTP 429")
                await asyncio.sleep(0.1)
                return await run_once()

    try:
        asyncio.run(run_app())
        if toolbox is not None:
            denied.extend(toolbox.denied())
        truth.terminal_status = "policy_violation" if denied else "success"
    except openai.APITimeoutError as exc:
        truth.terminal_status, truth.error = "infra_timeout", repr(exc)
    except openai.RateLimitError as exc:
        truth.terminal_status, truth.error = "rate_limited", repr(exc)
    except openai.APIStatusError as exc:
        truth.terminal_status, truth.error = "error", repr(exc)
    except MaxTurnsExceeded as exc:
        truth.terminal_status, truth.error = "max_turns", repr(exc)
    except AgentsException as exc:  # e.g. ModelBehaviorError for a tool the agent does not have
        truth.terminal_status, truth.error = "error", repr(exc)

    # ---- node kinds, agents, handoffs from the SDK's own span records --------------------------------------------
    kmap = getattr(adapter, "kind_map", None) or KIND_MAPS[adapter.library]
    counts = {k: 0 for k in ("agent_invocation", "model_call", "tool_execution", "workflow_step", "handoff",
                             "guardrail")}
    agents_rec = []
    for root in tp.roots:
        kind = kmap["__root__"]
        counts[kind] += 1
        truth.trace_id = truth.trace_id or root["trace_id"]
        if kind == "agent_invocation":
            agents_rec.append({"name": root["name"], "span_id": root["otel"]})
        else:
            truth.workflows.append({"name": root["name"], "span_id": root["otel"]})
    for rec in tp.sdk_spans:
        kind = kmap.get(rec["type"])
        if kind is None or rec["otel"] is None:
            continue  # the instrumentation emits no span for it
        counts[kind] = counts.get(kind, 0) + 1
        truth.trace_id = truth.trace_id or rec["trace_id"]
        if kind == "agent_invocation":
            agents_rec.append({"name": rec["name"], "span_id": rec["otel"]})
    if adapter.runner_proc is not None:
        # MLflow's AgentRunner.run spans (span type AGENT, one per Runner.run): agent invocations, after the root.
        runs = [{"name": r["name"], "span_id": r["otel"]} for r in adapter.runner_proc.runner_spans if r["otel"]]
        counts["agent_invocation"] += len(runs)
        at = len(tp.roots) if kmap["__root__"] == "agent_invocation" else 0
        agents_rec[at:at] = runs
    truth.agents = agents_rec
    if kmap.get("generation") != "model_call":
        del counts["model_call"]  # no span per SDK generation: one model call per HTTP request (the server log)
    truth.kind_counts = counts
    handoff_recs = [r for r in tp.sdk_spans if r["type"] == "handoff"]
    for h in handoff_recs:
        target = next((r for r in tp.sdk_spans if r["type"] == "agent" and r["name"] == h.get("to_agent")
                       and r["otel"]), None)
        truth.handoffs.append({"from_span": h["otel"], "to_span": target["otel"] if target else None})
    if handoff_recs:
        # The SDK executes the model's transfer_to_<agent> call as its handoff span (one handoff per run here).
        truth.flow_overrides["call_handoff_1"] = {"executed_by_span": handoff_recs[0]["otel"]}
    truth.notes.append("sdk spans: " + ", ".join(f"{r['type']}:{r['name']}" for r in tp.sdk_spans))
    if stream:
        truth.notes.append("chat completions requests (stream, stream_options): "
                           + ", ".join(sorted({f"{st}, {so}" for st, so in wire})))
        if not wire or any(not st for st, _ in wire):
            raise RuntimeError(f"expected every Chat Completions request streamed, the SDK sent {wire}")
        adapter.wire = wire  # checked against the label rules the app declares (usage_recorded)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=sorted(KIND_MAPS))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = AgentsAdapter(a.lib)
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    if a.lib == "traceloop-openai-agents":
        # Observed: with the Chat Completions API its `openai.response` spans carry only gen_ai.input.messages
        # (no output messages, no token usage, no response id), and a run that dies on an unknown tool leaves
        # every span OK with no trace of the tool name.
        meta.update(model_output_recorded=False, usage_recorded=False, unknown_tool_evidence=False)
    if a.lib == "openlit-openai-agents":
        # Observed (and in its OpenAI wrapper): a chat span gets gen_ai.input.messages only when a response arrives;
        # a request that failed (HTTP 429/500, timeout) records no input, so nothing shows what it consumed.
        meta.update(failed_request_input_recorded=False)
    return run_one(meta, adapter, run_agents, Path(a.out), family="agents")


if __name__ == "__main__":
    sys.exit(main())
