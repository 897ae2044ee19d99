"""``otel-trajectory dataset build``: versioned regression datasets from bundles."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import orjson
import pytest

from otel_mapper.otlp.json_codec import encode_json_line
from otel_mapper.validate.consumer import validate_bundle
from processor.cli import eval_cmd
from processor.cli.main import main
from tests.cli.conftest import CORPUS_CONFIG, corpus_labels
from tests.support.spans import request, span


def _build(*args: str) -> int:
    return main(["dataset", "build", *args])


def test_a_dataset_of_failures_validates_and_scores_with_eval(tmp_path: Path, mapped_corpus: Path) -> None:
    output = tmp_path / "ds"
    assert _build(str(mapped_corpus), "--output", str(output)) == 0
    manifest = orjson.loads((output / "manifest.json").read_bytes())
    failing = {
        bundle.parent.name
        for bundle in mapped_corpus.glob("*/bundle.json")
        if orjson.loads(bundle.read_bytes())["extensions"]["org.otel-trajectory.diagnosis"]["verdict"] == "fail"
    }
    entries = {entry["trace_id"] for entry in manifest["entries"]}
    assert entries == failing and len(entries) >= 40
    assert manifest["counts"]["selected"] == len(entries)
    inputs = len(list(mapped_corpus.glob("*/bundle.json")))  # every trajectory of the corpus (captures may hold several)
    assert inputs >= len(corpus_labels())
    assert manifest["counts"]["inputs"] == inputs and manifest["counts"]["excluded_verdict"] == inputs - len(entries)
    assert manifest["spec_version"] == "0.1" and manifest["declared_use"] == "local_evaluation"
    assert manifest["rights"]["local_evaluation"] == "granted" and manifest["rights"]["training"] == "unknown"
    for relative, digest in manifest["files"].items():
        assert digest == "sha256:" + hashlib.sha256((output / relative).read_bytes()).hexdigest()
    for trace_id in entries:
        assert validate_bundle((output / "traces" / trace_id / "bundle.json").read_bytes()) == []
        assert (output / "traces" / trace_id / "trace.otlp.json").is_file()
    report = eval_cmd.evaluate(output, eval_cmd._load_config(CORPUS_CONFIG)[0])
    assert report.traces == len(entries) and not report.failures
    assert all(tally.fp == 0 and tally.fn == 0 and tally.tp > 0 for tally in report.categories.values())
    assert report.terminal_right == report.traces
    # the same selection of the same bundles is the same dataset version
    again = tmp_path / "again"
    assert _build(str(mapped_corpus), "--output", str(again)) == 0
    assert orjson.loads((again / "manifest.json").read_bytes())["dataset_version"] == manifest["dataset_version"]


def test_review_outcomes_decide_what_enters(tmp_path: Path, mapped_corpus: Path) -> None:
    by_scenario = {(label["library"], label["scenario"]): label["trace_id"] for label in corpus_labels()}
    loop = by_scenario[("openai-v2-content-on", "tool_loop")]
    error = by_scenario[("openai-v2-content-on", "tool_error_recovery")]
    reviewed = tmp_path / "reviews.jsonl"
    reviewed.write_text(
        json.dumps({"trace_id": loop, "outcome": "confirmed"}) + "\n"
        + json.dumps({"trace_id": error, "outcome": "rejected"}) + "\n"
        + json.dumps({"trace_id": by_scenario[("openinference-openai", "model_500")], "outcome": "confirmed",
                      "category": "infra_timeout"}) + "\n"
    )
    output = tmp_path / "ds"
    assert _build(str(mapped_corpus), "--output", str(output), "--reviewed", str(reviewed)) == 0
    manifest = orjson.loads((output / "manifest.json").read_bytes())
    taken = {entry["trace_id"] for entry in manifest["entries"]}
    assert taken == {loop, by_scenario[("openinference-openai", "model_500")]}
    assert manifest["counts"]["excluded_review_rejected"] == 1
    relabelled = orjson.loads((output / "traces" / by_scenario[("openinference-openai", "model_500")] / "labels.json").read_bytes())
    assert [f["category"] for f in relabelled["findings"]] == ["infra_timeout"]
    assert relabelled["review"] == {"outcome": "confirmed", "category": "infra_timeout"}


def test_category_filter(tmp_path: Path, mapped_corpus: Path) -> None:
    output = tmp_path / "ds"
    assert _build(str(mapped_corpus), "--output", str(output), "--category", "tool_loop") == 0
    manifest = orjson.loads((output / "manifest.json").read_bytes())
    for entry in manifest["entries"]:
        labels = orjson.loads((output / entry["path"] / "labels.json").read_bytes())
        assert "tool_loop" in {finding["category"] for finding in labels["findings"]}
    assert len(manifest["entries"]) >= 6


SECRETS = {
    "openai": "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2,
    "aws": "AKIA" + "Z3X7Q2W8E4R6T1Y9",
    "github": "ghp_" + "a" * 36,
}


def _trace_with_secrets() -> bytes:
    arguments = json.dumps({"path": "/etc/app.conf", "api_key": SECRETS["openai"]})
    spans = [
        span(1, "invoke_agent ops", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ops"}),
        span(2, "chat gpt-4o-mini", parent=1, attrs={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5,
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                {"type": "text", "content": f"use AWS key {SECRETS['aws']} please"}]}]),
            "http.request.header.authorization": f"Bearer {SECRETS['github']}"}),
        span(3, "execute_tool delete_file", parent=1, error=f"denied for token {SECRETS['github']}", attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delete_file",
            "gen_ai.tool.call.arguments": arguments, "gen_ai.tool.call.id": "call_1"},
            events=[("exception", {"exception.message": f"key {SECRETS['openai']} rejected"})]),
    ]
    return encode_json_line(request(spans, service=f"svc-{SECRETS['aws']}"))


@pytest.mark.parametrize("mode", ["keep", "digest", "drop"])
def test_planted_secrets_never_reach_a_dataset(tmp_path: Path, mode: str) -> None:
    trace = tmp_path / "trace.otlp.json"
    trace.write_bytes(_trace_with_secrets())
    config = tmp_path / "config.yaml"
    config.write_text("output: {content_mode: keep, rights: {retention: granted, local_evaluation: granted}}\n"
                      "detectors: {policy: {forbidden_tools: ['delete_*']}}\n")
    mapped = tmp_path / "mapped"
    assert main(["map", str(trace), "--config", str(config), "--output-dir", str(mapped)]) == 0
    assert SECRETS["openai"] in (next(mapped.iterdir()) / "spans.otlp.json").read_text()  # the spans had them
    output = tmp_path / "ds"
    assert _build(str(mapped), "--output", str(output), "--content-mode", mode) == 0
    written = {path: path.read_bytes() for path in output.rglob("*") if path.is_file()}
    assert len(written) == 4  # manifest, bundle, spans, labels
    for path, data in written.items():
        for kind, secret in SECRETS.items():
            assert secret.encode() not in data, (kind, path)
    bundle_path = next(path for path in written if path.name == "bundle.json")
    assert validate_bundle(written[bundle_path]) == []
    spans_text = next(data for path, data in written.items() if path.name == "trace.otlp.json").decode()
    assert ("/etc/app.conf" in spans_text) == (mode == "keep")


def test_rights_that_do_not_grant_the_use_leave_bundles_out(tmp_path: Path) -> None:
    trace = tmp_path / "trace.otlp.json"
    trace.write_bytes(_trace_with_secrets())
    mapped = tmp_path / "mapped"
    assert main(["map", str(trace), "--output-dir", str(mapped)]) == 0  # default rights: unknown
    output = tmp_path / "ds"
    assert _build(str(mapped), "--output", str(output)) == 0
    manifest = orjson.loads((output / "manifest.json").read_bytes())
    assert manifest["entries"] == [] and manifest["counts"]["excluded_rights_unknown"] == 1
    assert _build(str(mapped), "--output", str(output)) == 2  # not empty: never mixed into


def test_dataset_build_help_lists_its_pinned_options() -> None:
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["dataset", "build", "--help"])
    for option in ("--output", "--verdict", "--category", "--reviewed"):
        assert option in out.getvalue()
