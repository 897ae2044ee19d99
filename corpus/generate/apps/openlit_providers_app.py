"""The raw agent loops on Amazon Bedrock's Converse API (boto3 `bedrock-runtime`, `converse` with `toolConfig`) and on
the Google Gen AI SDK (`client.models.generate_content` with function declarations) against the fake server, traced by
OpenLIT (`openlit.init` with only its Bedrock or only its Google AI Studio instrumentor):

    .venvs/openlit-providers/bin/python -m apps.openlit_providers_app --lib openlit-bedrock --scenario plain_tool_use --out DIR
    .venvs/openlit-providers/bin/python -m apps.openlit_providers_app --lib openlit-google-genai --scenario handoff --out DIR

The loops are `corpusgen/raw_loop_bedrock.py` (`run_raw_bedrock`, as the Frameworks AX directories) and
`corpusgen/raw_loop_gemini.py` (`run_raw_gemini`, as the Frameworks AW directories). OpenLIT's Bedrock instrumentor wraps
`botocore.client.ClientCreator.create_client` and replaces `converse` on each `bedrock-runtime` client it creates; its
Google AI Studio instrumentor wraps `google.genai.models.Models.generate_content`. Each opens a `chat <model>` CLIENT
span current while the request is sent. The app's workflow, agent and tool spans are OpenLIT's manual tracer
(`openlit.start_trace`), the adapter of `apps/openlit_raw_app.py` (openlit-openai / openlit-anthropic).

Ground truth as for every raw loop: model calls from the request header (the span current at send time: OpenLIT's
chat span), tool executions and agents from inside their bodies (the manual spans), never read back from the trace.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.raw_loop_bedrock import BEDROCK_MODEL_ID, run_raw_bedrock  # noqa: E402
from corpusgen.raw_loop_gemini import GEMINI_MODEL, run_raw_gemini  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.openlit_raw_app import OpenlitRawAdapter  # noqa: E402


class OpenlitBedrockAdapter(OpenlitRawAdapter):
    library = "openlit-bedrock"
    instrumentor = "bedrock"
    # Its Converse handler writes only the text blocks of the request's messages and of the answer
    # (`build_input_messages` / `build_output_messages` in `instrumentation/bedrock/utils.py`): the `toolUse` blocks of an
    # answer and of the replayed assistant turns, and the `toolResult` blocks of the next request, are in no span. And,
    # as for its other client instrumentors, a request that raised records no input.
    label_rules = {"model_output_recorded": False, "model_input_recorded": False,
                   "failed_request_input_recorded": False}

    def check_instrumented(self) -> None:
        from botocore.client import ClientCreator

        if not hasattr(ClientCreator.create_client, "__wrapped__"):
            raise RuntimeError("openlit did not instrument boto3 (ClientCreator.create_client not wrapped)")


class OpenlitGoogleGenAIAdapter(OpenlitRawAdapter):
    library = "openlit-google-genai"
    instrumentor = "google-ai-studio"

    def check_instrumented(self) -> None:
        from google.genai.models import Models

        if not hasattr(Models.generate_content, "__wrapped__"):
            raise RuntimeError("openlit did not instrument google-genai (Models.generate_content not wrapped)")


ADAPTERS = {"openlit-bedrock": OpenlitBedrockAdapter, "openlit-google-genai": OpenlitGoogleGenAIAdapter}


def run_openlit_provider(adapter: OpenlitRawAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    try:
        if adapter.instrumentor == "bedrock":
            truth.notes.append(f"every model request sent by boto3 bedrock-runtime converse(modelId={BEDROCK_MODEL_ID!r})")
            run_raw_bedrock(adapter, scenario, base_url, truth)
        else:
            truth.notes.append(f"every model request sent by google-genai models.generate_content(model={GEMINI_MODEL!r})")
            run_raw_gemini(adapter, scenario, base_url, truth)
    finally:
        hosts = sorted({h for h, _ in adapter.guard.seen})
        truth.notes.append(f"python socket connections: {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    return adapters_main(ADAPTERS, run_openlit_provider)


if __name__ == "__main__":
    sys.exit(main())
