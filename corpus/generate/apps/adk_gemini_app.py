"""Google ADK (`google-adk`) on its default model path: an `LlmAgent` whose model is ADK's `Gemini` class
(`gemini-2.5-flash`) calling the Gemini Developer API through google-genai, pointed at the fake server's Gemini face
(corpusgen/fake_gemini.py), traced by ADK's own OpenTelemetry spans (telemetry schema v2, the default) or by
OpenInference's Google ADK instrumentation:

    .venvs/adk-gemini/bin/python -m apps.adk_gemini_app --lib adk-gemini-native --scenario handoff --out DIR
    .venvs/openinference-adk-gemini/bin/python -m apps.adk_gemini_app --lib openinference-google-adk-gemini \
        --scenario handoff --out DIR

The agents, tools, scripts and ground truth are those of `apps/adk_app.py` (`run_adk`); only the model path differs
(`adk-native` and `openinference-google-adk` drive the same agents through ADK's LiteLlm wrapper on the fake OpenAI
face). How the model reaches the fake server (read in google-adk 2.13.0 and google-genai 2.34.0):

- the endpoint: `GOOGLE_GEMINI_BASE_URL` (google-genai reads it when the client's `http_options.base_url` is unset,
  which ADK leaves unset unless `Gemini.base_url` is given) and the key `GOOGLE_API_KEY`;
- the request hook and the timeout: `Gemini.client_kwargs` (ADK's documented way to pass `google.genai.Client`
  options: an `HttpOptions` with `timeout` and httpx `event_hooks` in `async_client_args`); the hook sends the OTel
  span current at send time (ADK's `generate_content` span) to the fake server;
- the 429 retry: `Gemini.retry_options` (google-genai's own tenacity retry, inside the same `generate_content` span);
  no retry otherwise (google-genai makes one attempt when no retry options are set).

Ground truth as for `adk-native`: model spans from the request header, tool executions from the tool bodies
(`ToolContext.function_call_id`), agent spans from `before_agent_callback`, the run from a plugin's
`before_run_callback`, the transfer from `before_tool_callback`; the failure from the exception google-genai raises.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import run_one  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.adk_app import CLIENT_TIMEOUT_S, AdkAdapter, run_adk  # noqa: E402

GEMINI_MODEL = "gemini-2.5-flash"


class GeminiPath:
    """ADK's `Gemini` model class on google-genai's async client (httpx), at the fake server's Gemini face."""

    def connect(self, base_url: str, event_hooks: dict) -> None:
        # The fake server's base URL ends in /v1; google-genai adds /v1beta/models/<model>:generateContent.
        os.environ["GOOGLE_GEMINI_BASE_URL"] = base_url[:-3] if base_url.endswith("/v1") else base_url
        os.environ["GOOGLE_API_KEY"] = "corpus-fake-gemini-key"
        os.environ.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
        self.event_hooks = event_hooks
        self.retry = None

    def model(self):
        from google.adk.models import Gemini
        from google.genai import types

        options = types.HttpOptions(timeout=int(CLIENT_TIMEOUT_S * 1000),
                                    async_client_args={"event_hooks": self.event_hooks})
        return Gemini(model=GEMINI_MODEL, retry_options=self.retry, client_kwargs={"http_options": options})

    def config(self, scenario: str, truth: Truth):
        from google.genai import types

        if scenario == "model_429":
            # Only the 429 scenario's script expects a retry: google-genai re-sends once, inside the same span.
            self.retry = types.HttpRetryOptions(attempts=2, initial_delay=0.1, max_delay=0.2, http_status_codes=[429])
            truth.notes.append("Gemini(retry_options=HttpRetryOptions(attempts=2)): google-genai retried the model "
                               "request once after HTTP 429")
        return types.GenerateContentConfig(temperature=0.2)

    def failure(self, exc: Exception) -> str:
        import httpx
        from google.genai import errors

        if isinstance(exc, httpx.TimeoutException):
            return "infra_timeout"
        if isinstance(exc, errors.APIError) and exc.code == 429:
            return "rate_limited"
        return "error"


class AdkGeminiAdapter(AdkAdapter):
    """ADK's native spans (schema v2, GenAI latest experimental, content on spans), the Gemini model path."""
    library = "adk-gemini-native"

    def __init__(self):
        super().__init__()
        self.model_path = GeminiPath()


def openinference_adapter():
    """The same app under OpenInference's Google ADK instrumentation (`openinference-google-adk`'s adapter: its
    `invocation` / `agent_run` spans name the run and the agent runs), on the Gemini model path."""
    from apps.openinference_adk_app import OpenInferenceAdkAdapter

    class OpenInferenceAdkGeminiAdapter(OpenInferenceAdkAdapter):
        library = "openinference-google-adk-gemini"

        def __init__(self):
            super().__init__()
            self.model_path = GeminiPath()

    return OpenInferenceAdkGeminiAdapter()


# Label rules of each library (corpusgen/truth.py), as for its LiteLlm form (adk-native, openinference-google-adk).
ADAPTERS = {
    # google-genai's retry (model_429) re-sends inside ADK's one generate_content span: one model call.
    "adk-gemini-native": (AdkGeminiAdapter, {"model_calls_by_span": True}),
    # The instrumentor swallows ADK's `generate_content` span: every request of an agent run is sent under ADK's
    # `invoke_agent` span, on which it writes each answer's LLM attributes, each over the last (`trace_call_llm`).
    "openinference-google-adk-gemini": (openinference_adapter, {"model_calls_by_span": True,
                                                                "failed_request_input_recorded": False,
                                                                "usage_recorded_per_span": "last"}),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    make, rules = ADAPTERS[a.lib]
    adapter = make()
    meta = {"library": adapter.library, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content, **rules}
    return run_one(meta, adapter, run_adk, Path(a.out), family="adk")


if __name__ == "__main__":
    sys.exit(main())
