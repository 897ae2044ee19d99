"""LlamaIndex agents (`FunctionAgent`; `AgentWorkflow` for the handoff) with the OpenAI LLM against the fake server,
traced by OpenInference's LlamaIndex instrumentation.

    .venvs/llamaindex/bin/python -m apps.llamaindex_app --lib openinference-llama-index --scenario handoff --out DIR

Ground truth: tool bodies (ToolRunner; the framework's `handoff` tool is wrapped so that it records itself), the
fake server's log (the OpenInference span current while the HTTP request is sent), and LlamaIndex's own
instrumentation dispatcher: a span handler registered after OpenInference's records every dispatcher span
(`<Class>.<method>-<uuid>` id, the instance's class, the OTel span OpenInference opened for it, read from its open-span
map at `new_span`). Node kinds are read from what each dispatcher span is (an LLM call, a tool call, an agent
workflow run, one of the workflow's steps); nothing is read back from the exported trace.

`run_agents` and `record_nodes` are shared with `apps/traceloop_llamaindex_app.py` (the same agents under
OpenLLMetry's LlamaIndex instrumentation, which also keeps an open-span map in a dispatcher span handler).
"""

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import (  # noqa: E402
    CLIENT_TIMEOUT_S,
    MODEL,
    ToolRunner,
    async_http_client,
    plain_functions,
    terminal_status_for,
)
from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402
from llama_index.core.workflow import Context  # noqa: E402  (module level: FunctionTool inspects annotations)

LIBRARY = "openinference-llama-index"


def _hex(otel_span):
    if otel_span is None:
        return None
    ctx = otel_span.get_span_context()
    return format(ctx.span_id, "016x") if ctx.is_valid else None


class LlamaIndexAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.instrumentor = LlamaIndexInstrumentor()
        self.instrumentor.instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def _make_truth_handler(instrumentation_handler, span_attr: str | None, span_map: str = "open_spans"):
    """A dispatcher span handler that maps each LlamaIndex span to the OTel span the instrumentation opened for it
    (the `span_attr` attribute of the entry in the instrumentation handler's open-span map `span_map`, or the entry
    itself when `span_attr` is None; None when it opened none).
    """
    from llama_index.core.instrumentation.span import SimpleSpan
    from llama_index.core.instrumentation.span_handlers import BaseSpanHandler

    class TruthSpanHandler(BaseSpanHandler[SimpleSpan]):
        records: list = []

        @classmethod
        def class_name(cls) -> str:
            return "CorpusTruthSpanHandler"

        def new_span(self, id_, bound_args, instance=None, parent_span_id=None, tags=None, **kwargs):
            entry = (getattr(instrumentation_handler, span_map, None) or {}).get(id_)
            otel = entry if span_attr is None else getattr(entry, span_attr, None)
            self.records.append(
                {"id": id_, "method": id_.split("-")[0], "instance": instance, "otel": _hex(otel), "otel_obj": otel}
            )
            return SimpleSpan(id_=id_, parent_id=parent_span_id, tags=tags or {})

        def prepare_to_exit_span(self, id_, bound_args, instance=None, result=None, **kwargs):
            return None

        def prepare_to_drop_span(self, id_, bound_args, instance=None, err=None, **kwargs):
            return None

    return TruthSpanHandler()


def _kind(rec, requesting_spans):
    """Node kind of a dispatcher span, from what the framework was doing (the bound instance or the step's class,
    the method) and whether the span sent a model request (the fake server's log)."""
    from llama_index.core.agent.workflow import AgentWorkflow, BaseWorkflowAgent, FunctionAgent, ReActAgent
    from llama_index.core.llms import LLM
    from llama_index.core.tools import BaseTool
    from workflows import Workflow

    inst = rec["instance"]
    cls_name, _, method = rec["method"].rpartition(".")
    cls = (
        type(inst)
        if inst is not None
        else {c.__name__: c for c in (BaseWorkflowAgent, FunctionAgent, ReActAgent, AgentWorkflow, Workflow)}.get(
            cls_name
        )
    )
    if isinstance(inst, LLM):
        # LLM methods that sent no HTTP request (e.g. `_prepare_chat_with_tools`) are no model calls
        return "model_call" if rec["otel"] in requesting_spans else "other"
    if isinstance(inst, BaseTool):
        return "tool_execution"
    if cls is not None and issubclass(cls, (BaseWorkflowAgent, AgentWorkflow)) and method == "run":
        return "agent_invocation"
    if cls is not None and issubclass(cls, Workflow):
        return "workflow_step"
    return "other"


