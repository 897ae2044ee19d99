"""Laminar (`lmnr`) on three agent shapes of the corpus: the LangGraph agents of `apps/langgraph_app.py`
(`laminar-langgraph`) and the raw Anthropic loop of `apps/anthropic_app.py` (`laminar-anthropic`).

    .venvs/laminar/bin/python -m apps.laminar_app --lib laminar-langgraph --scenario handoff --out DIR

Laminar is set up as for `laminar-openai-agents` (`apps/agents.py`): `Laminar.initialize(base_url="http://127.0.0.1",
grpc_port=<capture server>)` with a dummy project API key, its own TracerProvider and OTLP/gRPC exporter, no Laminar
backend; every instrumentation it finds installed is on (its default): here its LangChain callback handler, its
LangGraph topology wrapper, its OpenAI and Anthropic client instrumentations and its threading context patch.

- `laminar-langgraph`: the agents, tools, scripts, retry and ground truth of `run_langgraph`. Laminar's LangChain
  handler opens one span per run, except a chat-model run whose provider call its OpenAI client instrumentation records
  (`ChatOpenAI`): that run is handed off and the model call's span is the client instrumentation's (`openai.chat`).
  Each run's span is read from Laminar's handler (`LangchainInstrumentor()._handler.get_span(run_id)`, held from the
  run's start to its end); the model call's span (not current while its request is sent) from a span processor.
- `laminar-anthropic`: the raw loop of `run_raw_anthropic`; the app's workflow / agent / tool functions are Laminar's
  `@observe` (`span_type="TOOL"` for a tool; an agent or workflow is a DEFAULT span, Laminar has no agent type); the
  model calls are its Anthropic client instrumentation's `anthropic.chat` spans. Ground truth as in the raw loops: the
  span current inside each tool / agent body, the model-call span open when each HTTP request is sent.
- `laminar-google-genai`: the raw loop of `run_raw_gemini` (`models.generate_content` on the Google Gen AI SDK, the
  loop of `openinference-google-genai`); the app's functions `@observe` as for `laminar-anthropic`; the model calls are
  Laminar's Google Gen AI instrumentation's `gemini.generate_content` spans (`lmnr.span.type` `LLM`, not made current
  while the request is sent: the span processor names it). Own venv (`requirements-laminar-google-genai.txt`).
- `laminar-litellm`: the raw loop of `run_raw` with every request sent by `litellm.completion` on the loop's OpenAI
  client (`apps/litellm_app.py`'s `litellm_complete`, the loop of `openlit-litellm`); the app's functions `@observe` as
  for `laminar-anthropic`; the model calls are Laminar's own LiteLLM instrumentation's `litellm.completion` spans
  (on by default when litellm is installed; `LaminarLiteLLMCallback` is a deprecated no-op in lmnr 0.8.2, not added).
  Own venv (`requirements-laminar-litellm.txt`).

Each loop is imported when its library runs: the venvs hold one agent stack each.
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import run_one  # noqa: E402

SPAN_TYPE = "lmnr.span.type"


class OpenLaminarModelSpans:
    """A span processor that knows the Laminar LLM span still open while its HTTP request is sent (Laminar's client
    instrumentations start it without making it current). Model turns are sequential: at most one is open."""

    def __init__(self) -> None:
        self.open: list = []

    def on_start(self, span, parent_context=None) -> None:
        if (span.attributes or {}).get(SPAN_TYPE) == "LLM":
            self.open.append(span)

    def on_end(self, span) -> None:
        sid = span.get_span_context().span_id
        self.open = [s for s in self.open if s.get_span_context().span_id != sid]

    def _on_ending(self, span) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def current_span(self):
        return self.open[-1] if len(self.open) == 1 else None

    def current(self) -> str | None:
        span = self.current_span()
        return format(span.get_span_context().span_id, "016x") if span is not None else None


class LaminarAdapter:
    convention = "laminar"
    content = True
    library = ""

    def setup(self, endpoint: str) -> None:
        # As apps/agents.py does for laminar-openai-agents: every LMNR_* variable cleared, service.name (init_tracing's
        # `app_name` default, sys.argv[0] read when lmnr is imported) set to the corpus name before the import.
        for k in [k for k in os.environ if k.startswith("LMNR_")]:
            del os.environ[k]
        sys.argv[0] = f"corpus-{self.library}"
        from lmnr import Laminar
        from opentelemetry import trace

        host, port = endpoint.rsplit(":", 1)
        Laminar.initialize(project_api_key="corpus-dummy-key", base_url=f"http://{host}", grpc_port=int(port),
                           http_port=int(port))
        self.model_spans = OpenLaminarModelSpans()
        trace.get_tracer_provider().add_span_processor(self.model_spans)

    def shutdown(self) -> None:
        from lmnr import Laminar

        Laminar.flush()
        Laminar.shutdown()


class LaminarLangGraphAdapter(LaminarAdapter):
    library = "laminar-langgraph"

    def span_of(self, run_id):
        from lmnr.opentelemetry_lib.opentelemetry.instrumentation.langchain import LangchainInstrumentor

        handler = LangchainInstrumentor()._handler
        return handler.get_span(run_id) if handler is not None else None

    def request_span(self):
        return self.model_spans.current_span()


class LaminarAnthropicAdapter(LaminarAdapter):
    library = "laminar-anthropic"

    def workflow(self, name, fn):
        from lmnr import observe

        return observe(name=name)(fn)()

    def agent(self, name, fn):
        from lmnr import observe

        return observe(name=name)(fn)()

    def tool(self, name, call_id, args, fn):
        from lmnr import observe

        def run(**kwargs):
            return fn(**kwargs)

        # The tool function as a user writes it: its parameters are the call's arguments (Laminar records the bound
        # arguments as the span's input).
        run.__signature__ = inspect.Signature(
            [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in args])
        run.__name__ = name
        return observe(name=name, span_type="TOOL")(run)(**args)


class LaminarGoogleGenAIAdapter(LaminarAnthropicAdapter):
    """The same `@observe` functions; the model calls are Laminar's Google Gen AI instrumentation's spans."""
    library = "laminar-google-genai"


class LaminarLiteLLMAdapter(LaminarAnthropicAdapter):
    """The same `@observe` functions; the model calls are Laminar's LiteLLM instrumentation's spans."""
    library = "laminar-litellm"


ADAPTERS = {"laminar-langgraph": LaminarLangGraphAdapter, "laminar-anthropic": LaminarAnthropicAdapter,
            "laminar-google-genai": LaminarGoogleGenAIAdapter, "laminar-litellm": LaminarLiteLLMAdapter}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = ADAPTERS[a.lib]()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    if a.lib == "laminar-anthropic":
        from corpusgen.raw_loop_anthropic import run_raw_anthropic

        return run_one(meta, adapter, run_raw_anthropic, Path(a.out))
    if a.lib == "laminar-google-genai":
        from corpusgen.raw_loop_gemini import run_raw_gemini

        return run_one(meta, adapter, run_raw_gemini, Path(a.out))
    if a.lib == "laminar-litellm":
        from apps.litellm_app import run_litellm

        return run_one(meta, adapter, run_litellm, Path(a.out))
    from apps.langgraph_app import run_langgraph

    family = "supervisor" if a.scenario == "handoff" else "raw"
    return run_one(meta, adapter, run_langgraph, Path(a.out), family=family)


if __name__ == "__main__":
    sys.exit(main())
