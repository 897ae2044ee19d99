"""The raw agent loop (`corpusgen/raw_loop.py`, the loop of `apps/raw.py`) traced by the LangSmith Python SDK alone, in
its OpenTelemetry-only mode, as LangSmith documents tracing a custom agent: `wrap_openai` on the OpenAI client and
`@traceable` on the app's functions.

    .venvs/langsmith-openai/bin/python -m apps.langsmith_openai_app --lib langsmith-openai --scenario handoff --out DIR

The scenarios, tools, retry, handoff and ground truth are those of the other raw-loop libraries (`openai-v2-content-on`,
`openinference-openai`, `traceloop-openai`, `langfuse-openai`); only the instrumentation differs:

- the workflow: `traceable(name="support_workflow")` (run type "chain", `@traceable`'s default);
- each agent run: `traceable(name=<agent>)`, also "chain" (LangSmith has no agent run type); the handoff, as in
  `apps/raw.py`, is the billing agent's run nested inside the triage agent's (no run of the `handoff_to_billing_agent`
  call);
- each tool call: `traceable(run_type="tool", name=<tool>)` around the tool body (inputs: the call's arguments, the
  body's keyword arguments; output: the returned text; an exception recorded as the run's error and re-raised). The
  decorator has no place for the model's call id (LangSmith's exporter writes `gen_ai.tool.call.id` only from a run's
  `tool_call_id` metadata, which LangChain sets and `@traceable` does not), and the app adds none, as under
  OpenInference, OpenLLMetry and Langfuse;
- model calls: `langsmith.wrappers.wrap_openai(client)` replaces the client's `chat.completions.create` with a
  `traceable(run_type="llm", name="ChatOpenAI")` around the original (`corpusgen/raw_loop.py`'s `complete` hook; the
  client is wrapped once, on its first request).

How the runs become spans: `corpusgen/langsmith_otel.py` (the OTel-only mode and provider of Frameworks S): the corpus
SDK pipeline is the global TracerProvider before the LangSmith client exists, and the client's `OTELExporter` makes one
span per run in its tracing thread, after the fact. Ground truth as for every raw loop, through a stand-in per
LangSmith run (the run current in LangSmith's context when the app records a tool, an agent or a request), replaced by
the span LangSmith made for that run once its queue is drained. An audit hook on `socket.connect` refuses any
connection that is not to loopback or that goes to the (unused) LangSmith endpoint.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.langsmith_otel import configure_env  # noqa: E402

LANGSMITH_PORT = configure_env()  # before anything imports langsmith

from corpusgen.connect_guard import ConnectGuard, note_connections  # noqa: E402
from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.langsmith_otel import RunSpans  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "langsmith-openai"


class LangSmithOpenAIAdapter:
    """LangSmith's `@traceable` runs (chain, tool) around the raw loop, `wrap_openai` for its model calls."""

    library = LIBRARY
    convention = "langsmith"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard(refused_port=LANGSMITH_PORT)
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self.runs = RunSpans(self.provider)
        self.runs.use_for_ground_truth()
        from langsmith import traceable
        from langsmith.wrappers import wrap_openai

        self.traceable, self.wrap_openai = traceable, wrap_openai

    def complete(self, client, **request):
        """One chat request through the LangSmith-wrapped client (wrapped in place on its first request)."""
        if not getattr(client, "_corpus_langsmith_wrapped", False):
            self.wrap_openai(client)
            client._corpus_langsmith_wrapped = True
        return client.chat.completions.create(**request)

    def model_span_for(self, request: dict) -> str | None:
        return self.runs.real(request.get("otel_span"))

    def shutdown(self) -> None:
        self.runs.client.flush()
        self.provider.force_flush()
        self.provider.shutdown()

    def workflow(self, name, fn):
        return self.traceable(name=name)(fn)()

    def agent(self, name, fn):
        return self.traceable(name=name)(fn)()

    def tool(self, name, call_id, args, fn):
        return self.traceable(run_type="tool", name=name)(fn)(**args)


def run_langsmith_openai(adapter: LangSmithOpenAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_raw(adapter, scenario, base_url, truth, complete=adapter.complete)
    finally:
        adapter.runs.settle(truth)
        note_connections(adapter.guard, truth)
        if adapter.guard.refused:
            raise RuntimeError(f"refused connections: {adapter.guard.refused}")


def main() -> int:
    return app_main(LangSmithOpenAIAdapter(), run_langsmith_openai)


if __name__ == "__main__":
    sys.exit(main())