@dataclass
class AgentRun:
    """What one run of the agents left for the labels besides the Truth: dispatcher span records in dispatch order and
    the spans the handoff tool ran in."""

    runner: ToolRunner
    records: list = field(default_factory=list)
    handoff_spans: list = field(default_factory=list)
    exc: BaseException | None = None  # what the run raised, if it did


def run_agents(
    scenario: str,
    base_url: str,
    truth: Truth,
    handler_module: str | None,
    span_attr: str | None,
    span_map: str = "open_spans",
) -> AgentRun:
    """Runs the scenario's agents (a `FunctionAgent`, or an `AgentWorkflow` for the handoff) and records the terminal
    status. `handler_module` names the module of the instrumentation's span handler on the root dispatcher,
    `span_map` its map from dispatcher span id to open span, `span_attr` the attribute of that map's entries that
    holds the OTel span (None: the entry is the OTel span)."""
    import asyncio

    import openai
    from llama_index.core.agent.workflow import AgentWorkflow as FrameworkAgentWorkflow
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.tools import FunctionTool
    from llama_index.llms.openai import OpenAI

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    root = get_dispatcher()
    # No handler module: the instrumentation adds no dispatcher span handler (it wraps methods), so no dispatcher span
    # maps to a span of its own.
    instrumentation_handler = (
        next(h for h in root.span_handlers if type(h).__module__.startswith(handler_module)) if handler_module else None
    )
    handler = _make_truth_handler(instrumentation_handler, span_attr, span_map)
    root.add_span_handler(handler)

    # LlamaIndex's own retry (tenacity around the request, inside the `achat` span): max_retries=2 = two attempts
    # on 429 / 5xx / timeouts / connection errors. The injected client does not retry (max_retries=0), so one
    # attempt is one HTTP request.
    aclient = openai.AsyncOpenAI(
        base_url=base_url,
        api_key="sk-corpus-fake",
        max_retries=0,
        timeout=CLIENT_TIMEOUT_S,
        http_client=async_http_client(),
    )
    llm = OpenAI(
        model=MODEL,
        api_base=base_url,
        api_key="sk-corpus-fake",
        temperature=0.2,
        max_retries=2,
        timeout=CLIENT_TIMEOUT_S,
        async_openai_client=aclient,
    )
    tools = {name: FunctionTool.from_defaults(fn=fn) for name, fn in plain_functions(runner).items()}
    handoff_spans: list = []

    class AgentWorkflow(FrameworkAgentWorkflow):  # same class name: the run span is named after the class
        """AgentWorkflow whose handoff tool records ground truth, then runs LlamaIndex's own handoff."""

        def _get_handoff_tool(self, current_agent):
            from llama_index.core.agent.workflow.multi_agent_workflow import handoff as framework_handoff

            t = super()._get_handoff_tool(current_agent)
            if t is None:
                return None

            async def handoff(ctx: Context, to_agent: str, reason: str) -> str:
                """Handoff control of that chat to the given agent."""
                runner.record_other("handoff", {"to_agent": to_agent, "reason": reason})
                handoff_spans.append(current_ids()[1])
                return await framework_handoff(ctx, to_agent, reason)

            return FunctionTool.from_defaults(async_fn=handoff, description=t.metadata.description, return_direct=True)

    def agent(name, system, tool_names, **kw):
        return FunctionAgent(
            name=name,
            description=f"{name} of the corpus support app",
            system_prompt=system,
            tools=[tools[n] for n in tool_names],
            llm=llm,
            streaming=False,
            **kw,
        )

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    if scenario == "handoff":
        truth.offered_tools.add("handoff")
        workflow = AgentWorkflow(
            agents=[
                agent("triage_agent", SYSTEM_PROMPT, spec["tools"], can_handoff_to=["billing_agent"]),
                agent("billing_agent", SPECIALIST_PROMPT, spec["specialist_tools"]),
            ],
            root_agent="triage_agent",
            timeout=60,
        )
    else:
        workflow = agent("support_agent", SYSTEM_PROMPT, spec["tools"], timeout=60)

    async def main():
        return await workflow.run(user_msg=spec["user"])

    exc = None
    try:
        asyncio.run(main())
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    terminal_status_for(truth, runner, exc)
    return AgentRun(runner=runner, records=handler.records, handoff_spans=handoff_spans, exc=exc)


