"""The OpenAI Agents SDK (`openai-agents`) on its default model API, the Responses API (`OpenAIResponsesModel`,
`POST /v1/responses`, non-streamed: `Runner.run`), traced by OpenInference's Agents SDK instrumentation. Run inside
the openinference-openai-agents-responses venv:

    .venvs/openinference-openai-agents-responses/bin/python -m apps.openinference_openai_agents_responses_app \
        --lib openinference-openai-agents-responses --scenario handoff --out DIR

The agents, tools, scenarios, model client (`max_retries=0`, 1 s timeout, the request-marking hook), app-level retry
after a 429 and label rules are those of `apps/agents.py` (`run_agents`, its `TruthProcessor`), as for
`openinference-openai-agents`; only the model API differs: the app leaves the SDK at its default instead of switching
it to Chat Completions, so each model turn is one SDK `response` span (not `generation`) and one `POST /v1/responses`
answered by the fake server's Responses face (`corpusgen/fake_responses.py`) from the same scripts.

Ground truth, never read back from the exported trace:
- model calls: the SDK span current when each HTTP request is sent (`x-corpus-sdk-span`, the `response` span) mapped to
  the OTel span OpenInference opened for it (its in-flight span map, read by the `TruthProcessor`); the server log
  says what each request answered (status, call ids, usage) and which tool results (`function_call_output` items) its
  input carried;
- tool executions, agents, steps, the handoff: as for `openinference-openai-agents`.
Declared (read in the instrumentation's source, `_processor.py` `on_span_end`): OpenInference writes a `response`
span's input and output only from the SDK's span data, which the SDK fills only when the response arrived
(`OpenAIResponsesModel.get_response`): a failed request (429, 500, timeout) records no input.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import otlp_sdk_pipeline, run_one  # noqa: E402

LIBRARY = "openinference-openai-agents-responses"


def _adapter_class():
    from apps.agents import KIND_MAPS, AgentsAdapter, TruthProcessor

    class OpenInferenceAgentsResponsesAdapter(AgentsAdapter):
        """OpenInference's Agents SDK instrumentation (no other), the SDK on the Responses API."""

        # The SDK's `response` span (one per Responses request) is OpenInference's LLM span: the model call.
        kind_map = {**KIND_MAPS["openinference-openai-agents"], "response": "model_call"}
        model_api = "responses"

        def __init__(self):  # the parent's tables of libraries do not hold this one
            self.library = LIBRARY
            self.convention = "openinference"
            self.content = True
            self.truth_proc = TruthProcessor()
            self.runner_proc = None

        def setup(self, endpoint):
            from agents import add_trace_processor, set_trace_processors
            from corpusgen.connect_guard import ConnectGuard
            from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

            self.guard = ConnectGuard()
            provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI
            OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)
            add_trace_processor(self.truth_proc)

        def shutdown(self):
            super().shutdown()
            if self.guard.refused:
                raise RuntimeError(f"refused connections: {self.guard.refused}")

    return OpenInferenceAgentsResponsesAdapter


def run_agents_responses(adapter, scenario: str, base_url: str, truth) -> None:
    from apps.agents import run_agents

    run_agents(adapter, scenario, base_url, truth)
    apis = sorted({r.get("api", "openai.chat_completions") for r in truth.server_log})
    if apis != ["openai.responses"]:
        raise RuntimeError(f"expected Responses API requests only, the server saw {apis}")
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"model API: responses; python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = _adapter_class()()
    meta = {"library": LIBRARY, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content,
            # A failed request's `response` span records no input (see above): nothing shows what it consumed.
            "failed_request_input_recorded": False}
    return run_one(meta, adapter, run_agents_responses, Path(a.out), family="agents")


if __name__ == "__main__":
    sys.exit(main())
