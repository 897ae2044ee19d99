"""Langtrace (`langtrace-python-sdk`) on the raw agent loop over the `anthropic` client (`corpusgen/raw_loop_anthropic.py`,
the Messages API at the fake server's Messages face: the loop of `openinference-anthropic` / `traceloop-anthropic`):

    .venvs/langtrace-anthropic/bin/python -m apps.langtrace_anthropic_app --lib langtrace-anthropic --scenario handoff \
        --out DIR

Taken in place of AgentOps on the raw loop sending through `litellm.completion`: AgentOps 0.4.21 has no LiteLLM
instrumentation, and LiteLLM 1.110.2's OpenAI provider sends each request with the client's low-level `post`, not
`chat.completions.create`, so AgentOps' OpenAI wrapper makes no span of it: only the session and decorator spans are
exported (NOTES-frameworks-df.md).

Set up as `langtrace-openai` (`apps/langtrace_app.py`, whose adapter this one extends): `langtrace.init(
custom_remote_exporter=OTLPSpanExporter(<capture server>), api_host=<capture server>)` at its default (every
instrumentation it finds installed), its Sentry error reporting and release check off, a connect guard that refuses
anything but loopback; the app's workflow, agent and tool spans from `@with_langtrace_root_span(name)`. Langtrace's
Anthropic wrapper (`Messages.create`) opens its `anthropic.messages.create` span with `start_span` (never current): the
span of a model request is the one still open from that wrapper's scope when the request is sent (`OpenModelSpans`,
as for `traceloop-anthropic`), which the request header names.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import note_connections  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
from corpusgen.raw_loop_anthropic import OpenModelSpans, run_raw_anthropic  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.langtrace_app import LangtraceOpenAIAdapter  # noqa: E402

LIBRARY = "langtrace-anthropic"
ANTHROPIC_SCOPE = "langtrace_python_sdk.instrumentation.anthropic.instrumentation"  # its wrapper's tracer


class LangtraceAnthropicAdapter(LangtraceOpenAIAdapter):
    """`langtrace.init` at its default; its Anthropic client spans; the app's units as `with_langtrace_root_span`."""

    library = LIBRARY

    def setup(self, endpoint: str) -> None:
        super().setup(endpoint)
        self.model_spans = OpenModelSpans(ANTHROPIC_SCOPE)
        self.provider.add_span_processor(self.model_spans)

    def wrapped_methods(self) -> list[str]:
        from anthropic.resources.messages import Messages
        from openai.resources.chat.completions import Completions

        if not hasattr(Messages.create, "__wrapped__"):
            raise RuntimeError("langtrace did not instrument anthropic (Messages.create not wrapped)")
        found = ["anthropic Messages.create"]
        if hasattr(Completions.create, "__wrapped__"):
            found.append("openai Completions.create")
        return found


def run_langtrace_anthropic(adapter: LangtraceAnthropicAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_raw_anthropic(adapter, scenario, base_url, truth)
    finally:
        note_connections(adapter.guard, truth)
        truth.notes.append(f"wrapped after langtrace.init: {adapter.instrumented}")


def main() -> int:
    return app_main(LangtraceAnthropicAdapter(), run_langtrace_anthropic)


if __name__ == "__main__":
    sys.exit(main())
