"""LangGraph's prebuilt ReAct agent (`langgraph-supervisor` for the handoff) with LangChain's `ChatOpenAI` against the
fake server, traced by Langfuse's own tracing: the Langfuse Python SDK (v3+ is built on OpenTelemetry) and its LangChain
integration, `langfuse.langchain.CallbackHandler`, passed in the run config as Langfuse documents it.

    .venvs/langfuse-langgraph/bin/python -m apps.langfuse_langgraph_app --lib langfuse-langgraph --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/langgraph_app.py` (`run_langgraph`); only the
instrumentation differs. The handler opens one Langfuse observation per LangChain run (chain -> `chain`, or `agent` when
"agent" is in the run name or class path; chat model -> `generation`; tool -> `tool`; retriever), each an OTel span of
the tracer `langfuse-sdk` with `langfuse.*` attributes, parented on the parent run's observation and attached as the
current OTel context from its start callback to its end callback.

How the spans reach the capture server, with no Langfuse server (`corpusgen.harness.init_langfuse_local`; read in
`langfuse/_client/client.py`, `resource_manager.py`, `span_processor.py`): `Langfuse(...)` accepts `tracer_provider` and
`span_exporter`. It adds one `LangfuseSpanProcessor` (a `BatchSpanProcessor` that drops spans failing its export filter
and wraps the exporter in its media/masking transform) to the provider it is given; with no `span_exporter` that
processor builds an OTLP/HTTP exporter to `<base_url>/api/public/otel/v1/traces`. Here it is given a TracerProvider of
its own (the corpus resource, no other processor) and the corpus OTLP/gRPC exporter to the capture server as
`span_exporter`: the capture receives what Langfuse's own processor exports. `base_url` is an unused loopback address
(the API clients for scores, media and prompts are built but never called: no scores, no media, no prompts). Sampling at
its default (rate 1.0), tracing on, content (input/output) captured as by default; Langfuse has no usage telemetry.

Ground truth: the run records of `run_langgraph`'s callback handler, each run's span read from Langfuse's handler
(`CallbackHandler._runs[run_id]._otel_span`, held from its start callback to its end callback). Runs it opens no span for
are noted and not labelled.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import init_langfuse_local, run_one  # noqa: E402

from apps.langgraph_app import run_langgraph  # noqa: E402

LIBRARY = "langfuse-langgraph"
PUBLIC_KEY = "pk-lf-corpus"


class LangfuseLangGraphAdapter:
    library = LIBRARY
    convention = "langfuse"
    content = True

    def setup(self, endpoint):
        from langfuse.langchain import CallbackHandler

        self.provider, self.client = init_langfuse_local(endpoint, f"corpus-{self.library}", PUBLIC_KEY)
        self.handler = CallbackHandler(public_key=PUBLIC_KEY)

    def callbacks(self):
        return [self.handler]

    def span_of(self, run_id):
        observation = self.handler._runs.get(run_id)
        return getattr(observation, "_otel_span", None) if observation is not None else None

    def shutdown(self):
        self.client.shutdown()  # flushes the provider (Langfuse's processor) and stops its consumer threads
        self.provider.force_flush()
        self.provider.shutdown()


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = LangfuseLangGraphAdapter()
    meta = {
        "library": adapter.library,
        "convention": adapter.convention,
        "scenario": a.scenario,
        "content_captured": adapter.content,
    }
    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
