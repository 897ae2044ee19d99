"""Config parsing: public keys, defaults, and every problem reported at once with its path."""

from __future__ import annotations

from pathlib import Path

import yaml

from processor.detectors.config import DetectorsConfig, parse_detectors
from processor.detectors.drift_reference_model import ArgumentMode, MatchMode
from processor.detectors.registry import check_enabled

DATA = Path(__file__).parent / "data"

EXAMPLE = """
detectors:
  loop: {min_repeats: 3, fuzzy: true}
  policy: {forbidden_tools: ["delete_*"], approval_required_tools: ["transfer_*"]}
  ordering:
    rules:
      - {name: read-before-write, before: ["get_*", "lookup_*", "read_*"], then: ["update_*", "write_*", "delete_*"]}
  budget: {max_total_tokens: 200000, max_model_calls: 50, max_tool_calls: 100, max_duration_s: 900}
  drift: {references: refs.yaml, window: 200, min_runs: 20}
"""


def test_the_documented_example_parses(tmp_path: Path) -> None:
    (tmp_path / "refs.yaml").write_text(
        "references:\n  - {agent: support_agent, match: unordered, arguments: subset, tools: [lookup_order, {name: update_record, args: {field: x}}]}\n"
    )
    errors: list[str] = []
    config = parse_detectors(yaml.safe_load(EXAMPLE)["detectors"], errors, base_dir=tmp_path)
    assert errors == []
    assert config.policy.forbidden_tools.match("delete_file") == "delete_*"
    assert config.ordering.rules[0].then.match("write_x") == "write_*"
    assert config.budget.max_total_tokens == 200_000 and config.budget.max_duration_s == 900.0
    reference = config.drift.reference_set.find("any-service", "support_agent")  # type: ignore[union-attr]
    assert reference is not None and reference.match is MatchMode.UNORDERED
    assert reference.arguments is ArgumentMode.SUBSET and reference.calls[1].args == {"field": "x"}


def test_defaults_when_absent() -> None:
    errors: list[str] = []
    assert parse_detectors(None, errors) == DetectorsConfig()
    config = parse_detectors({}, errors)
    assert errors == [] and config.loop.min_repeats == 3 and config.state_stall.turns == 3
    assert config.duplicate_effect.write_tools.match("update_x") and config.drift.min_runs == 20


def test_every_problem_is_reported_at_once_with_its_path(tmp_path: Path) -> None:
    raw = {
        "loop": {"min_repeats": 1, "fuzzy": "yes"},
        "policy": {"forbidden_tools": "delete_*", "colour": 1},
        "ordering": {"rules": [{"name": "r", "before": ["get_*"]}, "nope"]},
        "budget": {"max_total_tokens": -5, "prices": {"gpt-4o": {"input_per_million": 1}}},
        "state_stall": {"turns": 0},
        "arguments": {"schemas": {"t": {"type": "not-a-type"}}},
        "drift": {"references": "missing.yaml", "window": 10, "min_runs": 20, "max_mix_distance": 2},
        "time_budget_s": 0,
        "bogus": True,
    }
    errors: list[str] = []
    parse_detectors(raw, errors, base_dir=tmp_path)
    expected = [
        "detectors.bogus: unknown key",
        "detectors.loop.min_repeats: expected an integer >= 2",
        "detectors.loop.fuzzy: expected true or false",
        "detectors.policy.colour: unknown key",
        "detectors.policy.forbidden_tools: expected a list",
        "detectors.ordering.rules[0]: both 'before' and 'then'",
        "detectors.ordering.rules[1]: expected a mapping",
        "detectors.budget.max_total_tokens: expected an integer >= 1",
        "detectors.budget.prices.gpt-4o: give both input_per_million and output_per_million",
        "detectors.state_stall.turns: expected an integer >= 2",
        "detectors.arguments.schemas.t: not a valid JSON Schema",
        "detectors.drift.references: cannot read reference paths file",
        "detectors.drift.min_runs: 20 is larger than drift.window (10)",
        "detectors.drift.max_mix_distance: expected a positive number and <= 1",
        "detectors.time_budget_s: expected a positive number",
    ]
    for text in expected:
        assert any(error.startswith(text) for error in errors), (text, errors)
    assert len(errors) == len(expected), errors


def test_bad_reference_file_problems_name_the_file_and_entry(tmp_path: Path) -> None:
    (tmp_path / "refs.yaml").write_text(
        "references:\n  - {agent: a, match: fuzzy, tools: [x]}\n  - {match: strict, tools: [x]}\n  - {agent: b, tools: [{args: {}}]}\n"
    )
    errors: list[str] = []
    parse_detectors({"drift": {"references": "refs.yaml"}}, errors, base_dir=tmp_path)
    assert any("references[0].match: expected one of strict, unordered, subset, superset" in e for e in errors)
    assert any("references[1].agent" in e for e in errors)
    assert any("references[2].tools[0]" in e for e in errors)
    assert all(e.startswith("detectors.drift.references (refs.yaml)") for e in errors)


def test_unknown_enabled_detector_is_reported() -> None:
    errors: list[str] = []
    config = parse_detectors({"enabled": ["tool_loop", "nonsense"]}, errors)
    problems = check_enabled(config)
    assert errors == [] and len(problems) == 1 and "'nonsense'" in problems[0] and "tool_loop" in problems[0]


def test_repository_config_files_load() -> None:
    document = yaml.safe_load((DATA / "corpus-config.yaml").read_text())
    errors: list[str] = []
    parse_detectors(document["detectors"], errors, base_dir=DATA)
    assert errors == []
