"""The raw Bedrock loop's streamed option (`corpus/generate/corpusgen/raw_loop_bedrock.py`, `read_converse_stream`): a
ConverseStream response's events read into the answer `converse` returns."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("boto3")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "corpus" / "generate"))

from corpusgen.raw_loop_bedrock import read_converse_stream  # noqa: E402


def test_text_and_tool_use_blocks_are_joined_per_index() -> None:
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "Let me "}, "contentBlockIndex": 0}},
        {"contentBlockDelta": {"delta": {"text": "look."}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}},
                               "contentBlockIndex": 1}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": '{"city": '}}, "contentBlockIndex": 1}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": '"Paris"}'}}, "contentBlockIndex": 1}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 7, "totalTokens": 17}, "metrics": {"latencyMs": 3}}},
    ]

    answer = read_converse_stream({"stream": iter(events)})

    assert answer == {
        "output": {"message": {"role": "assistant", "content": [
            {"text": "Let me look."},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}},
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 10, "outputTokens": 7, "totalTokens": 17},
    }


def test_a_tool_use_without_input_deltas_has_empty_input() -> None:
    events = [
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "tooluse_2", "name": "list_orders"}},
                               "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]

    answer = read_converse_stream({"stream": iter(events)})

    assert answer["output"]["message"]["content"] == [
        {"toolUse": {"toolUseId": "tooluse_2", "name": "list_orders", "input": {}}}]
