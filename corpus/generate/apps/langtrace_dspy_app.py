"""DSPy's `ReAct` module with tools (the agents of `apps/openinference_dspy_app.py`, `run_dspy`), traced by Langtrace
(`langtrace-python-sdk`) at its default: every instrumentation it finds installed.

    .venvs/langtrace-dspy/bin/python -m apps.langtrace_dspy_app --lib langtrace-dspy --scenario handoff --out DIR

Asked for: Langtrace's LlamaIndex instrumentation on the LlamaIndex agents of `openinference-llama-index`. Its
`LlamaindexInstrumentation` (3.8.21) wraps the `query` / `retrieve` / `extract` / `load_data` / `chat` / `achat` methods
of the classes in `llama_index.core.query_engine`, `retrievers`, `extractors`, `readers` and `chat_engine`, and nothing
of an agent, a workflow step or a tool: run on `FunctionAgent` (with the `llama-index` umbrella distribution installed,
which `init` asks for before turning it on), it made no span; the only spans were its OpenAI wrapper's, one trace per
request. So the fallback named for it: Langtrace on the DSPy app of `openinference-dspy` (NOTES-frameworks-cu.md).

Set up as `apps/langtrace_app.py` (Frameworks CK): `langtrace.init(custom_remote_exporter=OTLPSpanExporter(<capture
server>), api_host=<capture server>)`, no instrumentation disabled, its Sentry reporting off, its release check a no-op,
a connect guard that refuses anything but loopback. What `init` does here (read in 3.8.21 and observed): its DSPy
instrumentation wraps `BootstrapFewShot.compile`, `Predict.forward`, `ChainOfThought.forward`, then fails on
`dspy.predict.chain_of_thought_with_hint` (gone from DSPy 3) and is reported skipped, the wrappers made before the failure
left in place: `ReAct.forward` is never wrapped. Each wrapped `forward` is a current CLIENT span named `<Class>.forward`
with `dspy.signature.name`, `dspy.signature.args` (`str()` of the keyword arguments: the question and the ReAct
trajectory text) and `dspy.signature.result` (the Prediction as JSON). Its LiteLLM instrumentation fails the same way
after wrapping `completion`; DSPy 3.4.1's native engine (lm15) sends without LiteLLM or the `openai` client, so no
client span either. The app's own unit of work is one `@with_langtrace_root_span("support_workflow")` span around the
run (Langtrace's documented way, as in `langtrace-openai`): without it every ReAct turn would be a trace of its own.

Ground truth, never read back from the trace: model calls from the request header (`_mark_requests`: the span current
at send time, Langtrace's `Predict.forward` span; DSPy's retry and its JSONAdapter fallback re-send inside one Predict:
`model_calls_by_span`); module runs from a DSPy callback whose `on_module_start` names the module that the next
Langtrace span started in its thread runs (a span processor pairs them by the span's name `<Class>.forward`): a ReAct run
an agent invocation (none has a span: no agent and no handoff labelled), a Predict run whose span sent a request a model
call, another run with a span (ChainOfThought) a workflow step; tool bodies (ToolRunner) ran under the workflow span
(checked): no tool span. The run's exception (from the callback's `on_module_end`) is raised through the workflow span,
as an application whose run failed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.openinference_dspy_app import _mark_requests, run_dspy  # noqa: E402

LIBRARY = "langtrace-dspy"
WORKFLOW = "support_workflow"
DSPY_SCOPE = "langtrace_python_sdk.instrumentation.dspy"  # the scope of Langtrace's DSPy wrappers' spans


def _hex(span) -> str:
    return format(span.get_span_context().span_id, "016x")


def _module_runs():
    """A DSPy callback recording each module run, and a span processor giving it the span Langtrace opened for it."""
    from dspy.utils.callback import BaseCallback
    from opentelemetry.sdk.trace import SpanProcessor

    class ModuleRuns(BaseCallback, SpanProcessor):
        def __init__(self):
            self.runs: list[dict] = []  # in start order: call id, class, instance id, span (None: no span)
            self.pending = threading.local()
            self.exc: BaseException | None = None

        def on_module_start(self, call_id, instance, inputs):
            run = {"call_id": call_id, "cls": type(instance).__name__, "instance": id(instance), "span": None}
            self.runs.append(run)
            self.pending.run = run  # the forward span Langtrace opens next in this thread, if it wraps this forward

        def on_module_end(self, call_id, outputs, exception=None):
            run = next((r for r in self.runs if r["call_id"] == call_id), None)
            if exception is not None and run is not None and run["cls"] == "ReAct":
                self.exc = exception  # the outermost ReAct ends last: the run's exception

        def on_start(self, span, parent_context=None):
            scope = getattr(span, "instrumentation_scope", None)
            run = getattr(self.pending, "run", None)
            if scope is None or not scope.name.startswith(DSPY_SCOPE) or run is None:
                return
            self.pending.run = None
            if span.name == f"{run['cls']}.forward":
                run["span"] = _hex(span)

    return ModuleRuns()


class LangtraceDSPyAdapter:
    """`langtrace.init` at its default (every instrumentation it finds), exporting to the capture server."""

    library = LIBRARY
    convention = "langtrace"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()
        # DSPy's response cache (disk and memory) would answer a repeated request without sending it.
        self.cache_dir = tempfile.mkdtemp(prefix="corpus-dspy-")
        os.environ.update(DSPY_CACHEDIR=self.cache_dir, LANGTRACE_ERROR_REPORTING="False")
        import dspy
        import langtrace_python_sdk.langtrace as langtrace
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        langtrace.check_if_sdk_is_outdated = lambda: None  # a GET to api.github.com on every init
        langtrace.init(custom_remote_exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True),
                       api_host=f"http://{endpoint}", service_name=f"corpus-{self.library}")
        self.provider = trace.get_tracer_provider()
        if not hasattr(self.provider, "add_span_processor"):
            raise RuntimeError("langtrace.init set no SDK TracerProvider")
        self.runs = _module_runs()
        self.provider.add_span_processor(self.runs)
        dspy.configure(callbacks=[*dspy.settings.callbacks, self.runs])  # run_dspy's recorder is added after it
        self.instrumented = self.wrapped_methods()
        _mark_requests()

    @staticmethod
    def wrapped_methods() -> list[str]:
        """The methods of this app's libraries that carry a wrapper after `init` (what its default turned on)."""
        import litellm
        from dspy.predict.chain_of_thought import ChainOfThought
        from dspy.predict.predict import Predict
        from dspy.predict.react import ReAct

        owners = {"dspy Predict.forward": Predict.forward, "dspy ChainOfThought.forward": ChainOfThought.forward,
                  "dspy ReAct.forward": ReAct.forward, "litellm completion": litellm.completion}
        found = [name for name, fn in owners.items() if hasattr(fn, "__wrapped__")]
        if "dspy Predict.forward" not in found:
            raise RuntimeError("langtrace did not instrument DSPy (Predict.forward not wrapped)")
        return found

    @staticmethod
    def adapter_layer(others: set[str], hook: str) -> None:
        """Langtrace opens no span for DSPy's adapter: no layer of `other` spans."""

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        shutil.rmtree(self.cache_dir, ignore_errors=True)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def relabel(truth: Truth, adapter: LangtraceDSPyAdapter, workflow_span: str) -> None:
    """Agents, workflow steps, tools and the handoff from the module runs' own spans (run_dspy's recorder reads the span
    current in `on_module_start`, which under Langtrace is the caller's: its wrappers open their span in `forward`)."""
    requesting = {r.get("otel_span") for r in truth.server_log}
    truth.agents.clear()
    del truth.workflows[1:]  # the workflow span itself stays
    spanless = set()
    for run in adapter.runs.runs:
        if run["span"] is None:
            spanless.add(run["cls"])
        elif run["cls"] == "ReAct":
            truth.record_agent("ReAct", span_id=run["span"])
        elif run["span"] not in requesting:
            truth.record_workflow(run["cls"], span_id=run["span"])
    if spanless:
        truth.notes.append(f"module runs with no span of their own: {sorted(spanless)}")
    for t in truth.tools:
        if t["span_id"] != workflow_span:
            raise RuntimeError(f"tool {t['name']} ran under span {t['span_id']}, not the workflow span's")
        truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under the workflow span: no span")
        t["span_id"] = None
    if truth.handoffs and not truth.agents:
        truth.notes.append("the triage agent called the billing agent (a ReAct program as its tool): no agent or tool "
                           "has a span, no handoff is labelled")
        truth.handoffs.clear()


