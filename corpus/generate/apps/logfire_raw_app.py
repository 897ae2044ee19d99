"""The raw agent loops on the real `openai` client (Chat Completions) and on the real `anthropic` client (Messages API)
against the fake server, traced by Pydantic Logfire's own LLM client instrumentations:

    .venvs/logfire/bin/python -m apps.logfire_raw_app --lib logfire-openai --scenario plain_tool_use --out DIR
    .venvs/logfire/bin/python -m apps.logfire_raw_app --lib logfire-anthropic --scenario handoff --out DIR
    .venvs/logfire-google-genai/bin/python -m apps.logfire_raw_app --lib logfire-google-genai --scenario handoff --out DIR

The loops are `corpusgen/raw_loop.py` (`run_raw`) and `corpusgen/raw_loop_anthropic.py` (`run_raw_anthropic`), the same
scenarios and tools as every raw loop. Logfire is configured as under `logfire-openai-agents`
(`corpusgen.harness.init_logfire_local`: `logfire.configure(send_to_logfire=False, ...)` with the corpus exporter as
its only destination), then `logfire.instrument_openai(openai.OpenAI)` or `logfire.instrument_anthropic(
anthropic.Anthropic)`: the client class the loop builds its client from (every client of the class, as the default
`None` does for the sync and async classes together), at the default attribute format (`version=2`: the GenAI
semantic-convention attributes, a minimal `request_data`, no `response_data`). Each `create` is one CLIENT span
(`Chat Completion with {request_data[model]!r}` / `Message with {request_data[model]!r}`), current while the request is
sent.

`logfire-google-genai` (Frameworks CY, own venv): the raw loop over the Google Gen AI SDK (`corpusgen/raw_loop_gemini.py`,
`run_raw_gemini`, the loop of `google-genai-otel`) under `logfire.instrument_google_genai()`, which is the OpenTelemetry
contrib `GoogleGenAiSdkInstrumentor` on Logfire's tracer provider; message content on the spans as Logfire's docs say
(`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY`, set before the call). Each `generate_content` is one
CLIENT span, current while the request is sent. Each loop is imported when its library runs (this venv has neither
`anthropic` nor `openai-agents`).

`logfire-litellm` (Frameworks DM, own venv): the raw loop of `corpusgen/raw_loop.py` with every request sent by
`litellm.completion` on the loop's OpenAI client (`apps/litellm_app.py`'s `litellm_complete`, the loop of
`openlit-litellm`) under `logfire.instrument_litellm()`: OpenInference's `LiteLLMInstrumentor` on Logfire's tracer
provider (an OpenInference LLM span `completion` around each call, current while LiteLLM sends the request).

The app's own workflow, agent and tool spans are `logfire.span(...)` blocks, as a Logfire user writes them: a message
template with its attributes as keyword arguments. The agent and tool spans are named and described in the GenAI
conventions Logfire's own LLM spans use (`invoke_agent {gen_ai.agent.name}`, `execute_tool {gen_ai.tool.name}` with
`gen_ai.operation.name`, `gen_ai.tool.call.id`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`); the workflow
is a plain span (`support workflow {workflow}`). A block that raises ends ERROR, level error, with an `exception`
event (Logfire's span context manager).

Ground truth as for every raw loop: model calls from the request header (the span current at send time: Logfire's
client span), tool executions and agents from inside their bodies (the app's spans), never read back from the trace.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import adapters_main, init_logfire_local  # noqa: E402
from corpusgen.tools import DESCRIPTIONS  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402


class LogfireRawAdapter:
    """logfire: one LLM client instrumentation (model calls) + `logfire.span` blocks for the app's own spans."""

    convention = "logfire"
    content = True
    library = ""

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        init_logfire_local(endpoint, f"corpus-{self.library}")
        self.instrument()

    def instrument(self) -> None:
        raise NotImplementedError

    def shutdown(self) -> None:
        import logfire

        logfire.force_flush()
        logfire.shutdown()
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")

    def workflow(self, name, fn):
        import logfire

        with logfire.span("support workflow {workflow}", workflow=name):
            return fn()

    def agent(self, name, fn):
        import logfire

        with logfire.span("invoke_agent {gen_ai.agent.name}",
                          **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}):
            return fn()

    def tool(self, name, call_id, args, fn):
        import logfire

        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                      "gen_ai.tool.call.arguments": json.dumps(args)}
        if call_id:
            attributes["gen_ai.tool.call.id"] = call_id
        if name in DESCRIPTIONS:
            attributes["gen_ai.tool.description"] = DESCRIPTIONS[name]
        with logfire.span("execute_tool {gen_ai.tool.name}", **attributes) as span:
            result = fn(**args)
            span.set_attribute("gen_ai.tool.call.result", result)
            return result


