"""Haystack (`haystack-ai`) agents traced by Haystack's own tracing, through deepset's OpenTelemetry tracer
(`opentelemetry-haystack`, `haystack_integrations.tracing.opentelemetry.OpenTelemetryTracer`), with content tracing on.

    .venvs/haystack-native/bin/python -m apps.haystack_native_app --lib haystack-native --scenario handoff --out DIR

The agents, tools, scripts and Haystack settings are those of `apps/haystack_app.py` (`run_agents`); no instrumentation
package, no OpenAI client instrumentation: the only spans are the ones Haystack itself opens through its global tracer
(`haystack.tracing.tracer`). Haystack 3 no longer ships `haystack.tracing.OpenTelemetryTracer` (2.x did, and enabled it
by itself when OpenTelemetry was installed); the same class is now deepset's `opentelemetry-haystack` integration, whose
`OpenTelemetryConnector` component does no more than what `setup` does here: `tracing.enable_tracing(
OpenTelemetryTracer(get_tracer("haystack")))`. The top Agent runs as the one component of a Haystack `Pipeline`, so the
pipeline's own spans are there too.

What Haystack 3.4.1 opens (source: `core/pipeline/{pipeline,base}.py`, `components/agents/{agent,tool_calling}.py`,
`hooks/invocation.py`): `haystack.pipeline.run` → `haystack.component.run` (the Agent component) → `haystack.agent.run`
→ `haystack.agent.hook` (one per hook run) and `haystack.agent.step` (one per step) → `haystack.agent.step.llm` (the
chat generator's call: the HTTP request is sent under it) and `haystack.agent.step.tool` (one per tool call, in the
ToolInvoker's thread pool with the step's context; the tool body runs under it).

Ground truth, never read back from the exported trace:
- Haystack's operations: the app's tracer is the integration's `OpenTelemetryTracer` with its `trace` recording, for
  each operation Haystack opens, the OTel span it got (the spans themselves are the integration's, unchanged). The
  pipeline run, the Agent component's run and each agent step are workflow steps (`STEP_OPERATIONS`); the hook runs are
  of no labelled kind (`other`);
- model calls: the OpenAI client's httpx request hook sends the span current at send time (`haystack.agent.step.llm`)
  to the fake server; the app's 429 retry calls the generator twice inside that one span, whose input and output show
  nothing of the failed attempt (`model_calls_by_span`: the 429 is `indeterminate`, `in_trace: false`);
- agent runs: each Agent's `before_run` hook runs under Haystack's hook span, whose parent is the agent's run span;
- tool executions: the tool bodies (ToolRunner) record the span current in them (the tool call's span; checked against
  the recorded operations); call ids from the server log as in `apps/haystack_app.py`;
- the handoff: Haystack's `AgentTool` runs the billing Agent inside the triage Agent's tool call, as in
  `apps/haystack_app.py` (from: the triage agent's span, to: the billing agent's).

`HAYSTACK_TELEMETRY_ENABLED=False`; a connect guard (`corpusgen/connect_guard.py`) refuses any address but loopback.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.frameworks import terminal_status_for  # noqa: E402
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.haystack_app import run_agents  # noqa: E402

LIBRARY = "haystack-native"
PIPELINE_COMPONENT = "agent"
STEP_OPERATIONS = ("haystack.pipeline.run", "haystack.component.run", "haystack.agent.step")
AGENT_OPERATION = "haystack.agent.run"
MODEL_OPERATION = "haystack.agent.step.llm"
TOOL_OPERATION = "haystack.agent.step.tool"
HOOK_OPERATION = "haystack.agent.hook"


class HaystackNativeAdapter:
    library = LIBRARY
    convention = "haystack"
    content = True

    def __init__(self):
        # Haystack's anonymous usage statistics (posthog) and its content tracing are read from the environment when
        # haystack is imported.
        os.environ.update(HAYSTACK_TELEMETRY_ENABLED="False", HAYSTACK_CONTENT_TRACING_ENABLED="true")
        self.operations: list[tuple[str, str]] = []  # (Haystack operation name, OTel span id), in opening order
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server

    def setup(self, endpoint):
        import opentelemetry.trace
        from haystack import tracing
        from haystack_integrations.tracing.opentelemetry import OpenTelemetryTracer

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        operations = self.operations

        class RecordingTracer(OpenTelemetryTracer):
            """The integration's tracer; records which OTel span each Haystack operation got."""

            @contextlib.contextmanager
            def trace(self, operation_name, tags=None, parent_span=None):
                with super().trace(operation_name, tags=tags, parent_span=parent_span) as span:
                    operations.append((operation_name, format(span.raw_span().get_span_context().span_id, "016x")))
                    yield span

        # What OpenTelemetryConnector.__init__ does, with the scope name it uses.
        tracing.enable_tracing(RecordingTracer(opentelemetry.trace.get_tracer("haystack", tracer_provider=self.provider)))
        tracing.tracer.is_content_tracing_enabled = True

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def pipeline_top(agent, messages):
    """Runs the top Agent as the one component of a Pipeline."""
    from haystack import Pipeline

    pipe = Pipeline()
    pipe.add_component(PIPELINE_COMPONENT, agent)
    return pipe.run({PIPELINE_COMPONENT: {"messages": messages}})[PIPELINE_COMPONENT]