def run_langtrace_dspy(adapter: LangtraceDSPyAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from langtrace_python_sdk import with_langtrace_root_span

    spans: list[str] = []

    def workflow() -> None:
        spans.append(truth.record_workflow(WORKFLOW))
        run_dspy(adapter, scenario, base_url, truth)
        if adapter.runs.exc is not None:
            raise adapter.runs.exc  # through the workflow span, as in an application whose run raised

    try:
        try:
            with_langtrace_root_span(WORKFLOW)(workflow)()
        except Exception as exc:  # noqa: BLE001 - recorded by run_dspy (terminal status) already
            if exc is not adapter.runs.exc:
                raise
        relabel(truth, adapter, spans[0])
    finally:  # run_dspy notes the connections
        truth.notes.append(f"wrapped after langtrace.init: {adapter.instrumented}")


def main() -> int:
    return app_main(LangtraceDSPyAdapter(), run_langtrace_dspy, handoff_family="dspy_react",
                    family="dspy_react+retry_once",
                    extra_meta={
                        # DSPy retries inside LM.__call__, and falls back to its JSONAdapter inside the same Predict:
                        # the requests of one Predict share its span, which shows nothing of a failed attempt.
                        "model_calls_by_span": True,
                        "retry_evidence": False,
                        # The Predict span records only the Prediction it returned: an answer DSPy re-asked for
                        # inside it (its JSONAdapter fallback after an answer the ChatAdapter could not parse, such as
                        # a tool name outside the offered ones) is in no span, nor what it proposed.
                        "model_output_per_span": "last",
                        # The Predict span records the Prediction's fields, no usage.
                        "usage_recorded": False,
                        # DSPy's ReAct proposes in text fields: no tool-call id exists anywhere in the run.
                        "tool_call_ids_recorded": False,
                    })


if __name__ == "__main__":
    sys.exit(main())
