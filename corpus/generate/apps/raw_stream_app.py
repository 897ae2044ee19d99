"""The raw agent loop of `apps/raw.py` with every model request streamed, under two OpenAI client instrumentations:

    .venvs/genai/bin/python -m apps.raw_stream_app --lib openai-v2-stream --scenario plain_tool_use --out DIR
    .venvs/openinference/bin/python -m apps.raw_stream_app --lib openinference-openai-stream --scenario ... --out DIR

- `openai-v2-stream`: the setup of `openai-v2-content-on` (`opentelemetry-instrumentation-openai-v2` chat spans,
  `opentelemetry-util-genai`'s `TelemetryHandler` workflow / agent / tool spans, content on the spans);
- `openinference-openai-stream`: the setup of `openinference-openai` (`openinference-instrumentation-openai` LLM
  spans, `OITracer` chain / agent / tool decorators).

Same scenarios, tools, retry, handoff and ground truth as the raw loops (`corpusgen/raw_loop.py`); the one difference
is `stream=True` on every `chat.completions.create` call: the loop reads each stream to its end and assembles the answer's
text and tool calls from the deltas (`read_stream`), and asks for no usage chunk (no `stream_options`, the client's
default), so the server sends no token usage and no instrumentation can record any: the labels declare
`usage_recorded: false` (the budget finding `indeterminate`). A failed request (429, 500) is refused before any event
and the timed-out one stalls before its headers, so each raises from `create()` as when not streamed.

Model-call spans: both instrumentations make their span current while `create()` sends the request (the request header
records it, as for every raw loop); the span then stays open until the stream is exhausted.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.raw_loop import run_raw  # noqa: E402

from apps.raw import GenAIAdapter, OpenInferenceAdapter  # noqa: E402

# What the stream carries: no usage chunk unless the request asks for one (truth.py's `usage_recorded`).
STREAM_META = {"usage_recorded": False}


class GenAIStreamAdapter(GenAIAdapter):
    def __init__(self) -> None:
        super().__init__(content=True)
        self.library = "openai-v2-stream"


class OpenInferenceStreamAdapter(OpenInferenceAdapter):
    library = "openinference-openai-stream"


ADAPTERS = {"openai-v2-stream": GenAIStreamAdapter, "openinference-openai-stream": OpenInferenceStreamAdapter}


def run_streamed(adapter, scenario: str, base_url: str, truth) -> None:
    truth.notes.append("every model request streamed (stream=True, no stream_options: no usage chunk)")
    run_raw(adapter, scenario, base_url, truth, stream=True)


def main() -> int:
    return adapters_main(ADAPTERS, run_streamed, extra_meta=STREAM_META)


if __name__ == "__main__":
    sys.exit(main())
