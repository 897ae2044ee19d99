"""The corpus mapped once per session with ``otel-trajectory map`` (a price table and rights granting local
evaluation), shared by the attribution, replay and dataset tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from processor.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus" / "traces"
CORPUS_CONFIG = ROOT / "corpus" / "config.yaml"

MAP_CONFIG = """
output:
  content_mode: keep
  rights: {retention: granted, local_evaluation: granted}
pricing:
  models:  # one rate for every model of the corpus (the tests compute costs with it)
    gpt-4o-mini: {input_per_million: 0.15, output_per_million: 0.60}
    openai/gpt-4o-mini: {input_per_million: 0.15, output_per_million: 0.60}
    claude-haiku-4-5: {input_per_million: 0.15, output_per_million: 0.60}
    anthropic.claude-3-5-haiku-20241022-v1:0: {input_per_million: 0.15, output_per_million: 0.60}
    claude-3-5-haiku-20241022-v1:0: {input_per_million: 0.15, output_per_million: 0.60}
    gemini-2.5-flash: {input_per_million: 0.15, output_per_million: 0.60}
    mistral-small-latest: {input_per_million: 0.15, output_per_million: 0.60}
    llama-3.3-70b-versatile: {input_per_million: 0.15, output_per_million: 0.60}
    command-a-03-2025: {input_per_million: 0.15, output_per_million: 0.60}
    palmyra-x5: {input_per_million: 0.15, output_per_million: 0.60}
    llama3.2: {input_per_million: 0.15, output_per_million: 0.60}
    projects/corpus-project/locations/us-central1/publishers/google/models/gemini-2.5-flash: {input_per_million: 0.15, output_per_million: 0.60}
"""


def corpus_labels() -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(CORPUS.glob("*/*/labels.json"))]


@pytest.fixture(scope="session")
def mapped_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``map`` output of every corpus trace: ``<dir>/<trace id>/{bundle,ledger,spans.otlp}.json``."""
    work = tmp_path_factory.mktemp("mapped")
    config = work / "config.yaml"
    detectors = CORPUS_CONFIG.read_text()
    config.write_text(MAP_CONFIG + detectors[detectors.index("detectors:"):])
    output = work / "out"
    inputs = [str(path) for path in sorted(CORPUS.glob("*/*/trace.otlp.json"))]
    assert main(["map", *inputs, "--config", str(config), "--output-dir", str(output)]) == 0
    return output