def record_nodes(
    truth: Truth, run: AgentRun, model_calls_from_dispatcher: bool = True, step_input_recorded: bool = True
) -> None:
    """Node counts, agents and handoffs from the dispatcher's own span records. With `model_calls_from_dispatcher`
    false the instrumentation opens no span for the LLM's dispatcher spans (the model calls are another
    instrumentation's spans, one per HTTP request), so the count is left to the server log. With
    `step_input_recorded` false the instrumentation records no input on a `run_agent_step` span (a property of the
    library, declared by its app): nothing in the trace then orders the receiving step after the handoff, and the
    handoff label says so (`in_trace: false`)."""
    counts = {
        k: 0 for k in ("agent_invocation", "model_call", "tool_execution", "workflow_step", "handoff", "guardrail")
    }
    other = []
    unended = set()
    requesting = {r.get("otel_span") for r in truth.server_log}
    for rec in run.records:
        if rec["otel"] is None:
            continue  # the instrumentation opened no span for it
        if getattr(rec["otel_obj"], "end_time", 0) is None:
            truth.notes.append(f"span for {rec['method']} ({rec['otel']}) was never ended, hence never exported")
            unended.add(rec["otel"])
            continue
        kind = _kind(rec, requesting)
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "other":
            other.append(rec["method"])
            continue
        truth.trace_id = truth.trace_id or format(rec["otel_obj"].get_span_context().trace_id, "032x")
        if kind == "agent_invocation":
            truth.agents.append(
                {"name": getattr(rec["instance"], "name", type(rec["instance"]).__name__), "span_id": rec["otel"]}
            )
    # A tool that raised inside a span the instrumentation never ends (OpenLLMetry leaves a dropped span open) ran
    # with no span in the trace: its findings are anchored on the proposing model span (`truth.py`).
    for t in truth.tools:
        if t["span_id"] in unended:
            truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran in span {t['span_id']}, never exported: no span")
            t["span_id"] = None
    if not model_calls_from_dispatcher:
        counts.pop("model_call")
    truth.kind_counts = counts
    if other:
        truth.notes.append("dispatcher spans of no node kind: " + ", ".join(sorted(set(other))))
    truth.notes.append("dispatcher spans: " + ", ".join(r["method"] for r in run.records))
    # The handoff's target has no span of its own: the billing agent's turn is the first `run_agent_step` the
    # workflow dispatches after the handoff tool ran (dispatcher order).
    for h in run.handoff_spans:
        idx = next((i for i, r in enumerate(run.records) if r["otel"] == h), None)
        step = (
            next((r for r in run.records[idx + 1 :] if r["method"].endswith(".run_agent_step")), None)
            if idx is not None
            else None
        )
        truth.handoffs.append({"from_span": h, "to_span": step["otel"] if step else None}
                              | ({} if step_input_recorded else {"in_trace": False}))


def run_llamaindex(adapter: LlamaIndexAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run = run_agents(scenario, base_url, truth, handler_module="openinference", span_attr="_otel_span")
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("LlamaIndex's retry re-sent the request after HTTP 429 inside the same achat span")
    record_nodes(truth, run)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = LlamaIndexAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
        # a request LlamaIndex retried is inside the same `OpenAI.achat` span, which shows only the last attempt
        "retry_evidence": False,
    }
    family = ("agent_workflow" if a.scenario == "handoff" else "raw") + "+retry_once"
    return run_one(meta, adapter, run_llamaindex, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
