"""``otel-trajectory eval``: scores a labelled directory; text and JSON output; config problems exit 2."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from processor.cli import eval_cmd

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
CONFIG = Path(__file__).parent / "data" / "corpus-config.yaml"
SCENARIOS = ("tool_loop", "write_without_read", "model_timeout")


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    eval_cmd.add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    source = CORPUS / "openai-v2-content-on"
    if not all((source / name / "labels.json").exists() for name in SCENARIOS):
        pytest.skip("corpus traces not present")
    for name in SCENARIOS:
        shutil.copytree(source / name, tmp_path / "lib" / name)
    shutil.copy(CONFIG, tmp_path / "config.yaml")
    return tmp_path


def test_json_report_scores_categories_and_terminal_status(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert eval_cmd.run(_args(str(corpus), "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["traces"] == 3
    for category in ("tool_loop", "order_violation", "infra_timeout"):
        tally = report["categories"][category]
        assert tally["tp"] == 1 and tally["fn"] == 0, (category, report["misses"])
    assert report["terminal_status_accuracy"] == 1.0


def test_text_report_lists_misses_with_trace_path(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = corpus / "lib" / "tool_loop" / "labels.json"
    data = json.loads(labels.read_text())
    data["findings"].append({"category": "state_stall", "status": "fail", "anchor_span": "0000000000000001"})
    labels.write_text(json.dumps(data))

    assert eval_cmd.run(_args(str(corpus))) == 0

    out = capsys.readouterr().out
    assert "category" in out and "terminal status: 3/3" in out
    assert "lib/tool_loop: state_stall missed span 0000000000000001" in out


def test_config_problems_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.yaml").write_text("detectors: {loop: {min_repeats: 0}}\n")
    assert eval_cmd.run(_args(str(tmp_path), "--config", str(tmp_path / "bad.yaml"))) == 2
    assert "detectors.loop.min_repeats" in capsys.readouterr().err


def test_a_directory_without_labels_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(CORPUS / "openai-v2-content-on" / "tool_loop" / "trace.otlp.json", tmp_path / "trace.otlp.json")

    assert eval_cmd.run(_args(str(tmp_path))) == 2
    assert "no labels.json next to a trace.otlp.json" in capsys.readouterr().err


def test_unfounded_root_causes_are_counted(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = corpus / "lib" / "tool_loop" / "labels.json"
    document = json.loads(labels.read_text())
    document["findings"] = []  # the labels now say nothing failed: a tool_loop root cause has no foundation
    labels.write_text(json.dumps(document))

    assert eval_cmd.run(_args(str(corpus), "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unfounded_root_causes"] == 1
    assert any(miss["kind"] == "unfounded root cause" and miss["trace"] == "lib/tool_loop" for miss in report["misses"])


def _copy(tmp_path: Path, library: str, scenario: str) -> Path:
    source = CORPUS / library / scenario
    if not (source / "labels.json").exists():
        pytest.skip("corpus traces not present")
    shutil.copytree(source, tmp_path / library / scenario)
    shutil.copy(CONFIG, tmp_path / "config.yaml")
    return tmp_path


def test_scores_per_convention_with_link_recall(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert eval_cmd.run(_args(str(corpus), "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    lib = report["conventions"]["lib"]
    assert lib["traces"] == 3 and lib["unfounded_root_causes"] == 0
    assert lib["links"]["evidenced"] > 0 and lib["links"]["recall"] == 1.0 and lib["links"]["wrong"] == 0
    assert lib["categories"]["tool_loop"]["tp"] == 1
    assert report["links"] == lib["links"]  # one convention: the totals are its own

    assert eval_cmd.run(_args(str(corpus))) == 0
    out = capsys.readouterr().out
    assert "model->tool links:" in out and "per convention:" in out
    assert any(line.startswith("lib ") and " 3 " in line for line in out.splitlines())
    assert "lib / tool_loop" in out


def test_an_indeterminate_label_is_matched_by_a_check_that_said_so_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, "openai-v2-content-off", "hallucinated_tool")  # no definitions, no content: undecidable
    assert eval_cmd.run(_args(str(root), "--json")) == 0
    tally = json.loads(capsys.readouterr().out)["categories"]["hallucinated_tool"]
    assert tally["tp"] == 1 and tally["fn"] == 0 and tally["fp"] == 0


def test_an_anchor_no_causal_path_decides_is_counted_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, "traceloop-openai-agents", "tool_loop")  # four identical executions, no call ids, no turns
    assert eval_cmd.run(_args(str(root), "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    tally = report["categories"]["tool_loop"]
    # The finding chose another of the four than the generator's "first" (by wall clock): neither right nor wrong.
    assert tally["tp"] == 1 and tally["anchor_undecidable"] == 1 and tally["anchor_accuracy"] is None
    assert any(miss["kind"] == "anchor undecidable" for miss in report["misses"])


def test_eval_reports_invariance_per_convention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, "openai-v2-content-on", "parallel_tools")
    assert eval_cmd.run(_args(str(root), "--json", "--perturbations", "3")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["invariance"] == {"checked": 1, "invariant": 1, "perturbations": 3, "rate": 1.0}
    assert report["conventions"]["openai-v2-content-on"]["invariance"]["invariant"] == 1

    assert eval_cmd.run(_args(str(root))) == 0
    assert "invariance: 1/1 traces gave the same analysis under 2 shuffles" in capsys.readouterr().out


def test_no_perturbations_checks_nothing_and_a_negative_count_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path, "openai-v2-content-on", "parallel_tools")
    assert eval_cmd.run(_args(str(root), "--json", "--perturbations", "0")) == 0
    assert json.loads(capsys.readouterr().out)["invariance"]["checked"] == 0

    assert eval_cmd.run(_args(str(root), "--perturbations", "-1")) == 2
    assert "--perturbations must be 0 or more" in capsys.readouterr().err


def test_a_label_whose_evidence_is_not_in_the_trace_is_scored_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The 429 was retried inside the span of the request that succeeded: the span ends OK and records nothing of it.
    root = _copy(tmp_path, "openinference-smolagents", "model_429")
    labels = root / "openinference-smolagents" / "model_429" / "labels.json"
    assert eval_cmd.run(_args(str(root), "--json")) == 0
    tally = json.loads(capsys.readouterr().out)["categories"]["rate_limited"]
    assert tally["hidden"] == 1 and tally["tp"] == 0 and tally["fn"] == 0 and tally["recall"] is None

    document = json.loads(labels.read_text())
    for finding in document["findings"]:
        finding.pop("in_trace", None)  # the same label without the declaration is a miss
    labels.write_text(json.dumps(document))
    assert eval_cmd.run(_args(str(root), "--json")) == 0
    report = json.loads(capsys.readouterr().out)
    tally = report["categories"]["rate_limited"]
    assert tally["hidden"] == 0 and tally["fn"] == 1 and tally["recall"] == 0.0
    assert any(miss["kind"] == "missed" and miss["category"] == "rate_limited" for miss in report["misses"])


def test_log_records_beside_the_trace_are_joined_to_their_spans(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The loop's repeated arguments are only in the instrumentation's log records: read with them, the loop is found;
    # the same trace without its logs file leaves it undecided.
    root = _copy(tmp_path, "botocore-bedrock-logs", "tool_loop")
    assert (root / "botocore-bedrock-logs" / "tool_loop" / "logs.otlp.json").exists()
    assert eval_cmd.run(_args(str(root), "--json", "--perturbations", "0")) == 0
    with_logs = json.loads(capsys.readouterr().out)
    assert with_logs["categories"]["tool_loop"]["tp"] == 1
    assert with_logs["links"]["evidenced"] > 0 and with_logs["links"]["recall"] == 1.0

    (root / "botocore-bedrock-logs" / "tool_loop" / "logs.otlp.json").unlink()
    assert eval_cmd.run(_args(str(root), "--json", "--perturbations", "0")) == 0
    without = json.loads(capsys.readouterr().out)
    assert without["categories"]["tool_loop"]["tp"] == 0
    assert without["links"]["evidenced"] == 0


def test_content_off_counts_the_failures_no_label_gives(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # With content dropped, the MCP server's answer naming the unknown tool is gone: the failed call is still a fact,
    # claimed as a tool error, a category the labels do not give (and the root cause). The ADK transfer stays a handoff.
    _copy(tmp_path, "mcp-native-genai", "hallucinated_tool")
    _copy(tmp_path, "openinference-google-adk", "handoff")
    assert eval_cmd.run(_args(str(tmp_path), "--json", "--perturbations", "0", "--content-off")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unfounded_root_causes"] == 0  # the traces as captured are read right
    off = report["content_off"]
    assert off["traces"] == 2 and off["labelled_failures"] == 1 and off["kept"] == 0
    assert [(item["trace"], item["category"]) for item in off["unsupported"]] == [
        ("mcp-native-genai/hallucinated_tool", "tool_error")]
    assert off["unfounded_root_causes"] == 1
    # The labelled failure not found is broken down by category, and by whether the analysis said it could not check
    assert off["categories"] == {"hallucinated_tool": {"labelled": 1, "kept": 0, "undecided": 1, "unreported": 0}}
    assert off["missed"] == [{"trace": "mcp-native-genai/hallucinated_tool", "category": "hallucinated_tool",
                              "reported": "indeterminate"}]

    assert eval_cmd.run(_args(str(tmp_path), "--perturbations", "0", "--content-off")) == 0
    text = capsys.readouterr().out
    assert "content off: 2 traces analysed again" in text
    assert "hallucinated_tool: found 0/1, indeterminate 1, not reported 0" in text
    assert eval_cmd.run(_args(str(tmp_path), "--json", "--perturbations", "0")) == 0
    assert "content_off" not in json.loads(capsys.readouterr().out)
