"""The raw agent loops on Amazon Bedrock's Converse API (boto3 `bedrock-runtime`, `converse` with `toolConfig`) and on
the Google Gen AI SDK (`client.models.generate_content` with function declarations) against the fake server, traced by
MLflow Tracing (`mlflow-tracing`): `mlflow.bedrock.autolog()` or `mlflow.gemini.autolog()`, and the app's own spans from
`@mlflow.trace`.

    .venvs/mlflow-raw/bin/python -m apps.mlflow_providers_app --lib mlflow-bedrock --scenario plain_tool_use --out DIR
    .venvs/mlflow-raw/bin/python -m apps.mlflow_providers_app --lib mlflow-google-genai --scenario handoff --out DIR

The loops are `corpusgen/raw_loop_bedrock.py` (`run_raw_bedrock`, as the Frameworks AX directories) and
`corpusgen/raw_loop_gemini.py` (`run_raw_gemini`, as the Frameworks AW directories). How MLflow traces the clients (read
in mlflow-tracing 3.17.2): `mlflow/bedrock/__init__.py` patches boto3's `ClientCreator.create_client`, which patches
`converse` on each `bedrock-runtime` client class it creates (`mlflow/bedrock/_autolog.py`: a CHAT_MODEL span
`BedrockRuntime.converse` opened by `mlflow.start_span`, current while the request is sent); `mlflow/gemini/__init__.py`
patches `google.genai.models.Models.generate_content` and the `_generate_content` it calls (`mlflow/gemini/autolog.py`:
an LLM span each, `Models.generate_content` around `Models._generate_content`, each opened by `start_span_no_context`
and set in MLflow's context; the inner one names itself in the request's `traceparent` header). The app's workflow,
agent and tool spans are the adapter of `apps/mlflow_raw_app.py` (mlflow-openai / mlflow-anthropic).

Ground truth as for every raw loop: tool executions and agents from inside their bodies (MLflow's current span); model
calls from the request header, the span the client patch opened for the call that sends it (kept by the adapter's span
processor while it is open: for Gemini the inner `Models._generate_content` span, the one that sends the request).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import note_connections  # noqa: E402
from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.raw_loop_bedrock import BEDROCK_MODEL_ID, run_raw_bedrock  # noqa: E402
from corpusgen.raw_loop_gemini import GEMINI_MODEL, run_raw_gemini  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

from apps.mlflow_raw_app import MlflowRawAdapter  # noqa: E402


class MlflowBedrockAdapter(MlflowRawAdapter):
    library = "mlflow-bedrock"
    client_span = "BedrockRuntime.converse"

    def autolog(self) -> None:
        import mlflow.bedrock
        from botocore.client import ClientCreator

        original = ClientCreator.create_client
        mlflow.bedrock.autolog()
        if ClientCreator.create_client is original:
            raise RuntimeError("mlflow.bedrock.autolog did not patch ClientCreator.create_client")

    def run(self, scenario: str, base_url: str, truth: Truth) -> None:
        truth.notes.append(f"every model request sent by boto3 bedrock-runtime converse(modelId={BEDROCK_MODEL_ID!r})")
        run_raw_bedrock(self, scenario, base_url, truth)


class MlflowGeminiAdapter(MlflowRawAdapter):
    library = "mlflow-google-genai"
    client_span = "Models._generate_content"  # inside `Models.generate_content`: the span that sends the request

    def autolog(self) -> None:
        import mlflow.gemini
        from google.genai.models import Models

        original = Models._generate_content
        mlflow.gemini.autolog()
        if Models._generate_content is original:
            raise RuntimeError("mlflow.gemini.autolog did not patch Models._generate_content")

    def run(self, scenario: str, base_url: str, truth: Truth) -> None:
        truth.notes.append(f"every model request sent by google-genai models.generate_content(model={GEMINI_MODEL!r})")
        run_raw_gemini(self, scenario, base_url, truth)


ADAPTERS = {"mlflow-bedrock": MlflowBedrockAdapter, "mlflow-google-genai": MlflowGeminiAdapter}


def run_mlflow_provider(adapter: MlflowBedrockAdapter | MlflowGeminiAdapter, scenario: str, base_url: str,
                        truth: Truth) -> None:
    try:
        adapter.run(scenario, base_url, truth)
    finally:
        note_connections(adapter.guard, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_mlflow_provider)


if __name__ == "__main__":
    sys.exit(main())
