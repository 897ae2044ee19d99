"""What ``map`` (and every command reading OTLP files offline) accepts and refuses."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from processor.cli import main
from processor.cli.inputs import InputError, read_inputs

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"
ONE_TRACE = CORPUS / "openai-v2-content-on" / "tool_loop" / "trace.otlp.json"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "the file is empty"),
        (b"   \n", "the file is empty"),
        (b'{"hello":"world"}', "holds no OTLP span"),
        (b'{"resourceSpans": []}', "holds no OTLP span"),
        (b"\x00\x01garbage", "not OTLP trace data"),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5}]}]}]}', "not OTLP trace data"),
    ],
)
def test_a_named_file_without_a_span_is_refused_naming_it(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(content)

    with pytest.raises(InputError, match=why) as raised:
        read_inputs([path])
    assert str(path) in str(raised.value)


def test_map_exits_2_naming_the_file_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hello.json"
    path.write_bytes(b'{"hello":"world"}')

    code = main(["map", str(path), "--output-dir", str(tmp_path / "out")])

    assert code == 2
    assert f"{path}: holds no OTLP span" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_missing_input_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nothere.json: input not found"):
        read_inputs([tmp_path / "nothere.json"])


def test_a_directory_is_read_recursively_passing_over_files_without_spans(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (nested / "trace.otlp.json").write_bytes(ONE_TRACE.read_bytes())
    (nested / "labels.json").write_bytes(b'{"findings": []}')
    (tmp_path / "notes.txt").write_text("not searched")

    inputs = read_inputs([tmp_path])

    assert [item.name for item in inputs.files] == [str(nested / "trace.otlp.json")]
    assert inputs.spans == read_inputs([ONE_TRACE]).spans > 0
    assert len(inputs.passed_over) == 1 and "labels.json" in inputs.passed_over[0]


def test_a_directory_with_no_span_anywhere_is_refused(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_bytes(b"{}")
    with pytest.raises(InputError, match="no file under this directory holds an OTLP span"):
        read_inputs([tmp_path])


def test_dash_reads_standard_input_once() -> None:
    data = ONE_TRACE.read_bytes()
    inputs = read_inputs(["-"], stdin=lambda: io.BytesIO(data))
    assert inputs.spans == read_inputs([ONE_TRACE]).spans
    with pytest.raises(InputError, match="named twice"):
        read_inputs(["-", "-"], stdin=lambda: io.BytesIO(data))


def test_map_reads_a_directory_like_the_files_in_it(tmp_path: Path) -> None:
    directory = CORPUS / "openai-v2-content-on"
    files = sorted(str(path) for path in directory.rglob("trace.otlp.json"))

    assert main(["map", str(directory), "--output-dir", str(tmp_path / "dir")]) == 0
    assert main(["map", *files, "--output-dir", str(tmp_path / "files")]) == 0

    written = sorted(path.relative_to(tmp_path / "dir") for path in (tmp_path / "dir").rglob("*") if path.is_file())
    assert written == sorted(path.relative_to(tmp_path / "files") for path in (tmp_path / "files").rglob("*") if path.is_file())
    assert len({path.parts[0] for path in written}) == len(files)


def test_map_joins_the_log_records_named_with_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The botocore Bedrock extension writes the conversation only as log records: with them the loop is a failure on
    # evidence, without them it cannot be checked.
    scenario = CORPUS / "botocore-bedrock-logs" / "tool_loop"
    if not (scenario / "logs.otlp.json").exists():
        pytest.skip("corpus traces not present")
    trace = str(scenario / "trace.otlp.json")

    assert main(["map", trace, "--output-dir", str(tmp_path / "without")]) == 0
    assert " indeterminate " in capsys.readouterr().out
    for logs in ("logs.otlp.json", "logs-1.pb"):
        assert main(["map", trace, "--logs", str(scenario / logs), "--output-dir", str(tmp_path / logs)]) == 0
        row = next(line for line in capsys.readouterr().out.splitlines() if "support_agent" in line)
        assert " fail " in row and "tool_loop" in row


def test_a_directory_joins_the_log_records_found_in_it_once(tmp_path: Path) -> None:
    # A directory of exports (a Collector's file exporter, a corpus scenario) holds traces and logs side by side: its
    # log records are joined as --logs joins them, and the same export kept as JSON and as protobuf is read once.
    scenario = CORPUS / "botocore-bedrock-logs" / "tool_loop"
    if not (scenario / "logs.otlp.json").exists():
        pytest.skip("corpus traces not present")
    exports = tmp_path / "exports"
    exports.mkdir()
    for name in ("trace.otlp.json", "logs.otlp.json", "logs-1.pb"):
        (exports / name).write_bytes((scenario / name).read_bytes())

    inputs = read_inputs([exports])
    assert sorted(Path(name).name for name in inputs.log_files) == ["logs-1.pb", "logs.otlp.json"]
    assert inputs.passed_over == []
    assert main(["map", str(exports), "--output-dir", str(tmp_path / "dir")]) == 0
    named = ["map", str(scenario / "trace.otlp.json"), "--logs", str(scenario / "logs.otlp.json")]
    assert main([*named, "--output-dir", str(tmp_path / "named")]) == 0

    (from_dir,) = (tmp_path / "dir").glob("*/bundle.json")
    (from_named,) = (tmp_path / "named").glob("*/bundle.json")
    assert from_dir.read_bytes() == from_named.read_bytes()


@pytest.mark.parametrize("name", ["labels.json", "request-1.pb", "missing.json"])
def test_a_logs_file_without_log_records_is_refused_naming_it(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = CORPUS / "botocore-bedrock-logs" / "tool_loop"
    if not (scenario / "trace.otlp.json").exists():
        pytest.skip("corpus traces not present")
    code = main(["map", str(scenario / "trace.otlp.json"), "--logs", str(scenario / name), "--output-dir", str(tmp_path)])
    assert code == 2
    assert name in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_a_logs_file_given_as_a_trace_input_says_to_name_it_with_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = CORPUS / "botocore-bedrock-logs" / "tool_loop" / "logs.otlp.json"
    if not logs.exists():
        pytest.skip("corpus traces not present")
    assert main(["map", str(logs), "--output-dir", str(tmp_path)]) == 2
    assert "name it with --logs" in capsys.readouterr().err
