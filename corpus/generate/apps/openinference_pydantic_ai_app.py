"""Pydantic AI (`pydantic-ai-slim[openai]`) on the real `openai` client against the fake server, its spans rewritten by
OpenInference's Pydantic AI span processor (`openinference-instrumentation-pydantic-ai`).

    .venvs/openinference-pydantic-ai/bin/python -m apps.openinference_pydantic_ai_app \
        --lib openinference-pydantic-ai --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/pydantic_ai_app.py` (`run_pydantic_ai`, which
turns on Pydantic AI's own instrumentation with `Agent.instrument_all(InstrumentationSettings(tracer_provider=...))`,
default data version 5, content on); only the tracer provider differs. What the instrumentation is (read in its
0.1.30 source): no instrumentor and no patching, one `OpenInferenceSpanProcessor` that the user adds to the tracer
provider **before** the export processor (its README: `tracer_provider.add_span_processor(OpenInferenceSpanProcessor())`
and then `add_span_processor(SimpleSpanProcessor(exporter))`). On every span's end it computes OpenInference
attributes from Pydantic AI's GenAI attributes (`openinference.span.kind` from `gen_ai.operation.name`: `chat` → LLM,
`invoke_agent` → AGENT, `execute_tool` → TOOL; `llm.input_messages.*` / `llm.output_messages.*` / `llm.tools.*` from
`gen_ai.input.messages`, `gen_ai.output.messages`, `model_request_parameters`; `llm.token_count.*` on non-agent spans;
`tool.*`, `input.value` / `output.value`, `session.id`), writes them into the ended span in place
(`span._attributes = {**attributes, **openinference}`: Pydantic AI's own keys stay) and sets the status of every span
that is not ERROR to OK. It opens no span and drops none (no `span_filter` given). Its README's `version=2` is one of
Pydantic AI 2.68's deprecated data versions; its source reads versions 2 and 5 alike, so the default (5) is kept, as
for `pydantic-ai-native`.

Ground truth as for `pydantic-ai-native` (never read back from the trace): model spans from the request header (the
`chat` span current at send time; a failed attempt that was attempted again, model_429, its `model request attempt`
child), tool executions from the tool bodies (`ctx.tool_call_id`), agent runs from a `Hooks` capability's
`before_run`, the delegation as the handoff.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402

from apps.pydantic_ai_app import PydanticAIAdapter, _attempt_spans, run_pydantic_ai  # noqa: E402

LIBRARY = "openinference-pydantic-ai"


class OpenInferencePydanticAIAdapter(PydanticAIAdapter):
    """Pydantic AI's own spans, rewritten by OpenInference's span processor before they are exported."""
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        from openinference.instrumentation.pydantic_ai import OpenInferenceSpanProcessor

        # As its README installs it: the OpenInference processor first, then the export processor.
        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}", before=[OpenInferenceSpanProcessor()])
        self.attempts = _attempt_spans()
        self.provider.add_span_processor(self.attempts)
        self._seen: dict[str, int] = {}


def main() -> int:
    # As for pydantic-ai-native: a chat span's input is recorded with its output, when a response arrives; the
    # processor only re-encodes what is there, so a request that failed (500, timeout) records no input.
    return app_main(OpenInferencePydanticAIAdapter(), run_pydantic_ai,
                    extra_meta={"failed_request_input_recorded": False})


if __name__ == "__main__":
    sys.exit(main())
