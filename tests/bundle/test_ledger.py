"""The Forensic Ledger v1.6.0 packet: fields, declared absences and the approximated order."""

from __future__ import annotations

from dataclasses import replace

import jsonschema
import orjson

from otel_mapper.bundle.ledger import MAX_HISTORY, write_ledger
from otel_mapper.model import Node, SpanRef
from otel_mapper.validate.consumer import validate_ledger
from otel_mapper.validate.ledger_schema import LEDGER_SCHEMA
from semconv.trajectory import NodeKind, NodeStatus

from .support import TRACE, make_diagnosis, make_trajectory, node_id


def _ledger(**options: object) -> dict:
    data = write_ledger(make_trajectory(), make_diagnosis(), **options)  # type: ignore[arg-type]
    assert validate_ledger(data) == []
    document = orjson.loads(data)
    jsonschema.Draft202012Validator(LEDGER_SCHEMA).validate(document)
    return document


def test_ledger_has_the_v160_fields() -> None:
    ledger = _ledger()
    assert ledger["task_id"] == f"trace:{TRACE}"
    assert ledger["attempt"] == 1
    assert ledger["turns_taken"] == 2
    assert ledger["ledger_version"] == "1.6.0"
    metrics = {m["name"]: m["value"] for m in ledger["metrics"]}
    # Critical path: agent (9 s less the 1 s its child chat1 covers) -> chat1 (1 s) -> write_file (0.2 s, the
    # slower of the two concurrent tools) -> chat2 (1 s).
    # "findings" counts failed findings only: the diagnosis has one fail and one indeterminate.
    assert metrics == {
        "model_calls": 2, "tool_executions": 2, "input_tokens": 320, "output_tokens": 70, "findings": 1, "spans": 6,
        "cached_input_tokens": 0, "critical_path_duration": 10_200.0, "critical_path_nodes": 4, "retries": 0,
        "cancellations": 0,
    }
    assert ledger["diagnostic_report"]["indeterminate"] == ["tool_loop"]


def test_ledger_reports_cost_only_with_a_price_table() -> None:
    from otel_mapper.attribution import ModelPrice, PriceTable

    prices = PriceTable.of({"gpt-4o": ModelPrice(input_per_million=2.5, output_per_million=10.0)})
    metrics = {m["name"]: m["value"] for m in _ledger(prices=prices)["metrics"]}
    assert metrics["cost"] == (320 * 2.5 + 70 * 10.0) / 1_000_000
    assert "cost" not in {m["name"] for m in _ledger()["metrics"]}


def test_unavailable_lists_are_empty_and_declared() -> None:
    ledger = _ledger()
    assert ledger["state_snapshots"] == [] and ledger["resource_telemetry"] == []
    declared = {d["field"]: d["status"] for d in ledger["declarations"]}
    assert declared == {"state_snapshots": "unavailable_at_source", "resource_telemetry": "unavailable_at_source"}


def test_history_is_in_causal_depth_then_id_order_and_says_it_is_approximated() -> None:
    ledger = _ledger()
    ids = [entry["content"]["node_id"] for entry in ledger["conversation_history"]]
    # depth: agent 0, chat1 1, the two concurrent tools 2 (ordered by id), chat2 3
    assert ids == [node_id(1), node_id(2), node_id(3), node_id(4), node_id(5)]
    assert ledger["ordering"]["conversation_history"] == "approximated"
    assert ledger["ordering"]["basis"] == "causal depth, then node id"
    assert ledger["protocol_sequence"] == [
        "agent_invocation", "model_call", "tool_execution", "tool_execution", "model_call"
    ]


def test_history_entries_have_identity_role_and_moded_content() -> None:
    history = _ledger()["conversation_history"]
    roles = [(entry["identity"], entry["role"]) for entry in history]
    assert roles[0] == ("agent:planner", "agent")
    assert roles[1] == ("model:gpt-4o", "assistant")
    assert roles[3] == ("tool:write_file", "tool")
    assert history[3]["content"]["arguments"]["redaction"] == "digest"
    kept = _ledger(content_mode="keep")["conversation_history"][3]["content"]
    assert kept["arguments"]["value"] == '{"path": "/tmp/out", "body": "hello"}'
    dropped = _ledger(content_mode="drop")["conversation_history"][3]["content"]
    assert dropped["error"]["message"] == {"availability": "redacted", "redaction": "dropped"}


def test_identity_is_derived_when_no_actor_is_recorded() -> None:
    trajectory = make_trajectory()
    anonymous = replace(trajectory, nodes=tuple(replace(n, actor="") for n in trajectory.nodes), _index={})
    history = orjson.loads(write_ledger(anonymous, make_diagnosis()))["conversation_history"]
    assert [entry["identity"] for entry in history] == [
        "agent:planner", "model:gpt-4o", "tool:read_file", "tool:write_file", "model:gpt-4o"
    ]


def test_diagnostic_report_projects_the_chain() -> None:
    report = _ledger()["diagnostic_report"]
    assert report["root_cause"] == "tool_error" and report["terminal_status"] == "error"
    first, second = report["causal_chain"]
    assert (first["trigger"], first["turn_index"], first["rank"], first["severity"]) == ("tool_loop", 2, 2, "low")
    assert (second["trigger"], second["turn_index"], second["rank"]) == ("tool_error", 3, 1)
    assert second["evidence"] == "write_file failed: PermissionError"
    assert second["timestamp"] == 1_750_000_002.1


def test_tool_registry_comes_from_bindings() -> None:
    registry = _ledger()["tool_registry"]
    assert set(registry) == {"read_file", "write_file"}
    assert registry["read_file"]["availability"] == "content_digest"
    assert registry["write_file"]["parameters"] == []


def test_ledger_is_deterministic() -> None:
    assert write_ledger(make_trajectory(), make_diagnosis()) == write_ledger(make_trajectory(), make_diagnosis())


def test_history_is_bounded_and_the_cut_declared() -> None:
    trajectory = make_trajectory()
    extra = tuple(
        Node(
            id=f"span:{i:016x}",
            kind=NodeKind.OTHER,
            status=NodeStatus.COMMITTED,
            source=SpanRef(trace_id=TRACE, span_id=f"{i:016x}"),
            convention="otel",
            name="step",
        )
        for i in range(1000, 1000 + MAX_HISTORY + 5)
    )
    big = replace(trajectory, nodes=trajectory.nodes + extra, _index={})
    data = write_ledger(big, make_diagnosis())
    ledger = orjson.loads(data)
    assert len(ledger["conversation_history"]) == MAX_HISTORY
    assert any(d["field"] == "conversation_history" and d["status"] == "truncated" for d in ledger["declarations"])
    assert validate_ledger(data) == []


def test_ledger_validator_reports_schema_problems() -> None:
    ledger = _ledger()
    del ledger["diagnostic_report"]["root_cause"]
    problems = validate_ledger(orjson.dumps(ledger))
    assert [(p.path, p.check_id) for p in problems] == [("/diagnostic_report/root_cause", "FL-1.6.0")]
