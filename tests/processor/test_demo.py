"""``otel-trajectory demo`` (what ``make demo`` runs) works from the checkout: it finds the embedded corpus, sends
every span through ``serve`` over loopback and gets every one back annotated."""

from __future__ import annotations

import json
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
    found = re.search(r"sent (\d+) spans in (\d+) corpus files \(and (\d+) log records joined to their spans\); received (\d+)", out)
    sent, files, records, received = map(int, found.groups())  # type: ignore[union-attr]
    trace_files = list((corpus_root() / "traces").glob("**/trace.otlp.json"))
    assert files == len(trace_files)
    assert sent == received > 0
    logs_files = list((corpus_root() / "traces").glob("**/logs.otlp.json"))
    assert records == sum(_log_records(path) for path in logs_files) > 0
    rows = table_rows(out)
    # One row per trace: a capture may hold several (MCP connects in traces of its own before the run).
    trace_ids = {trace_id for path in trace_files for trace_id in re.findall(r'"traceId":\s*"([0-9a-f]{32})"', path.read_text())}
    assert len(rows) == len(trace_ids)
    # The default artifact policy (output.artifacts: findings): files for exactly the traces with a finding, a
    # failing or an erroring verdict. A trace no reader recognises (verdict "-": an MCP stdio session's own
    # notification, in a trace of its own) takes the fast path: forwarded, not analysed, no files.
    analysed = [row for row in rows if row["verdict"] != "-"]
    assert len(analysed) < len(rows)
    forensic = {row["trace id"] for row in analysed if row["verdict"] in ("fail", "error") or row["findings"] != "-"}
    assert forensic
    assert {path.parent.name for path in tmp_path.glob("*/bundle.json")} == forensic
    assert {path.parent.name for path in tmp_path.glob("*/ledger.json")} == forensic
    # A loop whose repeated arguments only the log records carry (the botocore Bedrock extension writes content as
    # log records, none on the span) is found once the service joins them.
    by_source = {row["source"]: row for row in rows}
    assert "tool_loop" in by_source["botocore-bedrock-logs/tool_loop"]["findings"]


def _log_records(path: Path) -> int:
    requests = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return sum(len(scope["logRecords"]) for request in requests for item in request["resourceLogs"] for scope in item["scopeLogs"])


def table_rows(out: str) -> list[dict[str, str]]:
    """The demo's table as one dict per row, cut at the header's column starts (cells may hold spaces)."""
    lines = out.splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.startswith("source") and "trace id" in line)
    header, rule = lines[header_at], lines[header_at + 1]
    starts = [match.start() for match in re.finditer(r"-+", rule)]
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    names = [header[start:end].strip() for start, end in bounds]
    rows = []
    for line in lines[header_at + 2:]:
        if not line.strip():
            break
        rows.append({name: line[start:end].strip() for name, (start, end) in zip(names, bounds, strict=True)})
    return rows
