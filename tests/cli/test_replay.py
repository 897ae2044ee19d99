"""``otel-trajectory replay``: static replay of recorded traces under a new configuration."""

from __future__ import annotations

import io
import json
from argparse import Namespace
from pathlib import Path

import pytest

from otel_mapper.diagnosis import Diagnosis, Finding, RankedFinding
from otel_mapper.replay import Change, compare
from processor.cli import replay_cmd
from processor.cli.main import main
from semconv.trajectory import FindingCategory, FindingStatus, Severity, TerminalStatus, Verdict
from tests.cli.conftest import CORPUS, CORPUS_CONFIG, corpus_labels

FORBID = "search_docs"


def _new_config(tmp_path: Path) -> Path:
    text = CORPUS_CONFIG.read_text().replace('forbidden_tools: ["delete_*"]', f'forbidden_tools: ["delete_*", "{FORBID}"]')
    assert FORBID in text
    path = tmp_path / "new.yaml"
    path.write_text(text)
    return path


def _replay(inputs: list[Path], config: Path, baseline: Path | None) -> tuple[int, str]:
    out = io.StringIO()
    args = Namespace(inputs=inputs, config=config, baseline_config=baseline, json=True)
    return replay_cmd.run(args, out), out.getvalue()


def _callers() -> set[str]:
    """Traces whose app executed the tool (ground truth from the fake model server's log)."""
    return {
        labels["trace_id"]
        for labels in corpus_labels()
        if any(item["tool_name"] == FORBID for item in labels["ground_truth"]["tool_executions"])
    }


def test_a_newly_forbidden_tool_reports_exactly_the_traces_that_called_it(tmp_path: Path) -> None:
    code, output = _replay([CORPUS], _new_config(tmp_path), CORPUS_CONFIG)
    records = [json.loads(line) for line in output.splitlines()]
    assert code == 1
    assert {r["trace_id"] for r in records if r["change"] == "new_failure"} == _callers()
    assert len(_callers()) >= 14 and all(r["change"] == "new_failure" for r in records)  # 14 in the first 84 traces
    for record in records:
        assert record["after"]["verdict"] == "fail"
        assert {"category": "policy_violation"}.items() <= record["new_findings"][0].items()
        assert set(record) >= {"trace_id", "change", "before", "after"}


def test_an_unchanged_config_reports_nothing_and_exits_0(tmp_path: Path) -> None:
    code, output = _replay([CORPUS], CORPUS_CONFIG, CORPUS_CONFIG)
    assert (code, output) == (0, "")


def test_replay_of_what_map_wrote_matches_replay_of_the_original_spans(tmp_path: Path, mapped_corpus: Path) -> None:
    # spans.otlp.json carries our own annotations (verdicts, finding events): replay removes them first
    code, output = _replay([mapped_corpus], _new_config(tmp_path), CORPUS_CONFIG)
    assert code == 1
    assert {json.loads(line)["trace_id"] for line in output.splitlines()} == _callers()


def test_bad_input_exits_2(tmp_path: Path) -> None:
    not_spans = tmp_path / "notes.txt"
    not_spans.write_text("hello")
    assert main(["replay", str(tmp_path / "missing.json"), "--config", str(CORPUS_CONFIG)]) == 2
    assert main(["replay", str(not_spans), "--config", str(CORPUS_CONFIG)]) == 2
    bad_config = tmp_path / "bad.yaml"
    bad_config.write_text("detectors: {policy: {forbidden_tools: 3}}\n")
    assert main(["replay", str(CORPUS / "openai-v2-content-on" / "forbidden_tool"), "--config", str(bad_config)]) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["replay", str(empty), "--config", str(CORPUS_CONFIG)]) == 2


def _diagnosis(*findings: tuple[FindingCategory, str], verdict: Verdict = Verdict.FAIL) -> Diagnosis:
    chain = tuple(
        RankedFinding(
            finding=Finding(category=category, severity=Severity.HIGH, status=FindingStatus.FAIL, node_id=node,
                            evidence="e"),
            rank=rank, span_id=node[5:], causal_depth=0,
        )
        for rank, (category, node) in enumerate(findings, start=1)
    )
    root = findings[0][0].value if findings else "none"
    return Diagnosis(verdict=verdict, root_cause=root, terminal_status=TerminalStatus.SUCCESS, chain=chain,
                     verifier_results=())


@pytest.mark.parametrize(
    ("before", "after", "change"),
    [
        (_diagnosis(verdict=Verdict.PASS), _diagnosis((FindingCategory.TOOL_LOOP, "span:a")), Change.NEW_FAILURE),
        (_diagnosis((FindingCategory.TOOL_LOOP, "span:a")), _diagnosis(verdict=Verdict.PASS), Change.FIXED),
        (_diagnosis((FindingCategory.TOOL_LOOP, "span:a"), (FindingCategory.TOOL_ERROR, "span:b")),
         _diagnosis((FindingCategory.TOOL_ERROR, "span:b")), Change.ROOT_CAUSE_CHANGED),
        (_diagnosis((FindingCategory.TOOL_LOOP, "span:a"), (FindingCategory.TOOL_LOOP, "span:b")),
         _diagnosis((FindingCategory.TOOL_LOOP, "span:b"), (FindingCategory.TOOL_LOOP, "span:a")), Change.ANCHOR_CHANGED),
        (_diagnosis((FindingCategory.TOOL_LOOP, "span:a"), (FindingCategory.TOOL_ERROR, "span:b")),
         _diagnosis((FindingCategory.TOOL_LOOP, "span:a")), Change.FIXED),
        (_diagnosis((FindingCategory.TOOL_LOOP, "span:a")), _diagnosis((FindingCategory.TOOL_LOOP, "span:a")),
         Change.UNCHANGED),
    ],
    ids=["new_failure", "fixed", "root_cause_changed", "anchor_changed", "partly_fixed", "unchanged"],
)
def test_change_kinds(before: Diagnosis, after: Diagnosis, change: Change) -> None:
    assert compare(before, after).change is change
