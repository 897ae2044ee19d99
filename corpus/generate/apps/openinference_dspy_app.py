"""DSPy's `ReAct` module with tools, on `dspy.LM("openai/gpt-4o-mini", api_base=<fake server>)`, traced by OpenInference's
DSPy instrumentation (`openinference-instrumentation-dspy`).

    .venvs/openinference-dspy/bin/python -m apps.openinference_dspy_app --lib openinference-dspy --scenario handoff \
        --out DIR

How DSPy calls the model (read in dspy 3.4.1: `clients/lm.py`, `clients/backend_selection.py`, `clients/execution.py`,
`clients/engines/`): `dspy.LM(engine="auto")` sends a chat model named `openai/...` whose client settings are only
`api_key` / `api_base` / `timeout` to its native engine, the vendored `lm15` (`dspy/_vendor/lm15`, its own HTTP/1.1
transport on sockets); LiteLLM is only the compatibility engine (other client settings, `engine="litellm"`), and the
`openai` client is not used at all. So neither OpenInference's LiteLLM nor its OpenAI instrumentation would see a
request here: the model-call spans are the DSPy instrumentation's own `LM.__call__` spans (kind LLM), and only that
instrumentation is on. DSPy retries a request itself inside `LM.__call__` (`num_retries`, 429 / 5xx / timeouts /
transport errors, with the server's `retry-after` hint): `num_retries=1` here, one retry, so a retried request shares
the span of the call (`model_calls_by_span`), and 5xx / timeout scripts repeat the failing step (`+retry_once`).

How the instrumentation traces (read in openinference-instrumentation-dspy 0.1.48): wrapt wrappers, no callback.
`LM.__call__` / `acall` → an LLM span (model name and provider from the LM, `llm.invocation_parameters`, input messages
role + content only, `input.value` the call's arguments as JSON, output messages only where a completion is a string,
`output.value` the completions; no token counts); `Module.__call__` → a CHAIN span `<Module class>.forward` (ReAct,
ChainOfThought, Predict ...); `Predict.forward` and its subclasses' `forward` → a CHAIN span `Predict(<signature>).forward`
inside the module span of the same Predict; `Adapter.__call__` → a CHAIN span `<Adapter class>.__call__` (formats,
calls the LM, parses); `Tool.__call__` / `acall` → a TOOL span `<tool name>.__call__` (`input.value`
`{"kwargs": {...}}`, `output.value`); `Retrieve` / `ColBERTv2` (unused). Every wrapper sets OK itself; an exception
makes the span ERROR with an `exception` event (the SDK's default) and goes on up.

DSPy's ReAct asks the model for text fields, not tool calls: `next_thought`, `next_tool_name` (a `Literal` of the tool
names), `next_tool_args` (JSON), one tool per turn; it runs the tool (a raising tool becomes an "Execution error in ..."
observation), appends thought / tool / arguments / observation to a `trajectory` text that the next request carries,
and stops when the model picks its own `finish` tool; a ChainOfThought (`extract`) then asks for `reasoning` and the
signature's outputs. An answer the ChatAdapter cannot parse (a tool name outside the Literal) is asked once more
through DSPy's JSONAdapter (`response_format`), inside the same Predict. The scripts say the same in DSPy's terms
(`scenarios.dspy_react`): the fake server renders each answer as ChatAdapter `[[ ## field ## ]]` sections or, when the
request sets `response_format`, as JSON; one tool per turn (parallel_tools: three consecutive turns, no pair proposed
together); each text answer is a `finish` turn plus the extract answer. Handoff: the billing agent is a second ReAct
program, called by the triage ReAct as a tool `billing_agent(task)` (DSPy's way to compose agents; as smolagents'
managed agent and Haystack's AgentTool).

Ground truth, never read back from the exported trace:
- model calls: a wrapper of lm15's transport `stream` (the app's, not the library's) adds the span current when each
  HTTP request is sent (the instrumentation's `LM.__call__` span) as a header that the fake server logs; what the server
  answered is logged with it, the calls a text answer expresses included (ids the server gives them, never sent: DSPy
  has no tool-call ids, `tool_call_ids_recorded: false`); the results a request carries are read from what it received
  (the trajectory's tool name / arguments / observation sections, matched in order to the same agent's proposals);
- agents and workflow steps: a DSPy callback (`dspy.configure(callbacks=[...])`) whose `on_module_start` runs inside the
  instrumentation's module span: a ReAct module run is an agent invocation (DSPy's ReAct is its agent: "You are an
  Agent" opens its instructions), every other module run (ChainOfThought, Predict) a workflow step; the adapter spans
  (`on_adapter_format_start`) and the `Predict(...).forward` span around each (its parent) are no node of a labelled
  kind (`other`: a layer of one model call, and the Predict run recorded a second time);
- tool executions: the tool bodies (ToolRunner, inside the TOOL span), ReAct's own `finish` tool replaced by a
  recording one that returns the same text; the call id from the server log (FIFO per name and arguments).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import CLIENT_TIMEOUT_S, MODEL, ToolRunner, canonical_args, plain_functions  # noqa: E402
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.scenarios import SCENARIOS, SPECIALIST_PROMPT, SYSTEM_PROMPT  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "openinference-dspy"
HEADER = "x-corpus-otel-span"
_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]\n")


class OpenInferenceDSPyAdapter:
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        self.guard = ConnectGuard()
        # DSPy's response cache (disk and memory) would answer a repeated request without sending it.
        self.cache_dir = tempfile.mkdtemp(prefix="corpus-dspy-")
        os.environ["DSPY_CACHEDIR"] = self.cache_dir
        from openinference.instrumentation.dspy import DSPyInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        DSPyInstrumentor().instrument(tracer_provider=self.provider)
        _mark_requests()

    def shutdown(self):
        import shutil

        self.provider.force_flush()
        self.provider.shutdown()
        shutil.rmtree(self.cache_dir, ignore_errors=True)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def _mark_requests() -> None:
    """lm15's transport sends every native request: the span current at send time goes along as a header."""
    from dspy._vendor.lm15.transports._sync import StdlibTransport

    send = StdlibTransport.stream

    def stream(self, request):
        _, span_id = current_ids()
        if span_id:
            request.headers.append((HEADER, span_id))
        return send(self, request)

    StdlibTransport.stream = stream


