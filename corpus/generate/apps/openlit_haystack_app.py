"""Haystack (`haystack-ai`) agents traced by OpenLIT (`openlit.init` with its Haystack instrumentor and its OpenAI client
instrumentor only).

    .venvs/openlit-haystack/bin/python -m apps.openlit_haystack_app --lib openlit-haystack --scenario handoff --out DIR

The agents, tools, scripts and Haystack settings are those of `apps/haystack_app.py` (`run_agents`), and, as under
OpenLLMetry (`apps/traceloop_haystack_app.py`, `run_pipeline_agents`), the top Agent runs as the one component of a
Haystack `Pipeline`; only the instrumentation differs. OpenLIT's Haystack instrumentor (1.45.0) wraps `Pipeline.run`
and `AsyncPipeline.run_async` (an `invoke_workflow pipeline` span) and the `run` of six component classes, among them
`OpenAIChatGenerator.run` (a `chat openai_chat_generator` span); nothing of an Agent or a Tool. Its OpenAI instrumentor
opens a `chat <model>` span for each request the generator's client sends, inside the generator's span. Every other
OpenLIT instrumentor is disabled.

Ground truth as for `traceloop-haystack` (`run_pipeline_agents`; never read back from the trace): the pipeline run a
workflow step (recorded inside OpenLIT's pipeline span), model calls from the request header (the span current at send
time: OpenLIT's OpenAI `chat` span), agents and tools with no span of their own (their hooks and bodies run under the
pipeline span), no handoff, the generator's span around each request `other`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.traceloop_haystack_app import run_pipeline_agents  # noqa: E402

LIBRARY = "openlit-haystack"
# OpenLIT's instrumentor names (its `INSTRUMENTOR_MAP` keys): Haystack's pipeline and generators, and the OpenAI
# client's requests.
INSTRUMENTORS = ("haystack", "openai")


class OpenlitHaystackAdapter:
    """openlit: its Haystack instrumentor (pipeline and generator spans) + its OpenAI client instrumentor (model calls)."""

    library = LIBRARY
    convention = "otel-genai"
    content = True

    def __init__(self) -> None:
        # Haystack's anonymous usage statistics (posthog) are read from the environment when haystack is imported.
        os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server

    def setup(self, endpoint: str) -> None:
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}", only=INSTRUMENTORS)
        from haystack import Pipeline
        from haystack.components.generators.chat import OpenAIChatGenerator

        for target in (Pipeline.run, OpenAIChatGenerator.run):
            if not hasattr(target, "__wrapped__"):
                raise RuntimeError(f"openlit did not instrument haystack ({target.__qualname__} not wrapped)")

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_openlit_haystack(adapter: OpenlitHaystackAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_pipeline_agents(scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    # OpenLIT's OpenAI wrapper writes a chat span's input messages when a response arrives; a failed request (HTTP 429 /
    # 500, timeout) records none (as under the other OpenLIT libraries).
    return app_main(OpenlitHaystackAdapter(), run_openlit_haystack, handoff_family="agent_tool",
                    extra_meta={"failed_request_input_recorded": False})


if __name__ == "__main__":
    sys.exit(main())
