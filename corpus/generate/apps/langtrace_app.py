"""Langtrace (`langtrace-python-sdk`) on two more agent shapes, against the fake server:

    .venvs/langtrace-crewai/bin/python -m apps.langtrace_app --lib langtrace-crewai --scenario handoff --out DIR
    .venvs/langtrace-crewai/bin/python -m apps.langtrace_app --lib langtrace-openai --scenario handoff --out DIR

Set up as for `langtrace-langgraph` (`apps/langtrace_langgraph_app.py`): `langtrace.init(custom_remote_exporter=
OTLPSpanExporter(<capture server>), api_host=<capture server>)`, its Sentry error reporting off
(`LANGTRACE_ERROR_REPORTING=False`), its release check (a GET to api.github.com on every `init`) a no-op, a connect guard
that refuses anything but loopback. Unlike there, no instrumentation is disabled: `init` instruments every library of
its table that it finds installed (`is_package_installed`), its default; the instrumentors whose wrappers are in place
after `init` go into the labels' notes.

- `langtrace-crewai`: the crew of `apps/crewai_app.py` (native OpenAI provider, function calling; telemetry off and a
  temporary home through `crewai_home`) with the ground-truth hooks of `traceloop-crewai` (`run_traceloop_crewai`):
  Langtrace's CrewAI instrumentation wraps the same three methods as OpenLLMetry's (`Crew.kickoff`,
  `Agent.execute_task`, `Task.execute_sync`, each a current CLIENT span), so the crew span is the one current in
  `before_kickoff_callbacks`, the task span the one current in `Task._execute_core`, an agent span the one current in
  CrewAI's before-LLM-call hook; it opens no span for a tool's run (tool bodies run under the agent's span:
  `executed_by_span: null`).
- `langtrace-openai`: the raw Chat Completions loop of `corpusgen/raw_loop.py` (`run_raw`). Langtrace has no agent or
  tool decorator; its documented way to give an app's own unit of work a span is `@with_langtrace_root_span(name)`
  (a current span of that name, INTERNAL, no attribute; nested, each is a child of the current one), so the app's
  workflow, agent and tool spans are such spans, named `support_workflow`, `<agent name>`, `<tool name>`.

Langtrace's OpenAI wrapper opens its `openai.chat.completions.create` span with `start_span` (never current): the span
of a model request is the one that wrapper holds open in the sending thread (a span processor keeps it from start to
end), as for `langtrace-langgraph`; `corpusgen.truth.use_current_span` makes it the span the request header names.
Everything else (tool bodies, agent hooks) records the span current in OpenTelemetry's context.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402
from corpusgen.truth import Truth, use_current_span  # noqa: E402

from apps.crewai_app import crewai_home  # noqa: E402
from apps.traceloop_crewai_app import run_traceloop_crewai  # noqa: E402

OPENAI_SCOPE = "langtrace_python_sdk.instrumentation.openai"  # the scope of Langtrace's OpenAI wrapper's spans


def _open_request_spans():
    """A span processor holding Langtrace's OpenAI span open in each thread (it is never made current)."""
    from opentelemetry.sdk.trace import SpanProcessor

    class RequestSpans(SpanProcessor):
        def __init__(self):
            self.open: dict = {}
            self.lock = threading.Lock()

        def on_start(self, span, parent_context=None):
            scope = getattr(span, "instrumentation_scope", None)
            if scope is not None and scope.name.startswith(OPENAI_SCOPE):
                with self.lock:
                    self.open[threading.get_ident()] = span

        def on_end(self, span):
            # The SDK hands on_end a ReadableSpan of its own, not the span on_start saw: matched by span id.
            span_id = span.get_span_context().span_id
            with self.lock:
                for key in [k for k, v in self.open.items() if v.get_span_context().span_id == span_id]:
                    del self.open[key]

        def current(self):
            with self.lock:
                return self.open.get(threading.get_ident())

    return RequestSpans()