def _fields(text: str) -> dict[str, str]:
    """The `[[ ## field ## ]]` sections of a ChatAdapter message."""
    parts = _FIELD.split(text)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _trajectory_calls(values: dict[str, str]) -> list[tuple[str, str]]:
    """(tool name, canonical arguments) of each step of a ReAct trajectory the request carries, in order."""
    calls = []
    step = 0
    while f"tool_name_{step}" in values:
        if f"observation_{step}" in values:
            try:
                args = canonical_args(json.loads(values.get(f"tool_args_{step}") or "{}"))
            except ValueError:
                args = values.get(f"tool_args_{step}") or ""
            calls.append((values[f"tool_name_{step}"], args))
        step += 1
    return calls


def consumed_results(server_log: list[dict]) -> None:
    """Which proposals' results each request carried: its trajectory's steps, matched in order to the proposals of
    earlier requests of the same agent run (the same `question` field: a ReAct run's turns and its extract step all
    carry it), by tool name and arguments."""
    by_agent: dict[str, list[dict]] = {}
    for r in server_log:
        values = _fields("\n".join((r.get("input_texts") or [""])[1:]))
        earlier = by_agent.setdefault(values.get("question", ""), [])
        carried: list[str] = []
        claimed: set[str] = set()
        for name, args in _trajectory_calls(values):
            for p in earlier:
                if p["id"] not in claimed and p["name"] == name and canonical_args(p["arguments"]) == args:
                    claimed.add(p["id"])
                    carried.append(p["id"])
                    break
        r["tool_results_in_input"] = carried
        if r.get("status") == 200 and r.get("outcome") == "ok":
            earlier.extend(r.get("proposed") or [])


def terminal_status(truth: Truth, runner: ToolRunner, exc: BaseException | None) -> None:
    """How the run ended, from the exception DSPy raised (its LM error classes, lm15's transport timeouts)."""
    from dspy._vendor.lm15.transports import _exceptions as transport
    from dspy.utils.exceptions import LMRateLimitError, LMTimeoutError

    if exc is None:
        truth.terminal_status = "policy_violation" if runner.denied else "success"
        return
    truth.error = repr(exc)[:2000]
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in chain and len(chain) < 10:
        chain.append(e)
        e = e.__cause__ or e.__context__
    timeouts = (LMTimeoutError, TimeoutError, transport.ReadTimeout, transport.ConnectTimeout, transport.WriteTimeout)
    if any(isinstance(e, timeouts) for e in chain) or "timed out" in str(exc):
        truth.terminal_status = "infra_timeout"
    elif any(isinstance(e, LMRateLimitError) for e in chain):
        truth.terminal_status = "rate_limited"
    else:
        truth.terminal_status = "error"


def adapter_layer(others: set[str], hook: str) -> None:
    """The `<Adapter>.__call__` span an adapter's format runs in, and the `Predict(...).forward` span around it."""
    from opentelemetry import trace

    if hook != "format":
        return
    span = trace.get_current_span()
    _, span_id = current_ids()
    parent = getattr(span, "parent", None)
    if span_id:
        others.add(span_id)
    if parent is not None:  # the Predict(...).forward span the adapter runs in
        others.add(format(parent.span_id, "016x"))


