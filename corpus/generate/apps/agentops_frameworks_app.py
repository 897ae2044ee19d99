"""smolagents and Google ADK traced by AgentOps (`agentops`, its OpenTelemetry-based SDK, its own instrumentation of
each framework). Run inside the agentops-frameworks venv:

    .venvs/agentops-frameworks/bin/python -m apps.agentops_frameworks_app --lib agentops-smolagents \
        --scenario handoff --out DIR
    .venvs/agentops-frameworks/bin/python -m apps.agentops_frameworks_app --lib agentops-google-adk \
        --scenario handoff --out DIR

AgentOps is set up as for `agentops-agno` (`apps/agentops_agno_app.py`, whose adapter these extend):
`agentops.init(exporter_endpoint=...)` with no API key and every other option at its default, its OTLP/HTTP span
exporter pointed at the local relay to the capture server (`corpusgen/otlp_http_relay.py`), its log file off, a
connect guard that refuses anything but loopback. The framework is imported before `init`, so that `init`'s scan of
the imported modules finds it; AgentOps turns on the first agentic library it finds and then switches its provider
(client) instrumentations off, so each run is traced by that framework's instrumentation alone (the instrumentors
active after `init` are written in the labels' notes).

`agentops-smolagents`: the agents, tools, retry and ground truth of `apps/smolagents_app.py` (`run_smolagents`) on the
model of `openinference-smolagents-litellm` (`litellm_model`: a `LiteLLMModel` on LiteLLM's OpenAI provider, its
retries off, smolagents' own rate-limit retry kept), put in place of `OpenAIServerModel` for the run: AgentOps'
smolagents instrumentation (`agentops.instrumentation.agentic.smolagents`, read in its 0.4.21 source) wraps
`ToolCallingAgent.run` (`<agent>.run`), `ToolCallingAgent.execute_tool_call` (`tool.<name>` / `tool.execute`) and
`LiteLLMModel.generate` (`litellm.generate (<model>)`), nothing of `OpenAIServerModel`, as AgentOps' smolagents example
uses LiteLLM. The calls that run no tool body (an unknown tool, the manager's call of its managed agent) are recorded as
for `openlit-smolagents` (`CallRecorder`, installed before `init`, so AgentOps' wrapper encloses the app's: the span
current inside it is AgentOps' tool span).

`agentops-google-adk`: the agents, tools, retry and ground truth of `apps/adk_app.py` (`run_adk`), ADK's own telemetry
at its defaults (as for `openlit-google-adk`). AgentOps' Google ADK instrumentation
(`agentops.instrumentation.agentic.google_adk`) replaces `google.adk.telemetry.tracer` and the `tracer` of four ADK
modules by a tracer that opens no span, and wraps `BaseAgent.run_async` (`adk.agent.<agent>`),
`BaseLlmFlow._call_llm_async` (`adk.llm.<model>`), `functions.__call_tool_async` (`adk.tool.<tool>`) and ADK's
`trace_*` telemetry functions, where they exist (`_patch` logs and skips a missing one). Which of ADK's spans and of
AgentOps' are there is checked at each hook (`agent_span`): the agent run is AgentOps' `adk.agent.<agent>` span when
one encloses the span current in `before_agent_callback`.

Both: the session span from `agentops.init()`'s return value is the run's outermost workflow step; the app ends the
session with `agentops.end_trace(end_state=...)` after the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.agentops_agno_app import AgentOpsAgnoAdapter  # noqa: E402
from apps.agentops_openai_agents_app import _hex  # noqa: E402

SMOLAGENTS = "agentops-smolagents"
GOOGLE_ADK = "agentops-google-adk"
AGENTOPS_ADK_SCOPE = "agentops.instrumentation.google_adk"


class _SpanNames:
    """(name, instrumentation scope) of every span started, by span id, as a span processor on AgentOps' provider."""

    def __init__(self) -> None:
        self.spans: dict[int, tuple[str, str | None]] = {}

    def install(self) -> None:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import SpanProcessor

        spans = self.spans

        class Names(SpanProcessor):
            def on_start(self, span, parent_context=None):
                scope = span.instrumentation_scope.name if span.instrumentation_scope else None
                spans[span.get_span_context().span_id] = (span.name, scope)

        trace.get_tracer_provider().add_span_processor(Names())


def _start_agentops(adapter, framework_modules: tuple[str, ...]) -> None:
    """The relay, the framework imported, then `agentops.init()`; the instrumentors it turned on."""
    import importlib

    from corpusgen.agentops_relay import start_agentops_relay

    traces_endpoint = start_agentops_relay(adapter, adapter.endpoint)
    import agentops

    for name in framework_modules:
        importlib.import_module(name)
    from agentops import instrumentation

    adapter.session = agentops.init(exporter_endpoint=traces_endpoint)
    adapter.instrumentors = sorted(type(i).__name__ for i in instrumentation._active_instrumentors)
    adapter.names = _SpanNames()
    adapter.names.install()


def _end_session(adapter, truth: Truth) -> None:
    import agentops

    ended = "Success" if truth.terminal_status in ("success", "policy_violation") else "Error"
    agentops.end_trace(end_state=ended)  # every trace still open: the session
    span = adapter.session.span if adapter.session is not None else None
    if _hex(span) is None:
        raise RuntimeError("agentops.init() started no session span")
    # The session span: the app's run as AgentOps records it, around the framework's spans.
    truth.workflows.insert(0, {"name": span.name, "span_id": _hex(span)})
    truth.notes.append(f"session ended {ended}; AgentOps instrumentors active after init: {adapter.instrumentors}")
    adapter.truth = truth  # shutdown adds what the export did