class LangtraceAdapter:
    """`langtrace.init` at its default (every instrumentation it finds), exporting to the capture server."""

    convention = "langtrace"
    content = True
    library = ""

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()
        os.environ["LANGTRACE_ERROR_REPORTING"] = "False"  # its Sentry client stays uninitialised
        import langtrace_python_sdk.langtrace as langtrace
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        langtrace.check_if_sdk_is_outdated = lambda: None  # a GET to api.github.com on every init
        langtrace.init(custom_remote_exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True),
                       api_host=f"http://{endpoint}", service_name=f"corpus-{self.library}")
        self.provider = trace.get_tracer_provider()
        if not hasattr(self.provider, "add_span_processor"):
            raise RuntimeError("langtrace.init set no SDK TracerProvider")
        self.requests = _open_request_spans()
        self.provider.add_span_processor(self.requests)
        use_current_span(lambda: self.requests.current() or trace.get_current_span())
        self.instrumented = self.wrapped_methods()

    def wrapped_methods(self) -> list[str]:
        """The methods of this app's libraries that carry a wrapper after `init` (what its default turned on)."""
        from openai.resources.chat.completions import Completions

        found = ["openai Completions.create"] if hasattr(Completions.create, "__wrapped__") else []
        if not found:
            raise RuntimeError("langtrace did not instrument openai (Completions.create not wrapped)")
        return found

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


class LangtraceCrewAIAdapter(LangtraceAdapter):
    library = "langtrace-crewai"
    # CrewAI's native OpenAI provider reads a raw response (`with_raw_response`): Langtrace's wrapper then records no
    # completion and no usage, and its prompt event writes a replayed assistant message's calls as `{"id": "",
    # "type": ""}` (the calls' arguments are nowhere; a call shows by its id and name on the tool message alone).
    label_rules = {"model_output_recorded": False, "usage_recorded": False, "tool_arguments_recorded": False}

    def wrapped_methods(self) -> list[str]:
        from crewai import Agent, Crew, Task

        found = super().wrapped_methods()
        for owner, method in ((Crew, "kickoff"), (Agent, "execute_task"), (Task, "execute_sync")):
            if not hasattr(getattr(owner, method), "__wrapped__"):
                raise RuntimeError(f"langtrace did not instrument CrewAI ({owner.__name__}.{method} not wrapped)")
            found.append(f"crewai {owner.__name__}.{method}")
        return found


class LangtraceOpenAIAdapter(LangtraceAdapter):
    library = "langtrace-openai"

    @staticmethod
    def _span(name, fn):
        from langtrace_python_sdk import with_langtrace_root_span

        return with_langtrace_root_span(name)(lambda: fn())()

    def workflow(self, name, fn):
        return self._span(name, fn)

    def agent(self, name, fn):
        return self._span(name, fn)

    def tool(self, name, call_id, args, fn):
        return self._span(name, lambda: fn(**args))


ADAPTERS = {"langtrace-crewai": LangtraceCrewAIAdapter, "langtrace-openai": LangtraceOpenAIAdapter}


def run_langtrace(adapter: LangtraceAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        if isinstance(adapter, LangtraceCrewAIAdapter):
            run_traceloop_crewai(adapter, scenario, base_url, truth)
        else:
            run_raw(adapter, scenario, base_url, truth)
    finally:
        note_connections(adapter.guard, truth)
        truth.notes.append(f"wrapped after langtrace.init: {adapter.instrumented}")


def main() -> int:
    lib = sys.argv[sys.argv.index("--lib") + 1] if "--lib" in sys.argv else ""
    if lib == "langtrace-crewai":
        # traceloop-crewai's script families (CrewAI re-executes a failed task once: +retry_once).
        with crewai_home():
            return adapters_main(ADAPTERS, run_langtrace, family="raw+retry_once", handoff_family="crewai+retry_once")
    return adapters_main(ADAPTERS, run_langtrace)


if __name__ == "__main__":
    sys.exit(main())
