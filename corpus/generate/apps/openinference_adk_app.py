"""Google ADK (`google-adk`) with its LiteLlm model wrapper pointed at the fake OpenAI server, traced by OpenInference's
Google ADK instrumentation (`GoogleADKInstrumentor().instrument(tracer_provider=...)`).

    .venvs/openinference-adk/bin/python -m apps.openinference_adk_app --lib openinference-google-adk \
        --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/adk_app.py` (`run_adk`); only the
instrumentation differs. ADK's own telemetry is left at its defaults (schema v2, no GenAI semconv opt-in, no content
capture variable: unlike `adk-native`, the app sets neither), as a user of the instrumentor would have it. What the
instrumentor does with ADK's spans (read in its 1.0.5 source):

- it wraps `Runner.run_async` (a CHAIN `invocation [<app>]` span) and `BaseAgent.run_async` (an AGENT
  `agent_run [<agent>]` span), and replaces `runners.tracer` by a pass-through that opens no span;
- it replaces ADK's shared `tracing.tracer` (and the module-local tracers of `execute_tool (merged)` and of the
  workflow/node spans) by a proxy that sends `execute_tool *`, `invoke_workflow *`, `invoke_node *` and
  `compact_events *` spans to its own tracer (TOOL / CHAIN spans) and swallows every other span ADK opens with it
  (`invoke_agent`, `generate_content`: the current span is handed back instead);
- it wraps `trace_tool_call` (TOOL attributes on the current span) and `_model_call.trace_call_llm` (LLM kind,
  messages, usage on the *current* span; written for ADK's `call_llm` span, which schema v2 no longer opens).

Ground truth as for `adk-native` (never read back from the trace): model spans from the request header (the span
current when LiteLLM sends), tool executions from the tool bodies (`ToolContext.function_call_id`), agent spans from
`before_agent_callback`, the run from a plugin's `before_run_callback`, the transfer from `before_tool_callback`.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402

from apps.adk_app import run_adk  # noqa: E402

LIBRARY = "openinference-google-adk"


class OpenInferenceAdkAdapter:
    """ADK under OpenInference: the instrumentor's `invocation` / `agent_run` spans, ADK's tool and workflow spans
    re-routed through the instrumentor's tracer."""
    convention = "openinference"
    library = LIBRARY
    content = True

    def __init__(self):
        # LiteLLM otherwise fetches its model price map from the network at import (and falls back to its copy).
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

    def setup(self, endpoint):
        from openinference.instrumentation.google_adk import GoogleADKInstrumentor
        from opentelemetry.sdk.trace import SpanProcessor

        names = self.span_names = {}

        class SpanNames(SpanProcessor):
            """The name of every span started, by span id (to check what a hook's span and its parent are)."""

            def on_start(self, span, parent_context=None):
                names[span.get_span_context().span_id] = span.name

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.provider.add_span_processor(SpanNames())
        GoogleADKInstrumentor().instrument(tracer_provider=self.provider)

    def _current_and_parent(self, current_name: str, parent_name: str):
        """(trace id, span id) of the current span and of its parent, checked against the names they must have."""
        from opentelemetry import trace

        span = trace.get_current_span()
        ctx, parent = span.get_span_context(), getattr(span, "parent", None)
        got = (self.span_names.get(ctx.span_id), self.span_names.get(parent.span_id) if parent else None)
        if got != (current_name, parent_name):
            raise RuntimeError(f"expected span {current_name!r} under {parent_name!r}, got {got!r}")
        return ((format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")),
                (format(parent.trace_id, "032x"), format(parent.span_id, "016x")))

    def agent_span(self, agent_name: str):
        # `before_agent_callback` runs inside ADK's `invoke_agent <agent>` span (opened with `start_span`, which the
        # instrumentor's tracer proxy passes through to ADK's own tracer); the instrumentor's AGENT span for the same
        # run (`agent_run [<agent>]`, around `BaseAgent.run_async`) is its parent. The agent run is that AGENT span:
        # ADK's `invoke_agent` span is the one the model calls are sent under (the instrumentor swallows ADK's
        # `generate_content` span) and carries the instrumentor's LLM attributes.
        _, agent_run = self._current_and_parent(f"invoke_agent {agent_name}", f"agent_run [{agent_name}]")
        return agent_run

    def run_spans(self, root_name: str):
        # The plugin's `before_run_callback` runs inside ADK's `invoke_workflow <root>` span (a CHAIN span through the
        # instrumentor's tracer), whose parent is the instrumentor's CHAIN span around `Runner.run_async`
        # (`invocation [<app>]`): two spans for the run, both workflow steps, outermost first.
        workflow, invocation = self._current_and_parent(f"invoke_workflow {root_name}", "invocation [support_app]")
        return [("invocation [support_app]", *invocation), (f"invoke_workflow {root_name}", *workflow)]

    def shutdown(self):
        self.provider.force_flush()
        self.provider.shutdown()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = OpenInferenceAdkAdapter()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content,
            # The instrumentor swallows ADK's `generate_content` span: every request of an agent run is sent under
            # ADK's `invoke_agent` span, on which it writes each answer's LLM attributes. One model call per span
            # (as for adk-native's LiteLLM retry in model_429).
            "model_calls_by_span": True,
            # Those attributes are written when an answer arrives (`trace_call_llm`), each over the last: a request
            # that failed records no input, and the span keeps the usage of the last answer only.
            "failed_request_input_recorded": False,
            "usage_recorded_per_span": "last"}
    return run_one(meta, adapter, run_adk, Path(a.out), family="adk")


if __name__ == "__main__":
    sys.exit(main())
