"""The AT bundle writer: required fields, schema validity, determinism and the spec's distinctions."""

from __future__ import annotations

import random
from dataclasses import replace

import jsonschema
import orjson
import pytest

from otel_mapper.bundle.common import CORE_FIELDS, integrity_digest
from otel_mapper.bundle.writer import BundleOptions, RightsConfig, build_bundle, write_bundle
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Bindings, Completeness, CompletenessStatus, Trajectory
from otel_mapper.validate.bundle_schema import BUNDLE_SCHEMA
from otel_mapper.validate.consumer import validate_bundle
from semconv.trajectory import TerminalStatus, Verdict, VerifierStatus

from .support import TRACE, make_diagnosis, make_trajectory, node_id

MODES = ("keep", "digest", "drop")


def _write(trajectory: Trajectory | None = None, diagnosis: Diagnosis | None = None, **options: object) -> bytes:
    return write_bundle(trajectory or make_trajectory(), diagnosis or make_diagnosis(), BundleOptions(**options))


def _doc(data: bytes) -> dict:
    return orjson.loads(data)


def _empty_trajectory() -> Trajectory:
    return Trajectory(
        trace_id=TRACE,
        trajectory_id=f"trace:{TRACE}",
        revision=1,
        nodes=(),
        edges=(),
        declarations=(),
        bindings=Bindings(),
        completeness=Completeness(status=CompletenessStatus.COMPLETE, qualifier="no agent spans"),
        span_count=0,
    )


def _empty_diagnosis() -> Diagnosis:
    return Diagnosis(
        verdict=Verdict.PASS, root_cause="none", terminal_status=TerminalStatus.UNKNOWN, chain=(), verifier_results=()
    )


@pytest.mark.parametrize("mode", MODES)
def test_every_bundle_validates_against_the_schema_and_the_consumer(mode: str) -> None:
    data = _write(content_mode=mode)
    assert validate_bundle(data) == []
    jsonschema.Draft202012Validator(BUNDLE_SCHEMA).validate(_doc(data))


def test_empty_trajectory_bundle_validates() -> None:
    data = write_bundle(_empty_trajectory(), _empty_diagnosis(), BundleOptions())
    document = _doc(data)
    assert validate_bundle(data) == []
    assert document["nodes"] == [] and document["edges"] == [] and document["verifier_results"] == []
    runtime = [o for o in document["outcomes"] if o["outcome_kind"] == "runtime_completion"]
    assert runtime[0]["status"] == "unavailable" and runtime[0]["availability"] == "unavailable_at_source"
    assert document["bindings"]["models"]["availability"] == "none"
    assert document["bindings"]["detectors"]["availability"] == "none"


def test_all_required_top_level_fields_are_present() -> None:
    document = _doc(_write())
    assert set(CORE_FIELDS) <= set(document)
    assert set(document) - set(CORE_FIELDS) == {"extensions"}
    assert document["spec_version"] == "0.1"
    assert document["profiles"] == ["AT-Core", "AT-Evaluation"]
    assert document["trajectory_id"] == f"trace:{TRACE}"


def test_same_input_gives_the_same_bytes() -> None:
    assert _write() == _write()
    assert _write(content_mode="keep") == _write(content_mode="keep")


def test_node_and_edge_input_order_does_not_change_the_bytes() -> None:
    trajectory = make_trajectory()
    nodes, edges = list(trajectory.nodes), list(trajectory.edges)
    random.Random(7).shuffle(nodes)
    random.Random(8).shuffle(edges)
    shuffled = replace(trajectory, nodes=tuple(nodes), edges=tuple(edges), _index={})
    assert _write(shuffled) == _write(trajectory)


def test_timestamps_do_not_change_the_causal_part() -> None:
    trajectory = make_trajectory()
    moved = replace(
        trajectory,
        nodes=tuple(replace(n, start_unix_nano=n.start_unix_nano * 2 + 17) for n in trajectory.nodes),
        _index={},
    )
    first, second = _doc(_write(trajectory)), _doc(_write(moved))
    assert first["edges"] == second["edges"]
    assert [n["timing"]["start"] for n in first["nodes"]] != [n["timing"]["start"] for n in second["nodes"]]


def test_duration_of_detectors_never_reaches_the_bundle() -> None:
    diagnosis = make_diagnosis()
    slower = replace(diagnosis, verifier_results=tuple(replace(r, duration_s=99.0) for r in diagnosis.verifier_results))
    assert _write(diagnosis=slower) == _write(diagnosis=diagnosis)


def test_export_time_is_omitted_unless_given() -> None:
    assert "export_time" not in _doc(_write())["source"]
    document = _doc(_write(export_time="2026-01-02T03:04:05Z"))
    assert document["source"]["export_time"] == "2026-01-02T03:04:05Z"
    assert validate_bundle(_write(export_time="2026-01-02T03:04:05Z")) == []


