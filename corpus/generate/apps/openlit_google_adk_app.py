"""Google ADK (`google-adk`) with its LiteLlm model wrapper pointed at the fake OpenAI server, traced by OpenLIT
(`openlit.init` with its Google ADK instrumentor and its LiteLLM instrumentor only).

    .venvs/openlit-google-adk/bin/python -m apps.openlit_google_adk_app --lib openlit-google-adk \
        --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/adk_app.py` (`run_adk`); only the
instrumentation differs. ADK's own telemetry is left at its defaults (schema v2, no GenAI semconv opt-in, no content
capture variable), as a user of OpenLIT would have it. ADK opens its spans through the global TracerProvider
(`google.adk.telemetry.tracing.tracer`), whatever else is installed; OpenLIT's instrumentor (read in its 1.45.0
source, `openlit/instrumentation/google_adk/`) keeps them on by design and adds its own around them:

- `LlmAgent.__init__`: a `create_agent <agent>` span (a trace of its own: the agents are built outside any span);
- `Runner.run_async`: `invoke_agent <app>`; `BaseAgent.run_async`: `invoke_agent <agent>` (its own spans, linked to
  the `create_agent` spans);
- it replaces `runners.tracer` and `base_agent.tracer` by a tracer that opens no span, and wraps ADK's
  `trace_call_llm` / `trace_tool_call` / `trace_merged_tool_calls` where ADK 1.x defined them
  (`flows.llm_flows.base_llm_flow`, `flows.llm_flows.functions`). In ADK 2.13 `runners.tracer` is only re-exported and
  the other names are not there (its spans come from `telemetry/_instrumentation.py` through
  `telemetry.tracing.tracer`): nothing is suppressed, ADK's spans are exported as ADK writes them, and OpenLIT's
  attribute enrichment of them never runs.

The model calls are ADK's `generate_content` spans and OpenLIT's LiteLLM spans (`litellm.acompletion`, which ADK's
LiteLlm wrapper calls). Every other OpenLIT instrumentor (the OpenAI client one among them: LiteLLM sends through an
`AsyncOpenAI` client, which would record each request a third time) is disabled.

Ground truth as for `adk-native` (never read back from the trace): model spans from the request header (the span
current when LiteLLM sends), tool executions from the tool bodies (`ToolContext.function_call_id`), agent spans from
`before_agent_callback`, the run from a plugin's `before_run_callback`, the transfer from `before_tool_callback`.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.adk_app import run_adk  # noqa: E402

LIBRARY = "openlit-google-adk"
# OpenLIT's instrumentor names (its `INSTRUMENTOR_MAP` keys): ADK's runs, and the LiteLLM requests ADK's LiteLlm sends.
INSTRUMENTORS = ("google-adk", "litellm")
ADK_SCOPE = "gcp.vertex.agent"
OPENLIT_ADK_SCOPE = "openlit.instrumentation.google_adk"


class OpenlitGoogleAdkAdapter:
    """openlit: its Google ADK instrumentor (agent / runner spans around ADK's own) + its LiteLLM instrumentor."""

    library = LIBRARY
    convention = "otel-genai"
    content = True

    def __init__(self) -> None:
        # LiteLLM otherwise fetches its model price map from the network at import (and falls back to its copy).
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

    def setup(self, endpoint):
        from opentelemetry.sdk.trace import SpanProcessor

        names = self.spans = {}

        class SpanNames(SpanProcessor):
            """(name, instrumentation scope) of every span started, by span id: ADK's and OpenLIT's agent spans share
            their name."""

            def on_start(self, span, parent_context=None):
                scope = span.instrumentation_scope.name if span.instrumentation_scope else None
                names[span.get_span_context().span_id] = (span.name, scope)

        self.guard = ConnectGuard()
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.provider.add_span_processor(SpanNames())
        self._pricing = init_openlit_local(f"corpus-{self.library}", only=INSTRUMENTORS)
        from google.adk.agents.base_agent import BaseAgent
        from google.adk.runners import Runner

        for owner, method in ((Runner, "run_async"), (BaseAgent, "run_async")):
            if not hasattr(getattr(owner, method), "__wrapped__"):
                raise RuntimeError(f"openlit did not instrument ADK ({owner.__name__}.{method} not wrapped)")

    def _current_and_parent(self, current: tuple[str, str], parent: tuple[str, str]):
        """(trace id, span id) of the current span and of its parent, checked against their (name, scope)."""
        from opentelemetry import trace

        span = trace.get_current_span()
        ctx, up = span.get_span_context(), getattr(span, "parent", None)
        got = (self.spans.get(ctx.span_id), self.spans.get(up.span_id) if up else None)
        if got != (current, parent):
            raise RuntimeError(f"expected span {current!r} under {parent!r}, got {got!r}")
        return ((format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")),
                (format(up.trace_id, "032x"), format(up.span_id, "016x")))

    def agent_span(self, agent_name: str):
        # `before_agent_callback` runs inside ADK's own `invoke_agent <agent>` span, whose parent is OpenLIT's span of
        # the same name around `BaseAgent.run_async`. The agent run is the outer one (OpenLIT's: the invocation as its
        # caller made it); ADK's span inside it records the same run again.
        name = f"invoke_agent {agent_name}"
        _, outer = self._current_and_parent((name, ADK_SCOPE), (name, OPENLIT_ADK_SCOPE))
        return outer

    def run_spans(self, root_name: str):
        # The plugin's `before_run_callback` runs inside ADK's `invoke_workflow <root>` span, whose parent is OpenLIT's
        # span around `Runner.run_async` (`invoke_agent <app>`: the runner's run, named after the app, no agent of
        # its own): two spans for the run, both workflow steps, outermost first.
        runner = "invoke_agent support_app"
        workflow, outer = self._current_and_parent((f"invoke_workflow {root_name}", ADK_SCOPE),
                                                   (runner, OPENLIT_ADK_SCOPE))
        return [(runner, *outer), (f"invoke_workflow {root_name}", *workflow)]

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_openlit_adk(adapter: OpenlitGoogleAdkAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_adk(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    return app_main(
        OpenlitGoogleAdkAdapter(),
        run_openlit_adk,
        family="adk",
        handoff_family="adk",
        extra_meta={
            # LiteLLM's retry (model_429) re-sends inside one `litellm.acompletion` call: OpenLIT's one chat span (and
            # ADK's one generate_content span) hold both requests, as for adk-native. One model call per span.
            "model_calls_by_span": True,
            # OpenLIT's LiteLLM wrapper writes a chat span's attributes when the response arrives; a failed request
            # (HTTP 500, timeout) records none, its input messages among them (as under openlit-agno).
            "failed_request_input_recorded": False,
        },
    )


if __name__ == "__main__":
    sys.exit(main())
