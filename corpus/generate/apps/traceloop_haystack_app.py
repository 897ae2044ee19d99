"""Haystack (`haystack-ai`) agents traced by OpenLLMetry's Haystack instrumentation (`opentelemetry-instrumentation-
haystack`) plus its OpenAI client instrumentation (`opentelemetry-instrumentation-openai`), the pair `Traceloop.init`
turns on when both are installed.

    .venvs/traceloop-haystack/bin/python -m apps.traceloop_haystack_app --lib traceloop-haystack --scenario handoff \
        --out DIR

The agents, tools, scripts and Haystack settings are those of `apps/haystack_app.py` (`run_agents`); only the
instrumentation differs, and the top Agent runs as the one component of a Haystack `Pipeline`. OpenLLMetry's Haystack
instrumentor wraps three methods: `Pipeline.run` (a `haystack_pipeline.workflow` span), `OpenAIGenerator.run` and
`OpenAIChatGenerator.run` (a `haystack.openai.chat` / `.completion` span); nothing else of Haystack, so an Agent and a
Tool have no span of their own, and an Agent run outside a Pipeline leaves every model call a trace of its own. With
Haystack 3, `instrument()` wraps none of the three (`instrument_haystack` says why and applies the package's wrappers
to the two targets that still exist). The
OpenAI instrumentation opens an `openai.chat` span for every request the generator's client sends, inside the
generator's span.

Ground truth, never read back from the exported trace:
- the pipeline run: the pipeline's `_run_component` (called by `Pipeline.run` inside the instrumentation's span for the
  Agent component), wrapped on the instance, records the span (a workflow step);
- model calls: the OpenAI client's httpx request hook sends the OTel span current at send time (the OpenAI
  instrumentation's `openai.chat` span) to the fake server, which logs it with what it answered; the generator's own
  span around it (one per `OpenAIChatGenerator.run`, counted by the app's chat generator) records the same call once
  more and is of no labelled kind (`other`);
- agent runs: each Agent's `before_run` hook runs under the span current at the Agent's start, the pipeline's (the
  top Agent) or, for the billing Agent run by Haystack's `AgentTool`, the same pipeline span the tool body runs under:
  no agent has a span, so none is labelled an agent invocation and the delegation is labelled no handoff (the hook's
  spans are checked and noted);
- tool executions: the tool bodies (ToolRunner) record what ran and the span current in them, the pipeline's (checked):
  no tool has a span (`executed_by_span: null`; truth.py anchors a finding about it on the model span that proposed
  the call); the call id comes from the server log as in `apps/haystack_app.py`;
- 429 and the handoff: as `apps/haystack_app.py` (the app's chat generator calls the generator once more after HTTP
  429, each attempt its own generator span; the billing Agent is an `AgentTool` of the triage Agent).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.frameworks import terminal_status_for  # noqa: E402
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

from apps.haystack_app import run_agents  # noqa: E402

LIBRARY = "traceloop-haystack"
PIPELINE_COMPONENT = "agent"


class TraceloopHaystackAdapter:
    library = LIBRARY
    convention = "openllmetry"
    content = True

    def __init__(self):
        # Haystack's anonymous usage statistics (posthog) are read from the environment when haystack is imported;
        # OpenLLMetry's telemetry and metrics off, content tracing at its default (on).
        os.environ.update(HAYSTACK_TELEMETRY_ENABLED="False", TRACELOOP_TELEMETRY="false",
                          TRACELOOP_METRICS_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")

    def setup(self, endpoint):
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.wrapped = instrument_haystack(self.provider)
        OpenAIInstrumentor().instrument(tracer_provider=self.provider)

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def instrument_haystack(provider) -> list[str]:
    """What `HaystackInstrumentor().instrument()` does, for the targets Haystack 3.x still has.

    The instrumentor wraps the entries of its `WRAPPED_METHODS` in order and stops at the first whose module does not
    import: Haystack 3 removed `haystack.components.generators.openai` (`OpenAIGenerator`), the first entry, so
    `instrument()` raises and wraps nothing (and `Traceloop.init` looks for a distribution named `haystack`, not
    `haystack-ai`, so it never calls it). This applies the package's own wrappers, with the tracer `_instrument` makes
    (same scope name and version), to every entry that resolves. Returns the wrapped targets."""
    import importlib

    import opentelemetry.instrumentation.haystack as instrumentation
    from opentelemetry.instrumentation.haystack.version import __version__
    from opentelemetry.trace import get_tracer
    from wrapt import wrap_function_wrapper

    tracer = get_tracer(instrumentation.__name__, __version__, provider)
    wrapped = []
    for entry in instrumentation.WRAPPED_METHODS:
        try:
            importlib.import_module(entry["package"])
        except ImportError:
            continue
        target = f"{entry['object']}.{entry['method']}"
        wrap_function_wrapper(entry["package"], target, entry["wrapper"](tracer, entry))
        wrapped.append(f"{entry['package']}.{target}")
    return wrapped


def pipeline_runner(truth: Truth):
    """Runs the top Agent as the one component of a Pipeline; the pipeline's `_run_component`, wrapped on the
    instance, runs inside the instrumentation's `Pipeline.run` span and records it."""

    def run_top(agent, messages):
        from haystack import Pipeline

        pipe = Pipeline()
        pipe.add_component(PIPELINE_COMPONENT, agent)
        run_component = pipe._run_component

        def recording(*args, **kwargs):
            truth.record_workflow("haystack_pipeline")
            return run_component(*args, **kwargs)

        pipe._run_component = recording
        return pipe.run({PIPELINE_COMPONENT: {"messages": messages}})[PIPELINE_COMPONENT]

    return run_top