def test_source_names_exporter_authority_and_cursor_without_infrastructure() -> None:
    source = _doc(_write(implementation_version="9.8.7"))["source"]
    assert source["implementation"] == "otel-trajectory"
    assert source["exporter_version"] == "9.8.7"
    assert source["authority_domain"] == "otel-service:checkout-agent"
    assert source["source_cursor"] == {"trace_id": TRACE, "span_count": 6}
    assert source["revision"] == 1


def test_scope_declares_the_selection_rule() -> None:
    scope = _doc(_write())["scope"]
    assert scope["selection"] == "all spans of one trace id"
    assert scope["boundary"]["trace_id"] == TRACE
    assert scope["root_nodes"] == [node_id(1)]


def test_complete_is_kept_only_without_material_losses() -> None:
    clean = make_trajectory(declarations=())
    document = _doc(_write(clean, content_mode="keep"))
    assert document["completeness"]["status"] == "complete"
    # the default trajectory declares an external parent: material, so never complete (AT-6.2c)
    assert _doc(_write(content_mode="keep"))["completeness"]["status"] == "partial"


def test_content_redaction_is_declared_and_makes_the_bundle_partial() -> None:
    clean = make_trajectory(declarations=())
    document = _doc(_write(clean, content_mode="digest"))
    assert document["completeness"]["status"] == "partial"
    assert "content" in document["completeness"]["material_losses"]
    redaction = [m for m in document["transform"]["lossy_mappings"] if m["qualifier"] == "redacted"]
    assert redaction and redaction[0]["material"] is True


@pytest.mark.parametrize("status", [CompletenessStatus.PARTIAL, CompletenessStatus.OPEN])
def test_partial_and_open_are_never_upgraded(status: CompletenessStatus) -> None:
    trajectory = make_trajectory(declarations=(), completeness=status, released_early=status is CompletenessStatus.OPEN)
    document = _doc(_write(trajectory, content_mode="keep"))
    assert document["completeness"]["status"] == status.value
    assert validate_bundle(_write(trajectory, content_mode="keep")) == []


def test_bindings_keep_unknown_and_none_apart() -> None:
    bindings = _doc(_write())["bindings"]
    assert bindings["tools"]["availability"] == "known"
    identities = {tool["name"]: tool["identity"] for tool in bindings["tools"]["values"]}
    assert identities == {"read_file": "content_digest", "write_file": "name_only"}
    assert bindings["detectors"]["values"] == [
        {"name": "tool_error", "version": "1.0.0"},
        {"name": "tool_loop", "version": "1.0.0"},
    ]
    assert bindings["task"]["availability"] == "unknown"
    trajectory = make_trajectory()
    model_call = trajectory.nodes[1]
    no_tools = replace(
        trajectory,
        bindings=replace(trajectory.bindings, tools=()),
        nodes=(trajectory.nodes[0], replace(model_call, tool_definitions=()), *trajectory.nodes[2:]),
        _index={},
    )
    assert _doc(_write(no_tools))["bindings"]["tools"]["availability"] == "none"
    not_captured = replace(trajectory, bindings=replace(trajectory.bindings, tools=()), _index={})
    assert _doc(_write(not_captured))["bindings"]["tools"]["availability"] == "unknown"


def test_states_are_declared_unavailable_and_referenced_by_every_node() -> None:
    document = _doc(_write())
    assert document["states"] == [
        {
            "state_id": "state:unavailable-at-source",
            "availability": "unavailable_at_source",
            "reason": "OpenTelemetry spans carry no state views, read or write sets, or state deltas",
        }
    ]
    assert {n["state_before"] for n in document["nodes"]} == {"state:unavailable-at-source"}


def test_nodes_keep_source_actor_authority_and_status() -> None:
    nodes = {n["node_id"]: n for n in _doc(_write())["nodes"]}
    write = nodes[node_id(4)]
    assert write["source"] == {"trace_id": TRACE, "span_id": "0000000000000004"}
    assert write["status"] == "failed" and write["authority_class"] == "runtime"
    assert write["error"]["type"] == "PermissionError"
    assert nodes[node_id(3)]["references"] == [{"trace_id": TRACE, "span_id": "0000000000000021"}]
    assert nodes[node_id(2)]["usage"] == {"input_tokens": 120, "output_tokens": 30}
    assert nodes[node_id(5)]["output"] == {"availability": "not_captured"}
    assert nodes[node_id(1)]["timing"]["start"] == "2025-06-15T15:06:40.000000000Z"


def test_external_parent_is_a_typed_reference_not_a_reparenting() -> None:
    document = _doc(_write())
    root = next(n for n in document["nodes"] if n["node_id"] == node_id(1))
    assert root["external_parent"]["span_id"] == "0000000000000063"
    assert not any(edge["from"] == node_id(1) for edge in document["edges"])


def test_edges_carry_evidence_and_say_which_ones_order() -> None:
    edges = _doc(_write())["edges"]
    linked = [e for e in edges if e["type"] == "linked"]
    assert linked == [{"from": node_id(5), "type": "linked", "to": node_id(1), "evidence": "span link", "orders": False}]
    assert all(edge["evidence"] for edge in edges)


