"""The raw agent loop (`corpusgen/raw_loop.py`, the loop of `apps/raw.py`) traced by the Langfuse Python SDK's own
instrumentation, as Langfuse documents it for a custom agent: the `@observe` decorator with typed observations around
the app's units of work, and its OpenAI drop-in (`from langfuse.openai import openai`) for the model calls.

    .venvs/langfuse-openai/bin/python -m apps.langfuse_openai_app --lib langfuse-openai --scenario handoff --out DIR

The scenarios, tools, retry, handoff and ground truth are those of the other raw-loop libraries (`openai-v2-content-on`,
`openinference-openai`, `traceloop-openai`); only the instrumentation differs:

- the workflow: `observe(name="support_workflow", as_type="chain")` (a link between the app's steps, as the
  OpenInference adapter's CHAIN);
- each agent run: `observe(name=<agent>, as_type="agent")`; the handoff, as in `apps/raw.py`, is the billing agent's
  run nested inside the triage agent's (no span of the `handoff_to_billing_agent` call);
- each tool call: `observe(name=<tool>, as_type="tool")` around the tool body (input `{"args": [], "kwargs": <the
  call's arguments>}`, output the returned text; a raised error sets level ERROR and the status message). The decorator
  has no place for the model's call id, and the app adds none (as under OpenInference and OpenLLMetry);
- model calls: importing `langfuse.openai` wraps `Completions.create` of the `openai` module the loop's client comes
  from (`register_tracing`, `wrapt`): each call is a `generation` observation (`OpenAI-generation`), started with
  `start_observation` (not made current) as a child of the current span, with the request (`{"messages", "tools"}`),
  model parameters, the answer message, usage details, and level ERROR with the error text when the call raised.

How the spans reach the capture server: `corpusgen.harness.init_langfuse_local` (as `langfuse-langgraph`): Langfuse's
own span processor on a TracerProvider of its own, exporting through the corpus OTLP/gRPC exporter; no Langfuse server.
An audit hook on `socket.connect` (`corpusgen/connect_guard.py`) lets the run reach loopback only; the labels' notes say
whether the Langfuse API's (unused) port was reached.

Ground truth (never read back from the trace): agent and workflow spans, tool spans, the handoff and terminal status
from `run_raw`, as for every raw loop. Model calls: the request header carries the span current when the HTTP request
is sent, which is the observation the generation was opened under (the generation is never current); the app wraps
`Langfuse.start_observation` and records each generation's span under the span current when it was opened, in order:
the n-th request sent under a span is the n-th generation opened under it (`max_retries=0`: one `create()`, one
generation, one HTTP request).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main, init_langfuse_local  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

LIBRARY = "langfuse-openai"
PUBLIC_KEY = "pk-lf-corpus"
GENERATION = "generation"


class GenerationSpans:
    """The span id of every generation observation opened, in order, under the span current when it was opened."""

    def __init__(self) -> None:
        self.by_parent: dict[str | None, list[str]] = {}

    def install(self) -> None:
        from wrapt import wrap_function_wrapper

        def wrapper(wrapped, instance, args, kwargs):
            observation = wrapped(*args, **kwargs)
            if kwargs.get("as_type") == GENERATION:
                _, parent = current_ids()
                span_id = format(observation._otel_span.get_span_context().span_id, "016x")
                self.by_parent.setdefault(parent, []).append(span_id)
            return observation

        wrap_function_wrapper("langfuse._client.client", "Langfuse.start_observation", wrapper)


class LangfuseOpenAIAdapter:
    """The Langfuse SDK: `@observe` typed observations (chain, agent, tool) + its OpenAI integration (generations)."""

    library = LIBRARY
    convention = "langfuse"
    content = True

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()
        self.generations = GenerationSpans()
        self.generations.install()
        self._seen: dict[str | None, int] = {}
        self.provider, self.client = init_langfuse_local(endpoint, f"corpus-{self.library}", PUBLIC_KEY)
        from langfuse import observe
        from langfuse.openai import openai

        self.observe = observe
        create = openai.resources.chat.completions.Completions.__dict__["create"]
        if not hasattr(create, "__wrapped__"):
            raise RuntimeError("langfuse.openai did not wrap Completions.create")

    def model_span_for(self, request: dict) -> str | None:
        parent = request.get("otel_span")
        position = self._seen.get(parent, 0)
        self._seen[parent] = position + 1
        spans = self.generations.by_parent.get(parent, [])
        return spans[position] if position < len(spans) else None

    def shutdown(self) -> None:
        self.client.shutdown()  # flushes the provider (Langfuse's processor) and stops its consumer threads
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")

    def workflow(self, name, fn):
        return self.observe(name=name, as_type="chain")(fn)()

    def agent(self, name, fn):
        return self.observe(name=name, as_type="agent")(fn)()

    def tool(self, name, call_id, args, fn):
        return self.observe(name=name, as_type="tool")(fn)(**args)


def run_langfuse_openai(adapter: LangfuseOpenAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_raw(adapter, scenario, base_url, truth)
    finally:
        # The Langfuse API's address (`base_url`, where nothing listens) must never be reached: no scores, media or
        # prompts are asked for, and the spans go through the corpus exporter.
        api_port = int(adapter.client._base_url.rsplit(":", 1)[1])
        ports = sorted({port for _, port in adapter.guard.seen})
        hosts = sorted({host for host, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}, "
                           f"Langfuse API port reached: {api_port in ports}")


def main() -> int:
    return app_main(LangfuseOpenAIAdapter(), run_langfuse_openai)


if __name__ == "__main__":
    sys.exit(main())
