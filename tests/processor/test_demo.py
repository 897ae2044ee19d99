"""``otel-trajectory demo`` (what ``make demo`` runs) works from the checkout: it finds the embedded corpus, sends
every span through ``serve`` over loopback and gets every one back annotated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from processor.cli import main
from processor.cli.demo import corpus_root

pytestmark = pytest.mark.slow


def test_the_demo_finds_the_corpus_of_the_checkout() -> None:
    root = corpus_root()
    assert root == Path(__file__).resolve().parents[2] / "corpus"
    assert any((root / "traces").glob("**/trace.otlp.json"))


def test_the_demo_gets_every_span_back_annotated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--output-dir", str(tmp_path)])

    out = capsys.readouterr().out
    assert code == 0, out
    sent, files, received = map(int, re.search(r"sent (\d+) spans in (\d+) corpus files; received (\d+)", out).groups())  # type: ignore[union-attr]
    assert files == len(list((corpus_root() / "traces").glob("**/trace.otlp.json")))
    assert sent == received > 0
    assert len(list(tmp_path.glob("*/bundle.json"))) >= files
