"""The raw tool loop on OpenAI's Chat Completions (:mod:`corpusgen.raw_loop`) or Anthropic's Messages API
(:mod:`corpusgen.raw_loop_anthropic`), for the apps that trace both raw loops under one instrumentation."""

from __future__ import annotations

from corpusgen.connect_guard import note_connections
from corpusgen.raw_loop import run_raw
from corpusgen.raw_loop_anthropic import run_raw_anthropic
from corpusgen.truth import Truth


def run_raw_loop(adapter, anthropic: bool, scenario: str, base_url: str, truth: Truth) -> None:
    """One of the two raw loops for ``adapter``; the connections its guard (``adapter.guard``) saw go into the truth's
    notes whatever happens."""
    try:
        (run_raw_anthropic if anthropic else run_raw)(adapter, scenario, base_url, truth)
    finally:
        note_connections(adapter.guard, truth)
