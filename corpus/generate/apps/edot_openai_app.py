"""The raw agent loop of `apps/raw.py` under Elastic's OpenAI instrumentation (EDOT Python's
``elastic-opentelemetry-instrumentation-openai``), with the app's workflow / agent / tool spans of ``openai-v2-content-on``:

    .venvs/edot-azure/bin/python -m apps.edot_openai_app --lib edot-openai --scenario plain_tool_use --out DIR

Elastic's ``OpenAIInstrumentor`` wraps ``Completions.create``: a ``chat <model>`` CLIENT span per request (current
while the request is sent, so the request header names it) with request and response attributes only; the messages
go out as OTLP log records, one ``gen_ai.<role>.message`` record per input message and one ``gen_ai.choice`` per
answer choice, emitted in the span's context. The app installs the OTLP log pipeline (``LogPipeline``) so that they
are captured beside the spans.

Content capture: Elastic's switch is ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` (its README), or its
``capture_message_content=True`` instrument option, which that variable overrides when set. util-genai's
``TelemetryHandler`` (the app's spans) reads the same variable with its own values (``SPAN_ONLY``; ``true`` is no
value of it: no content). So the app instruments with Elastic's option while the variable is unset, then sets it to
``SPAN_ONLY`` for util-genai, as ``openai-v2-content-on`` does: content on in both, each by its own switch.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import LogPipeline, adapters_main, otlp_sdk_pipeline  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402

from apps.raw import GenAIAdapter  # noqa: E402

CAPTURE_VAR = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class _ElasticSpans(GenAIAdapter):
    """Elastic's OpenAI instrumentation for the model calls; util-genai's TelemetryHandler for the app's own spans."""

    def __init__(self) -> None:
        super().__init__(content=True)
        self.library = "edot-openai"

    def setup(self, endpoint):
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
        from opentelemetry.util.genai.handler import TelemetryHandler

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
        util_genai_mode = os.environ.pop(CAPTURE_VAR)
        # No logger_provider: Elastic's instrumentor hands it to `get_logger` as the scope's version (its second
        # positional parameter), and the OTLP log exporter then fails on every batch; the global provider, which
        # LogPipeline installs, is the one it uses when given none.
        OpenAIInstrumentor().instrument(tracer_provider=self.provider, capture_message_content=True)
        os.environ[CAPTURE_VAR] = util_genai_mode
        self.handler = TelemetryHandler(tracer_provider=self.provider)


class ElasticOpenAIAdapter(LogPipeline, _ElasticSpans):
    """``_ElasticSpans`` with the OTLP log pipeline installed first (Elastic writes the messages as log records)."""


ADAPTERS = {"edot-openai": ElasticOpenAIAdapter}


def main() -> int:
    return adapters_main(ADAPTERS, run_raw)


if __name__ == "__main__":
    sys.exit(main())
