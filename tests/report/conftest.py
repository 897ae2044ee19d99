from __future__ import annotations

from pathlib import Path

import pytest

from processor.config import Config
from processor.report.files import bundles_from_inputs
from tests.report.support import thousand_node_bundles

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
SCENARIOS = ("openai-agents-v2/tool_loop", "openai-agents-v2/handoff", "traceloop-openai/parallel_tools",
             "openai-v2-content-on/model_429", "openinference-openai/hallucinated_tool")


@pytest.fixture(scope="session")
def corpus_files() -> list[Path]:
    return [CORPUS / scenario / "trace.otlp.json" for scenario in SCENARIOS]


@pytest.fixture(scope="session")
def corpus_bundles(corpus_files: list[Path]) -> list[dict[str, object]]:
    return bundles_from_inputs(corpus_files, Config())


@pytest.fixture(scope="session")
def big_bundles() -> list[dict[str, object]]:
    return thousand_node_bundles()
