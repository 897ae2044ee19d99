"""Fixtures of the corpus generator's own tests."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

_GENERATE = Path(__file__).resolve().parents[2] / "corpus" / "generate"


@pytest.fixture(scope="module")
def truth_module() -> ModuleType:
    """`corpus/generate/corpusgen/truth.py`, imported from the generator's folder without leaving it on the path."""
    sys.path.insert(0, str(_GENERATE))
    try:
        from corpusgen import truth
    finally:
        sys.path.remove(str(_GENERATE))
    return truth