class AgentOpsSmolagentsAdapter(AgentOpsAgnoAdapter):
    """agentops: its session span, its smolagents instrumentation (agent run / tool call / LiteLLMModel spans)."""

    library = SMOLAGENTS

    def setup(self, endpoint):
        from apps.openlit_smolagents_app import CallRecorder

        # The app's recorder of dispatched calls first: AgentOps' wrapper then encloses it.
        self.calls = CallRecorder()
        self.calls.install()
        self.endpoint = endpoint
        _start_agentops(self, ("smolagents",))
        from smolagents.agents import ToolCallingAgent
        from smolagents.models import LiteLLMModel

        for owner, method in ((ToolCallingAgent, "run"), (LiteLLMModel, "generate")):
            if not hasattr(getattr(owner, method), "__wrapped__"):
                raise RuntimeError(f"agentops did not instrument smolagents ({owner.__name__}.{method} not wrapped); "
                                   f"active: {self.instrumentors}")
        if not hasattr(getattr(ToolCallingAgent.execute_tool_call, "__wrapped__", None), "__wrapped__"):
            raise RuntimeError("agentops did not instrument smolagents (execute_tool_call not wrapped)")


def run_agentops_smolagents(adapter: AgentOpsSmolagentsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    import smolagents

    from apps.openlit_smolagents_app import record_bodiless_calls
    from apps.smolagents_app import litellm_model, run_smolagents

    server_model = smolagents.OpenAIServerModel
    # run_smolagents builds its model as `OpenAIServerModel(...)` from the package: the LiteLLM model in its place.
    smolagents.OpenAIServerModel = lambda **_kwargs: litellm_model(base_url)
    try:
        truth.notes.append("every model request sent by litellm.completion through smolagents' LiteLLMModel")
        run_smolagents(adapter, scenario, base_url, truth)
        record_bodiless_calls(adapter.calls.calls, truth)
    finally:
        smolagents.OpenAIServerModel = server_model
        _end_session(adapter, truth)
    # No span of smolagents' steps under AgentOps: the session span is the one workflow step.
    truth.kind_counts["workflow_step"] = len(truth.workflows)


class AgentOpsGoogleAdkAdapter(AgentOpsAgnoAdapter):
    """agentops: its session span, its Google ADK instrumentation (agent / LLM / tool spans), ADK's own spans that
    its no-op tracer does not reach."""

    library = GOOGLE_ADK

    def __init__(self) -> None:
        import os

        # LiteLLM otherwise fetches its model price map from the network at import (and falls back to its copy).
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

    def setup(self, endpoint):
        self.endpoint = endpoint
        _start_agentops(self, ("google.adk", "google.adk.agents", "google.adk.runners"))
        from google.adk.agents.base_agent import BaseAgent

        if not hasattr(BaseAgent.run_async, "__wrapped__"):
            raise RuntimeError(f"agentops did not instrument ADK (BaseAgent.run_async not wrapped); "
                               f"active: {self.instrumentors}")

    def agent_span(self, agent_name: str):
        """The agent run: AgentOps' `adk.agent.<agent>` span, the current one or the parent of the current one."""
        from opentelemetry import trace

        span = trace.get_current_span()
        ctx, up = span.get_span_context(), getattr(span, "parent", None)
        want = (f"adk.agent.{agent_name}", AGENTOPS_ADK_SCOPE)
        for c in (ctx, up):
            if c is not None and self.names.spans.get(c.span_id) == want:
                return format(c.trace_id, "032x"), format(c.span_id, "016x")
        got = (self.names.spans.get(ctx.span_id), self.names.spans.get(up.span_id) if up else None)
        raise RuntimeError(f"no {want!r} span at the agent's callback: current and parent {got!r}")


def run_agentops_adk(adapter: AgentOpsGoogleAdkAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    from apps.adk_app import run_adk

    try:
        run_adk(adapter, scenario, base_url, truth)
    finally:
        _end_session(adapter, truth)
    truth.kind_counts["workflow_step"] = len(truth.workflows)


def main() -> int:
    lib = sys.argv[sys.argv.index("--lib") + 1] if "--lib" in sys.argv else ""
    if lib == SMOLAGENTS:
        return app_main(AgentOpsSmolagentsAdapter(), run_agentops_smolagents, family="final_answer_tool",
                        handoff_family="final_answer_tool", extra_meta={
                            # smolagents' retry after a 429 happens inside one `generate` call, but each request is
                            # one `openai.chat.completion` span of AgentOps' OpenAI wrapper (the 429's ends ERROR):
                            # the retry shows, unlike under OpenInference (no `retry_evidence: false`).
                            # smolagents sends earlier tool calls and their results as text messages (smolagents_app).
                            "tool_results_as_text": True,
                        })
    if lib == GOOGLE_ADK:
        return app_main(AgentOpsGoogleAdkAdapter(), run_agentops_adk, family="adk", handoff_family="adk",
                        extra_meta={
                            # LiteLLM's retry (model_429) re-sends inside one model-call span, as for adk-native.
                            "model_calls_by_span": True,
                        })
    print(f"--lib must be one of {[SMOLAGENTS, GOOGLE_ADK]}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
