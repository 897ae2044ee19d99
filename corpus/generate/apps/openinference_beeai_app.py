"""IBM's BeeAI Framework (`beeai-framework`): its `RequirementAgent` with the corpus tools on an `OpenAIChatModel`
(LiteLLM's OpenAI provider) pointed at the fake server, traced by OpenInference's BeeAI instrumentation
(`openinference-instrumentation-beeai`).

    .venvs/openinference-beeai/bin/python -m apps.openinference_beeai_app --lib openinference-beeai \
        --scenario handoff --out DIR

How BeeAI runs (read in beeai-framework 0.1.85: `agents/requirement/{agent,_runner}.py`, `backend/chat.py`,
`adapters/litellm/chat.py`, `tools/handoff.py`, `context.py`): every agent, chat-model and tool call is a `RunContext`
(a run id, the parent's run id, an emitter). The RequirementAgent (BeeAI's agent since 0.1.73; the ToolCallingAgent is
deprecated in its favour) asks the model with the tools plus its own `final_answer` tool and ends a run only through a
`final_answer(response)` call (`final_answer_as_tool`, the default), so the scripts' text answers are sent as that call
(`scenarios.final_answer_tool`, argument `response`). It retries a failed model request inside the chat model's run
(`max_retries_per_step`, here 1): a 429, a 500 and a timeout are each sent twice from one `ChatModel.run`, so the 5xx and
timeout scripts repeat the failing step (`+retry_once`). The model requests go through `litellm.acompletion` (its
OpenAI provider, `max_retries` 0). Handoff: BeeAI's `HandoffTool(billing_agent)`, a tool named after the target agent
(`task` argument) that runs the billing agent on the conversation so far; the triage agent then answers.

How the instrumentation traces (read in openinference-instrumentation-beeai 0.1.30): one matcher on BeeAI's root
emitter (`*.*`, nested) keeps a processor per run id and **builds every span only when the outermost run finishes**
(`_build_tree`: `start_as_current_span` with the recorded start time, events, children, status, the recorded end time),
so no span is current while a request is sent or a tool body runs. Agents are AGENT spans named after the agent,
chat-model runs LLM spans, tools TOOL spans named after the tool; events the processors do not read become child spans
of zero length (named after the event: `start`, `success`, `error`, `retry`, `final_answer` ...).

Ground truth, never read back from the exported trace:
- runs → spans: the app wraps the instrumentor's own `ProcessorLocator.locate` (each new run's processor, with the
  BeeAI instance it traces) and `_build_tree_for_span` (the OTel span opened for each processor's span wrapper); a run id
  is translated to the span of its processor after the run;
- model calls: a wrapper of the `acompletion` that BeeAI's LiteLLM adapter calls adds the run id of the chat model's run
  current at that moment (`RunContext.get()`) as the header the fake server logs;
- tool executions: the tool bodies (ToolRunner), each with the run id of its tool run; BeeAI's own `final_answer` and
  the `HandoffTool` recorded when their run starts (their bodies are the framework's); the call id from the server log
  (FIFO per name and arguments);
- agents: every run of a `BaseAgent` (its name); the handoff from the triage agent's span to the billing agent's span.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# LiteLLM fetches its model price map at import unless told to use the copy it ships.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, plain_functions  # noqa: E402
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "openinference-beeai"
HEADER = "x-corpus-otel-span"


class OpenInferenceBeeAIAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        self.guard = ConnectGuard()
        from openinference.instrumentation.beeai import BeeAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.instrumentor = BeeAIInstrumentor()
        self.instrumentor.instrument(tracer_provider=self.provider)
        self.runs: dict[str, object] = {}       # run id -> processor (the instrumentor's, at the run's start)
        self.started: list[tuple[str, object]] = []  # (run id, BeeAI instance) in start order
        self.span_of: dict[int, str] = {}       # id(span wrapper) -> OTel span id
        self.trace_id: str | None = None
        _hook_instrumentor(self)
        _mark_requests()

    def span_for_run(self, run_id: str | None) -> str | None:
        processor = self.runs.get(run_id or "")
        return self.span_of.get(id(processor.span)) if processor is not None else None

    def model_span_for(self, r: dict) -> str | None:
        return self.span_for_run(r.get("otel_span"))

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def _hook_instrumentor(adapter: OpenInferenceBeeAIAdapter) -> None:
    from openinference.instrumentation.beeai import BeeAIInstrumentor
    from openinference.instrumentation.beeai.processors.locator import ProcessorLocator

    locate = ProcessorLocator.locate

    def recording_locate(data, event):
        processor = locate(data, event)
        adapter.runs[event.trace.run_id] = processor
        adapter.started.append((event.trace.run_id, event.creator.instance, data))
        return processor

    ProcessorLocator.locate = staticmethod(recording_locate)
    build = BeeAIInstrumentor._build_tree_for_span

    def recording_build(self, node):
        context_manager = build(self, node)

        class Recorded:
            def __enter__(inner):
                span = context_manager.__enter__()
                ctx = span.get_span_context()
                adapter.span_of[id(node)] = format(ctx.span_id, "016x")
                adapter.trace_id = adapter.trace_id or format(ctx.trace_id, "032x")
                return span

            def __exit__(inner, *exc):
                return context_manager.__exit__(*exc)

        return Recorded()

    BeeAIInstrumentor._build_tree_for_span = recording_build


def _mark_requests() -> None:
    """BeeAI's LiteLLM adapter sends every request through `acompletion`: the chat model's run id goes along."""
    import beeai_framework.adapters.litellm.chat as litellm_chat
    from beeai_framework.context import RunContext

    send = litellm_chat.acompletion

    async def acompletion(**kwargs):
        try:
            run_id = RunContext.get().run_id
        except Exception:  # noqa: BLE001 - outside a run: nothing to mark
            run_id = None
        if run_id:
            kwargs["extra_headers"] = {**(kwargs.get("extra_headers") or {}), HEADER: run_id}
        return await send(**kwargs)

    litellm_chat.acompletion = acompletion


def terminal_status(truth: Truth, runner: ToolRunner, exc: BaseException | None) -> None:
    """How the run ended, from the exception BeeAI raised (its ChatModelError wraps LiteLLM's error classes)."""
    if exc is None:
        truth.terminal_status = "policy_violation" if runner.denied else "success"
        return
    truth.error = repr(exc)[:2000]
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in chain and len(chain) < 10:
        chain.append(e)
        e = e.__cause__ or e.__context__
    names = {type(x).__name__ for x in chain}
    text = " ".join(str(x) for x in chain)
    if names & {"Timeout", "APITimeoutError", "TimeoutError", "ReadTimeout"} or "timed out" in text.lower():
        truth.terminal_status = "infra_timeout"
    elif "RateLimitError" in names:
        truth.terminal_status = "rate_limited"
    else:
        truth.terminal_status = "error"


def run_beeai(adapter: OpenInferenceBeeAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import asyncio

    from beeai_framework.adapters.openai import OpenAIChatModel
    from beeai_framework.agents import BaseAgent
    from beeai_framework.agents.requirement import RequirementAgent
    from beeai_framework.tools import Tool, tool
    from beeai_framework.tools.handoff import HandoffTool

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    fns = plain_functions(runner)
    body_runs: list[tuple[int, str]] = []  # (index in truth.tools, tool run id) for tool bodies

    def traced(fn):
        def body(**kwargs):
            from beeai_framework.context import RunContext

            index = len(truth.tools)
            try:
                return fn(**kwargs)
            finally:
                if len(truth.tools) > index:
                    body_runs.append((index, RunContext.get().run_id))

        body.__name__, body.__doc__ = fn.__name__, fn.__doc__
        body.__annotations__ = fn.__annotations__
        import inspect

        body.__signature__ = inspect.signature(fn)
        return tool(body)

    tools = {name: traced(fn) for name, fn in fns.items()}
    llm = OpenAIChatModel(MODEL, api_key="sk-corpus-fake", base_url=base_url, timeout=CLIENT_TIMEOUT_S,
                          temperature=0.2)
    llm.allow_parallel_tool_calls = True  # off by default: a turn with three calls would fail the run

    def make_agent(name, instructions, agent_tools, description):
        return RequirementAgent(llm=llm, tools=agent_tools, name=name, description=description,
                                instructions=instructions, tool_call_checker=False)

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", [])) | {"final_answer"}
    if scenario == "handoff":
        billing = make_agent("billing_agent", SPECIALIST_PROMPT, [tools[n] for n in spec["specialist_tools"]],
                             "The billing specialist: refunds and invoices.")
        start = make_agent("triage_agent", SYSTEM_PROMPT, [tools[n] for n in spec["tools"]] + [HandoffTool(billing)],
                           "Customer support triage.")
        truth.offered_tools.add("billing_agent")
    else:
        start = make_agent("support_agent", SYSTEM_PROMPT, [tools[n] for n in spec["tools"]], "Customer support.")

    exc: BaseException | None = None
    try:
        async def go():
            return await start.run(spec["user"], max_retries_per_step=1, total_max_retries=10, max_iterations=10)

        asyncio.run(go())
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    terminal_status(truth, runner, exc)

    # Tool bodies: translate each recorded execution to its tool run's span.
    for index, run_id in body_runs:
        truth.tools[index]["span_id"] = adapter.span_for_run(run_id)
    # Framework-owned tools and agents, in the order their runs started.
    tool_entries = []
    for run_id, instance, data in adapter.started:
        span = adapter.span_for_run(run_id)
        if isinstance(instance, BaseAgent):
            truth.record_agent(instance.meta.name, span_id=span, trace_id=adapter.trace_id)
        elif isinstance(instance, Tool) and (instance.name == "final_answer" or isinstance(instance, HandoffTool)):
            args = data.input if isinstance(data.input, dict) else json.loads(json.dumps(data.input, default=str))
            args = args.get("input", args) if isinstance(args, dict) else args  # the run's (input, options)
            if hasattr(args, "model_dump"):
                args = args.model_dump()
            tool_entries.append((instance.name, args, span))
    for name, args, span in tool_entries:
        runner.record_other(name, args)
        truth.tools[-1]["span_id"] = span
    truth.trace_id = adapter.trace_id
    # Every span the instrumentation built for an emitter event of a run (`span.child(event name)`: `final_answer` under
    # an agent, `error` under a failed chat-model or tool run, `retry` ...) and not for a run itself: zero-length, of
    # its run's kind, no node of a labelled kind.
    run_spans = {adapter.span_of.get(id(p.span)) for p in adapter.runs.values()}
    truth.kind_counts["other"] = sum(1 for s in adapter.span_of.values() if s not in run_spans)
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("BeeAI's own retry (max_retries_per_step=1) re-sent the request after HTTP 429 inside the "
                           "same ChatModel run")
    truth.agents.sort(key=lambda a: 0 if a["name"] != "billing_agent" else 1)
    if scenario == "handoff":
        spans = {a["name"]: a["span_id"] for a in truth.agents}
        if "billing_agent" in spans:
            truth.handoffs.append({"from_span": spans.get("triage_agent"), "to_span": spans["billing_agent"]})


def main() -> int:
    return app_main(OpenInferenceBeeAIAdapter(), run_beeai, handoff_family="final_answer_tool:response",
                    family="final_answer_tool:response+retry_once",
                    extra_meta={
                        # BeeAI retries inside ChatModel.run: a failed attempt and its retry share one span.
                        "model_calls_by_span": True,
                        "retry_evidence": False,
                        # The chat model's span records the output of its last answer only: an answer BeeAI rejected
                        # (a call to a tool it does not offer) and asked again for inside the same run is in no span.
                        "model_output_per_span": "last",
                        # ... and the usage of that last answer only (hallucinated_tool: two answers, one span).
                        "usage_recorded_per_span": "last",
                    })


if __name__ == "__main__":
    sys.exit(main())