def run_haystack_native(adapter: HaystackNativeAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from opentelemetry import trace

    hook_spans: list[tuple[str, str]] = []  # (agent name, the hook span the before_run hook ran under)

    def on_agent(name: str) -> None:
        # Recorded as the agent runs (the AgentTool delegation counts the agents recorded before it).
        span = trace.get_current_span()
        ctx = span.get_span_context()
        parent = getattr(span, "parent", None)
        hook_spans.append((name, format(ctx.span_id, "016x")))
        truth.record_agent(name, span_id=format(parent.span_id, "016x") if parent else None,
                           trace_id=format(ctx.trace_id, "032x"))

    run = run_agents(scenario, base_url, truth, on_agent=on_agent, prompt_steps=False, run_top=pipeline_top)
    if run.result is not None:
        truth.notes.append(f"haystack exit reason: {run.result.get('exit_reason')}")
    terminal_status_for(truth, run.runner, run.exc)
    if run.retried:
        truth.notes.append("the app's chat generator called the model once more after HTTP 429, inside the same "
                           "haystack.agent.step.llm span")
    spans_of = {}
    for operation, span_id in adapter.operations:
        spans_of.setdefault(operation, []).append(span_id)
    hooks = set(spans_of.get(HOOK_OPERATION, []))
    agent_spans = set(spans_of.get(AGENT_OPERATION, []))
    for (name, hook_span), agent in zip(hook_spans, truth.agents, strict=True):
        if hook_span not in hooks or agent["span_id"] not in agent_spans:
            raise RuntimeError(f"agent {name}: hook span {hook_span} / parent {agent['span_id']} not Haystack's hook / "
                               "agent span")
    for operation, span_id in adapter.operations:
        if operation in STEP_OPERATIONS:
            truth.record_workflow(operation, span_id=span_id)
    tool_spans = set(spans_of.get(TOOL_OPERATION, []))
    for t in truth.tools:
        if t["span_id"] not in tool_spans:
            raise RuntimeError(f"tool {t['name']} ran under span {t['span_id']}, not a {TOOL_OPERATION} span")
    if len(tool_spans) != len(truth.tools):
        raise RuntimeError(f"{len(tool_spans)} tool spans, {len(truth.tools)} tool executions recorded")
    model_spans = set(spans_of.get(MODEL_OPERATION, []))
    for r in truth.server_log:
        if r.get("otel_span") not in model_spans:
            raise RuntimeError(f"model request {r.get('seq')} sent under {r.get('otel_span')}, not a {MODEL_OPERATION}")
    for before in run.handoffs:  # from: the delegating agent; to: the billing agent run inside the tool
        target = truth.agents[before]["span_id"] if len(truth.agents) > before else None
        truth.handoffs.append({"from_span": truth.agents[0]["span_id"], "to_span": target})
    unknown = sorted(set(spans_of) - set(STEP_OPERATIONS) - {AGENT_OPERATION, MODEL_OPERATION, TOOL_OPERATION,
                                                              HOOK_OPERATION})
    if unknown:
        raise RuntimeError(f"Haystack operations with no label rule: {unknown}")
    # The hook runs (the app's before_run hook, one per agent run): spans of no labelled kind.
    truth.kind_counts["other"] = len(hooks)
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
    truth.notes.append("haystack operations: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(spans_of.items())))


def main() -> int:
    return app_main(HaystackNativeAdapter(), run_haystack_native, handoff_family="agent_tool",
                    extra_meta={"model_calls_by_span": True})


if __name__ == "__main__":
    sys.exit(main())
