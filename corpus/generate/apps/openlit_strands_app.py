"""Strands Agents (`strands-agents[openai]`, `OpenAIModel` with `stream=False`) traced by OpenLIT at its default
(`openlit.init` with no instrumentor left out: every one it finds installed is on).

    .venvs/openlit-strands/bin/python -m apps.openlit_strands_app --lib openlit-strands --scenario handoff --out DIR

The agents, tools, swarm, retry strategy and ground truth are those of `apps/strands_app.py` (`run_strands`, the
OpenAI provider of `strands-agents`, Strands' default conventions: `OTEL_SEMCONV_STABILITY_OPT_IN` left unset), as for
`openinference-strands-agents` and `mlflow-strands`; only the tracing differs. The app installs the corpus SDK
provider as the global one (Strands' own tracer takes its tracer from it, as in `strands-agents`), then calls
`openlit.init` on it (`corpusgen.harness.init_openlit_local` without `only`).

What OpenLIT does here (read in openlit 1.45.0, the newest release): its instrumentor table names a Strands
instrumentor (`openlit.instrumentation.strands.StrandsInstrumentor`, a span processor that would rewrite Strands' spans
as they end), but **that module does not import** in 1.45.0 (`processor.py` imports `truncate_content` and
`truncate_message_content` from the package's `utils.py`, which does not define them; they live in
`openlit/__helpers.py`), and `get_all_instrumentors` drops an instrumentor whose module fails to import without a
word. So `openlit.init` at its default instruments, of what this venv holds, the `openai` client (its OpenAI
instrumentor: `AsyncCompletions.create` wrapped, a `chat <model>` CLIENT span per request, current while the request
is sent) and the OpenTelemetry contrib httpx / requests / urllib / urllib3 / starlette instrumentors it bundles. The
trace is Strands' own spans (scope `strands.telemetry.tracer`) with OpenLIT's OpenAI span under each of Strands'
`chat` spans. The app checks that the OpenAI wrapper is in place and records whether the Strands instrumentor loaded.

Ground truth as for `strands-agents` (never read back from the trace): tool bodies, the fake server's log (the app's
httpx event hook names the span current when the request is built: OpenLIT's `chat <model>` span, inside Strands'
`chat` span), Strands' hooks (`BeforeInvocationEvent`, `BeforeModelCallEvent`, the Swarm's `BeforeNodeCallEvent`). An
audit hook on `socket.connect` refuses any connection that does not go to a loopback address.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import app_main, init_openlit_local, otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.strands_app import StrandsAdapter, import_strands, run_strands  # noqa: E402

LIBRARY = "openlit-strands"


class OpenlitStrandsAdapter(StrandsAdapter):
    """Strands' own spans (default conventions, OpenAI provider) and OpenLIT's OpenAI client spans, exported by the corpus
    pipeline."""
    library = LIBRARY
    convention = "otel-genai"
    content = True

    def __init__(self) -> None:
        self.library = LIBRARY
        self.semconv_opt_in = None

    def setup(self, endpoint: str) -> None:
        from opentelemetry import trace

        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        import_strands(self.semconv_opt_in)
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        self._pricing = init_openlit_local(f"corpus-{self.library}")
        from openai.resources.chat.completions import AsyncCompletions

        if not hasattr(AsyncCompletions.create, "__wrapped__"):
            raise RuntimeError("openlit did not instrument the openai client (AsyncCompletions.create not wrapped)")
        processors = getattr(getattr(trace.get_tracer_provider(), "_active_span_processor", None),
                             "_span_processors", ())
        self.strands_processor = any(type(p).__name__ == "StrandsSpanProcessor" for p in processors)

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")


def run_openlit_strands(adapter: OpenlitStrandsAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_strands(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")
        truth.notes.append(f"openlit Strands span processor on the provider: {adapter.strands_processor}")


def main() -> int:
    return app_main(OpenlitStrandsAdapter(), run_openlit_strands, handoff_family="swarm")


if __name__ == "__main__":
    sys.exit(main())
