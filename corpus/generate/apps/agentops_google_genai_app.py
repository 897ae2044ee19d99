"""The raw agent loop over the Google Gen AI SDK (`corpusgen/raw_loop_gemini.py`, `models.generate_content` at the fake
server's Gemini face: the loop of `openinference-google-genai` / `laminar-google-genai`) traced by AgentOps (`agentops`,
its OpenTelemetry-based SDK: its Google Gen AI instrumentation, the app's units under its decorators). Run inside the
agentops-google-genai venv:

    .venvs/agentops-google-genai/bin/python -m apps.agentops_google_genai_app --lib agentops-google-genai \
        --scenario handoff --out DIR

AgentOps is set up as for `agentops-openai` / `agentops-anthropic` (`apps/agentops_openai_app.py`, whose adapter this
one extends): `agentops.init(exporter_endpoint=...)` with no API key and every other option at its default, its
OTLP/HTTP span exporter pointed at the local relay to the capture server (`corpusgen/otlp_http_relay.py`), a connect
guard that refuses anything but loopback. `google.genai` is imported before `init` and no agentic library is: its
import monitor keeps its Google Gen AI instrumentation on (spans around `Models.generate_content`). The app's workflow,
agents and tools are functions under AgentOps' own decorators, as in `agentops-openai`.

Ground truth as in every raw loop, never read back from the exported trace: the span current inside each workflow,
agent and tool body, the span current when each HTTP request is sent (the request header), the server log; the
session span from `agentops.init()`'s return value is the run's outermost workflow step. The app ends the session with
`agentops.end_trace(end_state=...)` after the run (NOTES-frameworks-dk.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main  # noqa: E402
from corpusgen.raw_loop_gemini import run_raw_gemini  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.agentops_frameworks_app import _end_session, _start_agentops  # noqa: E402
from apps.agentops_openai_app import AgentOpsOpenAIAdapter  # noqa: E402

LIBRARY = "agentops-google-genai"


class AgentOpsGoogleGenAIAdapter(AgentOpsOpenAIAdapter):
    """agentops: its session span, its Google Gen AI client spans, the app's units under its decorators (the OpenAI
    adapter's `workflow` / `agent` / `tool`, relay, connect guard and shutdown)."""

    library = LIBRARY
    # What its Google Gen AI wrapper records of a request (its `_set_prompt_attributes` / `_set_response_attributes`):
    # the text parts only. An answer's `function_call` parts and a request's `function_response` parts have no text, so
    # no span shows a proposed call or a consumed result; the offered tools are not recorded. The tool span's output
    # (the loop's "unknown tool" answer) and input (the call's arguments) are AgentOps' decorator's.
    label_rules = {"model_output_recorded": False, "model_input_recorded": False}

    def setup(self, endpoint):
        self.endpoint = endpoint
        _start_agentops(self, ("google.genai",))
        from agentops import instrumentation
        from google.genai.models import Models

        # Its import monitor turns the Google Gen AI instrumentor on when `google.genai.models` is imported: read
        # the active instrumentors again after that import.
        self.instrumentors = sorted(type(i).__name__ for i in instrumentation._active_instrumentors)
        if not hasattr(Models.generate_content, "__wrapped__"):
            raise RuntimeError(f"agentops did not instrument the Google Gen AI client (Models.generate_content not "
                               f"wrapped); active: {self.instrumentors}")


def run_agentops_google_genai(adapter: AgentOpsGoogleGenAIAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        run_raw_gemini(adapter, scenario, base_url, truth)
    finally:
        _end_session(adapter, truth)


def main() -> int:
    adapter = AgentOpsGoogleGenAIAdapter()
    return app_main(adapter, run_agentops_google_genai, extra_meta=adapter.label_rules)


if __name__ == "__main__":
    sys.exit(main())