class LogfireOpenAIAdapter(LogfireRawAdapter):
    library = "logfire-openai"

    def instrument(self) -> None:
        import logfire
        import openai

        logfire.instrument_openai(openai.OpenAI)
        if not getattr(openai.OpenAI, "_is_instrumented_by_logfire", False):
            raise RuntimeError("logfire did not instrument openai.OpenAI")


class LogfireAnthropicAdapter(LogfireRawAdapter):
    library = "logfire-anthropic"

    def instrument(self) -> None:
        import anthropic
        import logfire

        logfire.instrument_anthropic(anthropic.Anthropic)
        if not getattr(anthropic.Anthropic, "_is_instrumented_by_logfire", False):
            raise RuntimeError("logfire did not instrument anthropic.Anthropic")


class LogfireGoogleGenAIAdapter(LogfireRawAdapter):
    library = "logfire-google-genai"

    def instrument(self) -> None:
        import os

        import logfire
        from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

        # Content on the spans, as the docs of `instrument_google_genai` say to capture prompts and completions.
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
        logfire.instrument_google_genai()
        if not GoogleGenAiSdkInstrumentor().is_instrumented_by_opentelemetry:
            raise RuntimeError("logfire did not instrument google-genai (version conflict?)")


class LogfireLiteLLMAdapter(LogfireRawAdapter):
    library = "logfire-litellm"

    def instrument(self) -> None:
        import os

        # LiteLLM fetches its model price list from the web at import unless told to keep its packaged copy.
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        import litellm
        import logfire

        # `instrument_litellm` is OpenInference's LiteLLMInstrumentor on Logfire's tracer provider (content at its
        # default: on); it wraps `litellm.completion` in place.
        from openinference.instrumentation.litellm import LiteLLMInstrumentor

        logfire.instrument_litellm()
        # The instrumentor sets its own bound wrapper method in place of `litellm.completion` (no `__wrapped__`).
        if "completion" not in LiteLLMInstrumentor.original_litellm_funcs or litellm.completion is \
                LiteLLMInstrumentor.original_litellm_funcs["completion"]:
            raise RuntimeError("logfire did not instrument litellm (litellm.completion not replaced)")


ADAPTERS = {"logfire-openai": LogfireOpenAIAdapter, "logfire-anthropic": LogfireAnthropicAdapter,
            "logfire-google-genai": LogfireGoogleGenAIAdapter, "logfire-litellm": LogfireLiteLLMAdapter}


def run_logfire_raw(adapter: LogfireRawAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    if isinstance(adapter, LogfireGoogleGenAIAdapter):
        from corpusgen.connect_guard import note_connections
        from corpusgen.raw_loop_gemini import run_raw_gemini

        try:
            run_raw_gemini(adapter, scenario, base_url, truth)
        finally:
            note_connections(adapter.guard, truth)
        return
    if isinstance(adapter, LogfireLiteLLMAdapter):
        from corpusgen.connect_guard import note_connections
        from corpusgen.raw_loop import run_raw

        from apps.litellm_app import LITELLM_MODEL, litellm_complete

        try:
            truth.notes.append(f"every model request sent by litellm.completion(model={LITELLM_MODEL!r})")
            run_raw(adapter, scenario, base_url, truth, complete=litellm_complete)
        finally:
            note_connections(adapter.guard, truth)
        return
    from corpusgen.raw_loops import run_raw_loop

    run_raw_loop(adapter, isinstance(adapter, LogfireAnthropicAdapter), scenario, base_url, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_logfire_raw)


if __name__ == "__main__":
    sys.exit(main())