def test_outcomes_keep_authorities_apart() -> None:
    outcomes = {o["outcome_kind"]: o for o in _doc(_write())["outcomes"]}
    assert set(outcomes) == {
        "runtime_completion", "terminal_classification", "agent_self_report", "user_acceptance", "external_success"
    }
    assert outcomes["runtime_completion"]["authority_class"] == "runtime"
    assert outcomes["runtime_completion"]["status"] == "completed"
    assert outcomes["terminal_classification"]["authority_class"] == "verifier"
    assert outcomes["terminal_classification"]["status"] == "error"
    assert outcomes["terminal_classification"]["resources"]["input_tokens"] == 320
    assert outcomes["agent_self_report"]["status"] == "unavailable"
    assert outcomes["external_success"]["authority_class"] == "external_system"


def test_one_verifier_result_per_detector() -> None:
    results = _doc(_write())["verifier_results"]
    assert [r["verifier_result_id"] for r in results] == ["verify:tool_error", "verify:tool_loop"]
    first = results[0]
    assert first["version"] == "1.0.0" and first["status"] == "fail"
    assert first["evidence_refs"] == [node_id(4)]
    assert first["output"] == {"summary": "1 unrecovered tool error", "findings": 1}


def test_verifier_ids_stay_unique_for_repeated_detector_names() -> None:
    diagnosis = make_diagnosis()
    twice = replace(diagnosis, verifier_results=diagnosis.verifier_results + diagnosis.verifier_results[:1])
    data = _write(diagnosis=twice)
    ids = [r["verifier_result_id"] for r in _doc(data)["verifier_results"]]
    assert ids == ["verify:tool_error", "verify:tool_loop", "verify:tool_error#2"]
    assert validate_bundle(data) == []


def test_detector_error_is_a_verifier_result_not_a_crash() -> None:
    diagnosis = make_diagnosis()
    broken = replace(
        diagnosis,
        verdict=Verdict.ERROR,
        error="tool_loop raised ValueError",
        verifier_results=(replace(diagnosis.verifier_results[1], status=VerifierStatus.ERROR, output="ValueError"),),
    )
    data = _write(diagnosis=broken)
    assert validate_bundle(data) == []
    assert _doc(data)["extensions"]["org.otel-trajectory.diagnosis"]["error"] == "tool_loop raised ValueError"


def test_reward_records_are_empty_with_an_explicit_absence() -> None:
    document = _doc(_write())
    assert document["reward_records"] == []
    absences = {a["field"]: a["status"] for a in document["disclosure"]["absences"]}
    assert absences["reward_records"] == "not_provided"


def test_transform_names_exporter_operations_and_lossy_mappings() -> None:
    transform = _doc(_write())["transform"]
    assert transform["exporter"] == "otel-trajectory@0.1.0"
    operations = [op["operation"] for op in transform["operations"]]
    assert operations == ["selection", "normalization", "labeling", "redaction", "secret_scrubbing"]
    categories = {m["category"] for m in transform["lossy_mappings"]}
    assert {"state_view", "sibling_order", "parent", "content"} <= categories
    assert transform["derived_from"] is None


def test_rights_are_six_separate_statements_and_unknown_is_not_permission() -> None:
    rights = _doc(_write())["rights"]
    assert rights == {
        "retention": "unknown",
        "local_evaluation": "unknown",
        "hosted_evaluation": "unknown",
        "training": "unknown",
        "redistribution_original": "unknown",
        "redistribution_transformed": "unknown",
        "unknown_means": "not_granted",
    }
    granted = _doc(_write(rights=RightsConfig(retention="granted", training="denied")))["rights"]
    assert granted["retention"] == "granted" and granted["training"] == "denied"


def test_rights_config_rejects_other_words() -> None:
    with pytest.raises(ValueError, match="rights.training"):
        RightsConfig(training="yes")  # type: ignore[arg-type]


def test_integrity_digest_covers_the_bundle_without_itself() -> None:
    document = _doc(_write())
    integrity = document["integrity"]
    assert integrity["canonicalization"] == "RFC8785-JCS" and integrity["algorithm"] == "sha-256"
    assert integrity["digest"] == integrity_digest(document)


def test_findings_live_in_the_namespaced_extension() -> None:
    extension = _doc(_write())["extensions"]["org.otel-trajectory.diagnosis"]
    assert extension["required"] is False
    assert extension["root_cause"] == "tool_error"
    assert [item["rank"] for item in extension["causal_chain"]] == [1, 2]


def test_build_and_write_agree() -> None:
    options = BundleOptions()
    assert orjson.loads(write_bundle(make_trajectory(), make_diagnosis(), options)) == build_bundle(
        make_trajectory(), make_diagnosis(), options
    )


def test_bad_content_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="content_mode"):
        BundleOptions(content_mode="hide")  # type: ignore[arg-type]
