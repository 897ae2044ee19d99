"""`corpus/generate/same_labels.py`: two builds compared with their ids renamed by role, nothing else ignored."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

_SCRIPT = Path(__file__).resolve().parents[2] / "corpus" / "generate" / "same_labels.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("same_labels", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


same_labels = _load()


def _labels(trace: str, request_span: str, link_span: str) -> dict[str, object]:
    return {
        "trace_id": trace,
        "findings": [{"category": "tool_loop", "anchor_span": request_span}],
        "ground_truth": {
            "model_requests": [{"seq": 1, "span": request_span}],
            "links": [{"proposed_by_span": link_span}],
        },
    }


def test_ids_drawn_anew_compare_equal() -> None:
    first = _labels("a" * 32, "1" * 16, "1" * 16)
    second = _labels("b" * 32, "2" * 16, "2" * 16)
    assert same_labels.canonical(first) == same_labels.canonical(second)


def test_a_broken_relation_between_ids_differs() -> None:
    committed = _labels("a" * 32, "1" * 16, "1" * 16)
    rebuilt = _labels("b" * 32, "2" * 16, "3" * 16)  # the link names another span than the request
    paths = same_labels.differences(same_labels.canonical(committed), same_labels.canonical(rebuilt))
    assert paths and "/ground_truth/links[0]/proposed_by_span" in paths[0]


def test_any_other_field_differs() -> None:
    committed = _labels("a" * 32, "1" * 16, "1" * 16)
    rebuilt = _labels("a" * 32, "1" * 16, "1" * 16)
    rebuilt["findings"] = []
    assert same_labels.differences(same_labels.canonical(committed), same_labels.canonical(rebuilt)) == [
        "/findings: 1 items, rebuilt 0"
    ]


def _write(folder: Path, scenario: str, labels: dict[str, object]) -> None:
    (folder / scenario).mkdir(parents=True)
    (folder / scenario / "labels.json").write_text(json.dumps(labels))


def test_main_exits_1_on_a_difference_or_a_missing_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    committed, rebuilt = tmp_path / "committed", tmp_path / "rebuilt"
    _write(committed, "plain", _labels("a" * 32, "1" * 16, "1" * 16))
    _write(rebuilt, "plain", _labels("b" * 32, "2" * 16, "2" * 16))
    monkeypatch.setattr("sys.argv", ["same_labels.py", str(committed), str(rebuilt)])
    assert same_labels.main() == 0
    _write(rebuilt, "extra", _labels("b" * 32, "2" * 16, "2" * 16))
    assert same_labels.main() == 1
    out = capsys.readouterr().out
    assert "plain: same" in out and "extra: missing" in out and "1 of 2 scenarios carry the same labels" in out


def test_an_unordered_pair_is_a_set() -> None:
    # the generator writes each pair sorted by id value, which a rebuild draws anew
    committed = _labels("a" * 32, "1" * 16, "2" * 16) | {"unordered_pairs": [["1" * 16, "2" * 16]]}
    rebuilt = _labels("a" * 32, "4" * 16, "3" * 16) | {"unordered_pairs": [["3" * 16, "4" * 16]]}
    assert same_labels.canonical(committed) == same_labels.canonical(rebuilt)
    rebuilt["unordered_pairs"] = [["3" * 16, "5" * 16]]
    assert same_labels.canonical(committed) != same_labels.canonical(rebuilt)


def _runs(*runs: tuple[str, str]) -> dict[str, object]:
    return {"ground_truth": {"tool_executions": [{"tool_call_id": call, "span": span} for call, span in runs]}}


def test_tool_executions_in_another_run_order_compare_equal() -> None:
    # parallel tool runs finish in any order; the relation call id -> span is what must hold
    committed = _runs(("call_1", "1" * 16), ("call_2", "2" * 16))
    rebuilt = _runs(("call_2", "4" * 16), ("call_1", "3" * 16))
    assert same_labels.canonical(committed) == same_labels.canonical(rebuilt)
    swapped = _runs(("call_2", "3" * 16), ("call_1", "4" * 16))
    assert same_labels.canonical(committed) == same_labels.canonical(swapped)  # names follow the sorted runs
    other = {"ground_truth": {"tool_executions": [{"tool_call_id": "call_1", "span": "3" * 16}]}}
    assert same_labels.canonical(committed) != same_labels.canonical(other)


def test_ids_inside_notes_are_renamed_after_the_labels_and_notes_are_not_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    committed = _labels("a" * 32, "1" * 16, "1" * 16)
    rebuilt = _labels("b" * 32, "2" * 16, "2" * 16)
    committed["ground_truth"]["notes"] = ["span 9999999999999999 never ended; runs: a, b"]  # type: ignore[index]
    rebuilt["ground_truth"]["notes"] = ["span 8888888888888888 never ended; runs: a, b"]  # type: ignore[index]
    assert same_labels.canonical(committed) == same_labels.canonical(rebuilt)
    rebuilt["ground_truth"]["notes"] = ["span 8888888888888888 never ended; runs: b, a"]  # type: ignore[index]
    _write(tmp_path / "committed", "plain", committed)
    _write(tmp_path / "rebuilt", "plain", rebuilt)
    monkeypatch.setattr("sys.argv", ["same_labels.py", str(tmp_path / "committed"), str(tmp_path / "rebuilt")])
    assert same_labels.main() == 0
    assert "plain: same (the notes differ; not compared)" in capsys.readouterr().out


def test_the_fake_servers_port_in_an_error_text_is_not_compared() -> None:
    committed = _labels("a" * 32, "1" * 16, "1" * 16) | {"error": "Read timeout on http://127.0.0.1:33005/model/x"}
    rebuilt = _labels("b" * 32, "2" * 16, "2" * 16) | {"error": "Read timeout on http://127.0.0.1:41877/model/x"}
    assert same_labels.canonical(committed) == same_labels.canonical(rebuilt)
    rebuilt["error"] = "Read timeout on http://127.0.0.1:41877/model/y"
    assert same_labels.canonical(committed) != same_labels.canonical(rebuilt)


def test_an_http_date_quoted_in_an_error_text_is_not_compared() -> None:
    committed = _labels("a" * 32, "1" * 16, "1" * 16)
    committed["error"] = "Status 500, headers {'date': 'Mon, 07 Dec 2026 07:18:09 GMT'}"
    rebuilt = _labels("b" * 32, "2" * 16, "2" * 16)
    rebuilt["error"] = "Status 500, headers {'date': 'Mon, 07 Dec 2026 08:22:19 GMT'}"
    assert same_labels.canonical(committed) == same_labels.canonical(rebuilt)
    rebuilt["error"] = "Status 502, headers {'date': 'Mon, 07 Dec 2026 08:22:19 GMT'}"
    assert same_labels.canonical(committed) != same_labels.canonical(rebuilt)
