"""The commands people run: ``report`` from OTLP files, output and trace directories and bundle files;
``map --pretty``; the evidence column of the ``map`` table; ``validate`` pointing at the other ``--kind``."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from processor.cli.main import main
from tests.report.support import Elements


def _map(inputs: list[Path], out: Path, *extra: str) -> None:
    assert main(["map", *map(str, inputs), "--output-dir", str(out), *extra]) == 0


def _node_ids(page: Path) -> Counter[str]:
    return Counter(Elements(page.read_text(encoding="utf-8")).values("data-node-id"))


def test_report_from_otlp_files_and_from_what_map_wrote_draws_the_same_nodes(
    tmp_path: Path, corpus_files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _map(corpus_files, tmp_path / "out")
    bundles = sorted((tmp_path / "out").glob("*/bundle.json"))
    expected = Counter(node["node_id"] for path in bundles for node in json.loads(path.read_text())["nodes"])

    assert main(["report", *map(str, corpus_files), "--output", str(tmp_path / "a.html")]) == 0
    assert main(["report", str(tmp_path / "out"), "--output", str(tmp_path / "b.html")]) == 0
    assert main(["report", str(bundles[0].parent), str(bundles[1]), "--output", str(tmp_path / "c.html")]) == 0

    assert _node_ids(tmp_path / "a.html") == expected == _node_ids(tmp_path / "b.html")
    first_two = [json.loads(path.read_text()) for path in bundles[:2]]
    assert _node_ids(tmp_path / "c.html") == Counter(n["node_id"] for b in first_two for n in b["nodes"])
    assert "wrote 5 trajectories to" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.json")) and len(list((tmp_path / "out").iterdir())) == len(corpus_files)


def test_report_shows_the_newest_revision_of_a_trace_directory(tmp_path: Path, corpus_files: list[Path]) -> None:
    _map(corpus_files[:1], tmp_path / "out")
    trace_dir = next((tmp_path / "out").iterdir())
    later = json.loads((trace_dir / "bundle.json").read_text())
    later["source"]["revision"] = 2
    later["nodes"] = later["nodes"][:1]
    (trace_dir / "bundle.r2.json").write_text(json.dumps(later))

    assert main(["report", str(trace_dir), "--output", str(tmp_path / "r.html")]) == 0

    assert _node_ids(tmp_path / "r.html") == Counter([later["nodes"][0]["node_id"]])


def test_report_names_what_it_cannot_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    ledger = tmp_path / "bundle.json"
    ledger.write_text(json.dumps({"ledger_version": "1"}))

    codes = [main(["report", str(path), "--output", str(tmp_path / "x.html")])
             for path in (tmp_path / "missing.json", tmp_path / "empty", ledger)]

    err = capsys.readouterr().err
    assert codes == [2, 2, 2] and not (tmp_path / "x.html").exists()
    assert "no such file or directory" in err and "run `otel-trajectory map` first" in err and "not an AT bundle" in err


def test_map_pretty_indents_the_same_documents(tmp_path: Path, corpus_files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    _map(corpus_files[:2], tmp_path / "plain")
    _map(corpus_files[:2], tmp_path / "pretty", "--pretty")

    for name in ("bundle.json", "ledger.json"):
        for plain in sorted((tmp_path / "plain").glob(f"*/{name}")):
            pretty = tmp_path / "pretty" / plain.parent.name / name
            assert pretty.read_text().startswith('{\n  "') and "\n" not in plain.read_text()
            assert json.loads(pretty.read_text()) == json.loads(plain.read_text())
    capsys.readouterr()
    assert main(["validate", *map(str, (tmp_path / "pretty").glob("*/bundle.json"))]) == 0
    assert main(["validate", "--kind", "ledger", *map(str, (tmp_path / "pretty").glob("*/ledger.json"))]) == 0
    spans = sorted(p.read_bytes() for p in (tmp_path / "plain").glob("*/spans.otlp.json"))
    assert spans == sorted(p.read_bytes() for p in (tmp_path / "pretty").glob("*/spans.otlp.json"))


def test_map_table_has_a_short_evidence_column(tmp_path: Path, corpus_files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    loop = next(path for path in corpus_files if "tool_loop" in str(path))
    _map([loop], tmp_path / "out")

    header, _, row = capsys.readouterr().out.splitlines()[:3]
    assert header.split()[-1] == "evidence"
    evidence = row[header.index("evidence"):]
    assert evidence.startswith("get_weather executed 4 times") and len(evidence) <= 60


def test_validate_hints_at_the_other_kind(tmp_path: Path, corpus_files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    _map(corpus_files[:1], tmp_path / "out")
    trace_dir = next((tmp_path / "out").iterdir())
    capsys.readouterr()

    as_bundle = main(["validate", str(trace_dir / "ledger.json")])
    as_ledger = main(["validate", "--kind", "ledger", str(trace_dir / "bundle.json")])
    right = main(["validate", "--kind", "ledger", str(trace_dir / "ledger.json")])

    out = capsys.readouterr().out
    assert (as_bundle, as_ledger, right) == (1, 1, 0)
    assert "hint: this looks like a Forensic Ledger packet; check it with `otel-trajectory validate --kind ledger`" in out
    assert "hint: this looks like an AT bundle" in out
    shutil.rmtree(tmp_path / "out")


def test_report_reads_standard_input_and_directories_of_otlp_files_as_map_does(
    tmp_path: Path, corpus_files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    folder = tmp_path / "traces"
    for number, path in enumerate(corpus_files):
        (folder / f"t{number}").mkdir(parents=True)
        shutil.copy(path, folder / f"t{number}" / path.name)
    _map(corpus_files, tmp_path / "out")
    expected = Counter(node["node_id"] for bundle in sorted((tmp_path / "out").glob("*/bundle.json"))
                       for node in json.loads(bundle.read_text())["nodes"])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(corpus_files[0].read_bytes())))

    assert main(["report", "-", "--output", str(tmp_path / "stdin.html")]) == 0
    assert main(["report", str(folder), "--output", str(tmp_path / "folder.html")]) == 0

    first = json.loads(next(b for b in (tmp_path / "out").glob("*/bundle.json")
                            if b.parent.name in corpus_files[0].read_text()).read_text())
    assert _node_ids(tmp_path / "stdin.html") == Counter(node["node_id"] for node in first["nodes"])
    assert _node_ids(tmp_path / "folder.html") == expected


def test_report_refuses_input_without_a_span_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hello = tmp_path / "hello.json"
    hello.write_text('{"hello":"world"}')
    folder = tmp_path / "folder"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "labels.json").write_text('{"labels": []}')

    codes = [main(["report", str(path), "--output", str(tmp_path / "x.html")]) for path in (hello, folder)]

    err = capsys.readouterr().err
    assert codes == [2, 2] and not (tmp_path / "x.html").exists()
    assert f"{hello}: holds no OTLP span" in err
    assert f"{folder}: no file under this directory holds an OTLP span" in err and "nor a bundle.json" in err


def test_report_joins_the_log_records_of_a_directory_as_map_does(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parents[2] / "corpus" / "traces" / "botocore-bedrock-logs" / "tool_loop"
    if not (scenario / "logs.otlp.json").exists():
        pytest.skip("corpus traces not present")
    folder = tmp_path / "exports"
    folder.mkdir()
    for name in ("trace.otlp.json", "logs.otlp.json"):
        shutil.copy(scenario / name, folder / name)
    _map([folder], tmp_path / "out")
    (bundle,) = (tmp_path / "out").glob("*/bundle.json")
    expected = Counter(node["node_id"] for node in json.loads(bundle.read_text())["nodes"])

    assert main(["report", str(folder), "--output", str(tmp_path / "folder.html")]) == 0

    assert _node_ids(tmp_path / "folder.html") == expected
    assert sum(expected.values()) > 5  # the records add the conversation's messages and calls to the run's spans