def run_pipeline_agents(scenario: str, base_url: str, truth: Truth) -> None:
    """Runs the scenario's agents with the top Agent the one component of a Pipeline, for an instrumentation that traces
    the pipeline's run and each chat generator run (no Agent, no Tool): the labels of such a run (the pipeline a
    workflow step, no agent or tool span, the generator's span around each request `other`)."""
    agent_runs: list[tuple[str, str | None]] = []

    def on_agent(name: str) -> None:
        agent_runs.append((name, current_ids()[1]))

    run = run_agents(scenario, base_url, truth, on_agent=on_agent, prompt_steps=False,
                     run_top=pipeline_runner(truth))
    if run.result is not None:
        truth.notes.append(f"haystack exit reason: {run.result.get('exit_reason')}")
    terminal_status_for(truth, run.runner, run.exc)
    if run.retried:
        truth.notes.append("the app's chat generator called the model once more after HTTP 429")
    pipeline_spans = {w["span_id"] for w in truth.workflows}
    for name, span_id in agent_runs:
        if span_id not in pipeline_spans:
            raise RuntimeError(f"agent {name} started under span {span_id}, not the pipeline's {pipeline_spans}")
        truth.notes.append(f"agent {name} ran under the pipeline span {span_id}: no span")
    for t in truth.tools:
        if t["span_id"] not in pipeline_spans:
            raise RuntimeError(f"tool {t['name']} ran under span {t['span_id']}, not the pipeline's")
        truth.notes.append(f"tool {t['name']} ({t['call_id']}) ran under the pipeline span {t['span_id']}: no span")
        t["span_id"] = None
    if run.handoffs:
        truth.notes.append("the triage agent delegated to the billing agent (AgentTool): neither has a span, no "
                           "handoff is labelled")
    # The generator's span around each model request (one per OpenAIChatGenerator.run): the same call once more.
    truth.kind_counts["other"] = len(run.generator_runs)


def run_traceloop_haystack(adapter: TraceloopHaystackAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run_pipeline_agents(scenario, base_url, truth)
    truth.notes.append(f"OpenLLMetry's Haystack wrappers applied to: {adapter.wrapped}")


def main() -> int:
    return app_main(TraceloopHaystackAdapter(), run_traceloop_haystack, handoff_family="agent_tool")


if __name__ == "__main__":
    sys.exit(main())
