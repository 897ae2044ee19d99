"""Strands Agents (`strands-agents[openai]`, `OpenAIModel` with `stream=False`) with its native tracer, its spans
rewritten by OpenInference's Strands span processor (`openinference-instrumentation-strands-agents`).

    .venvs/openinference-strands/bin/python -m apps.openinference_strands_app \
        --lib openinference-strands-agents --scenario handoff --out DIR

The agents, tools, swarm, retry strategy and ground truth are those of `apps/strands_app.py` (`run_strands`, the
OpenAI provider of `strands-agents`, Strands' default conventions: `OTEL_SEMCONV_STABILITY_OPT_IN` left unset); only
the tracer provider differs. What the instrumentation is (read in its 0.1.12 source): no instrumentor and no
patching, one `StrandsAgentsToOpenInferenceProcessor` that the user adds to the tracer provider ahead of the export
processor (its README: `telemetry.tracer_provider.add_span_processor(StrandsAgentsToOpenInferenceProcessor())` on the
provider `StrandsTelemetry` builds; its docstring: add it BEFORE the exporters). On the end of every span whose
instrumentation scope is `strands-agents` it computes OpenInference attributes from Strands' GenAI attributes and
message events (`openinference.span.kind` from the span name, `llm.input_messages.*` / `llm.output_messages.*`,
`llm.token_count.*`, `tool.*`, `input.value` / `output.value`), writes them into the ended span in place (Strands' own
`gen_ai.*` keys stay), removes the `gen_ai.*` events it read and sets the status of every span that is not ERROR to OK.
It opens no span and drops none: Strands' spans go out once, rewritten, not beside copies.

Ground truth as for `strands-agents` (never read back from the trace): tool bodies, the fake server's log, Strands'
hooks (`BeforeInvocationEvent`, `BeforeModelCallEvent`, the Swarm's `BeforeNodeCallEvent`).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402

from apps.strands_app import StrandsAdapter, import_strands, run_strands  # noqa: E402

LIBRARY = "openinference-strands-agents"


class OpenInferenceStrandsAdapter(StrandsAdapter):
    """Strands' own spans (default conventions, OpenAI provider), rewritten by OpenInference's span processor before
    they are exported."""
    library = LIBRARY
    convention = "openinference"
    content = True

    def __init__(self) -> None:
        self.library = LIBRARY
        self.semconv_opt_in = None

    def setup(self, endpoint):
        import_strands(self.semconv_opt_in)
        from openinference.instrumentation.strands_agents import StrandsAgentsToOpenInferenceProcessor

        # As its README installs it: the OpenInference processor first, then the export processor.
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}",
                                          before=[StrandsAgentsToOpenInferenceProcessor()])


def main() -> int:
    return app_main(OpenInferenceStrandsAdapter(), run_strands, handoff_family="swarm")


if __name__ == "__main__":
    sys.exit(main())