def _recorder(truth: Truth, names: dict[int, str], others: set[str], layer=adapter_layer):
    """``layer(others, hook)`` adds the spans of the adapter's layer, from inside its format / parse callbacks (the
    instrumentation's spans there differ)."""
    import dspy
    from dspy.utils.callback import BaseCallback

    class Recorder(BaseCallback):
        """Runs inside the instrumentation's span of each module run / adapter call."""

        def on_module_start(self, call_id, instance, inputs):
            if isinstance(instance, dspy.ReAct):
                truth.record_agent(names.get(id(instance), type(instance).__name__))
            else:
                truth.record_workflow(type(instance).__name__)

        def on_adapter_format_start(self, call_id, instance, inputs):
            layer(others, "format")

        def on_adapter_parse_start(self, call_id, instance, inputs):
            layer(others, "parse")

    return Recorder()


def run_dspy(adapter: OpenInferenceDSPyAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import dspy

    spec = SCENARIOS[scenario]
    runner = ToolRunner(truth, truth.server_log)
    fns = plain_functions(runner)
    names: dict[int, str] = {}
    others: set[str] = set()
    lm = dspy.LM(f"openai/{MODEL}", api_base=base_url, api_key="sk-corpus-fake", cache=False, num_retries=1,
                 timeout=CLIENT_TIMEOUT_S, temperature=0.2)
    # after any callback an instrumentation installed (MLflow's autolog is one), so the recorder runs inside its spans
    recorder = _recorder(truth, names, others, getattr(adapter, "adapter_layer", adapter_layer))
    dspy.configure(lm=lm, callbacks=[*dspy.settings.callbacks, recorder])
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)

    def react(name: str, instructions: str, tools: list) -> dspy.ReAct:
        program = dspy.ReAct(dspy.Signature("question -> answer", instructions), tools=tools, max_iters=10)

        def finish() -> str:  # ReAct's own finish tool, recording itself (same name, same text)
            runner.record_other("finish", {})
            return "Completed."

        program.tools["finish"].func = finish
        names[id(program)] = name
        return program

    truth.offered_tools = set(spec["tools"]) | set(spec.get("specialist_tools", [])) | {"finish"}
    if scenario == "handoff":
        billing = react("billing_agent", SPECIALIST_PROMPT, [fns[n] for n in spec["specialist_tools"]])

        def billing_agent(task: str) -> str:
            """The billing specialist: refunds and invoices.

            Args:
                task: what the billing specialist should do
            """
            runner.record_other("billing_agent", {"task": task})
            return billing(question=task).answer

        start = react("triage_agent", SYSTEM_PROMPT, [fns[n] for n in spec["tools"]] + [billing_agent])
        truth.offered_tools.add("billing_agent")
    else:
        start = react("support_agent", SYSTEM_PROMPT, [fns[n] for n in spec["tools"]])

    exc: BaseException | None = None
    try:
        start(question=spec["user"])
    except Exception as e:  # noqa: BLE001 - how the run ended is the ground truth we record
        exc = e
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    terminal_status(truth, runner, exc)
    consumed_results(truth.server_log)
    for r in truth.server_log:
        r.pop("input_texts", None)
    if any(r.get("status") == 429 for r in truth.server_log):
        truth.notes.append("DSPy's own retry (num_retries=1) re-sent the request after HTTP 429 inside the same "
                           "LM.__call__")
    truth.kind_counts["other"] = len(others)
    # agents in the order they started: the outermost (triage/support) first
    truth.agents.sort(key=lambda a: 0 if a["name"] != "billing_agent" else 1)
    if scenario == "handoff":
        spans = {a["name"]: a["span_id"] for a in truth.agents}
        if "billing_agent" in spans:
            truth.handoffs.append({"from_span": spans.get("triage_agent"), "to_span": spans["billing_agent"]})


def main() -> int:
    return app_main(OpenInferenceDSPyAdapter(), run_dspy, handoff_family="dspy_react", family="dspy_react+retry_once",
                    extra_meta={
                        # DSPy retries inside LM.__call__: a failed attempt and its retry share one span, and the
                        # span (OK after a retried 429) shows nothing of the failed attempt.
                        "model_calls_by_span": True,
                        "retry_evidence": False,
                        # The LM span records completions, not usage (no llm.token_count.*).
                        "usage_recorded": False,
                        # DSPy's ReAct proposes in text fields: no tool-call id exists anywhere in the run.
                        "tool_call_ids_recorded": False,
                    })


if __name__ == "__main__":
    sys.exit(main())
