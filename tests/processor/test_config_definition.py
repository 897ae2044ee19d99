"""One config definition: the defaults are the public ones, and the JSON Schema and the example file are what the
definition generates (a key added in one place only fails here). Go-style durations everywhere."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from processor.config import Config, ConfigError, load_config, parse_config
from processor.config.definition import CONFIG
from processor.config.generate import EXAMPLE_PATH, SCHEMA_PATH, example_text, main, schema_text
from processor.pipeline.assembler import AssemblerLimits
from processor.settings import Key, Section

# The public defaults (README, docs): changing one is a change of the interface, not a refactoring.
PUBLIC_DEFAULTS: dict[str, Any] = {
    "receiver.endpoint": "127.0.0.1:4317",
    "receiver.http.endpoint": "127.0.0.1:4318",
    "receiver.http.enabled": True,
    "receiver.max_recv_msg_size_mib": 16,
    "receiver.max_concurrent_streams": 64,
    "receiver.max_concurrent_rpcs": 256,
    "receiver.keepalive.server_parameters.max_connection_idle": 0.0,
    "receiver.keepalive.server_parameters.max_connection_age": 600.0,
    "receiver.keepalive.server_parameters.max_connection_age_grace": 60.0,
    "processor.decision_wait": 2.0,
    "processor.idle_timeout": 30.0,
    "processor.max_trace_wait": 300.0,
    "processor.max_run_wait": 900.0,
    "processor.run_horizon": 14_400.0,
    "processor.run_state_memory_mib": 64,
    "processor.run_state_storage_mib": 1024,
    "processor.num_traces": 50_000,
    "processor.max_buffered_spans": 1_000_000,
    "processor.max_analysis_lag": 5.0,
    "processor.released_cache_size": 100_000,
    "processor.passthrough": False,
    "processor.memory_limit_mib": 0,
    "processor.analysis_workers": "auto",
    "output.directory": "./otel-trajectory-data",
    "output.write_artifacts": True,
    "output.artifacts": "findings",
    "output.artifacts_sampling_percentage": 0.0,
    "output.retention.max_megabytes": 1024,
    "output.retention.max_days": 0.0,
    "output.content_mode": "digest",
    "output.evaluation_log_records": "late",
    **{f"output.rights.{right}": "unknown" for right in (
        "retention", "local_evaluation", "hosted_evaluation", "training", "redistribution_original",
        "redistribution_transformed",
    )},
    "pricing.models": {},
    "pricing.tools": {},
    "telemetry.metrics.otlp.interval": 60.0,
    "detectors.time_budget_s": 2.0,
    "detectors.trajectory_time_budget_s": 10.0,
    "detectors.loop.min_repeats": 3,
    "detectors.loop.fuzzy": True,
    "detectors.policy.forbidden_tools": (),
    "detectors.policy.approval_required_tools": (),
    "detectors.policy.approval_nodes": ("*approv*",),
    "detectors.ordering.require_successful_read": True,
    "detectors.state_stall.turns": 3,
    "detectors.duplicate_effect.write_tools": (
        "create_*", "update_*", "write_*", "delete_*", "send_*", "transfer_*", "post_*", "put_*"),
    "detectors.duplicate_effect.idempotent_tools": (),
    "detectors.duplicate_effect.idempotency_keys": ("idempotency_key", "idempotencyKey", "idempotency-key"),
    "detectors.drift.window": 200,
    "detectors.drift.min_runs": 20,
    "detectors.drift.z_threshold": 3.0,
    "detectors.drift.relative_tolerance": 0.5,
    "detectors.drift.max_mix_distance": 0.5,
    "detectors.drift.path_dominance": 0.8,
    "detectors.drift.max_baselines": 10_000,
}
for _exporter in ("exporter", "logs_exporter"):
    PUBLIC_DEFAULTS |= {
        f"{_exporter}.headers": {},
        f"{_exporter}.compression": "gzip",
        f"{_exporter}.timeout": 10.0,
        f"{_exporter}.max_message_bytes": 4 * 1024 * 1024,
        f"{_exporter}.retry_on_failure.enabled": True,
        f"{_exporter}.retry_on_failure.initial_interval": 5.0,
        f"{_exporter}.retry_on_failure.max_interval": 30.0,
        f"{_exporter}.retry_on_failure.max_elapsed_time": 300.0,
        f"{_exporter}.retry_on_failure.multiplier": 1.5,
        f"{_exporter}.retry_on_failure.randomization_factor": 0.5,
        f"{_exporter}.sending_queue.enabled": True,
        f"{_exporter}.sending_queue.queue_size": 1000,
        f"{_exporter}.sending_queue.num_consumers": 4,
        f"{_exporter}.sending_queue.storage_max_mib": 1024,
        f"{_exporter}.sending_queue.fsync": True,
        f"{_exporter}.sending_queue.batch.flush_timeout": 0.2,
        f"{_exporter}.sending_queue.batch.min_size": 8192,
    }
PUBLIC_DEFAULTS |= {"telemetry.metrics.otlp.headers": {}}


def test_the_definition_holds_the_public_defaults() -> None:
    declared = {path: key.default for path, key in CONFIG.walk() if key.default is not None}
    assert declared == PUBLIC_DEFAULTS


def test_the_dataclasses_and_the_loader_take_the_definition_defaults() -> None:
    config = Config()
    assert parse_config({}) == config == parse_config({"receiver": {}, "processor": None, "detectors": {}})
    assert (config.listen, config.http_listen, config.output_dir) == (
        "127.0.0.1:4317", "127.0.0.1:4318", "./otel-trajectory-data")
    assert config.max_recv_msg_size == 16 * 1024 * 1024
    assert (config.max_connection_idle, config.max_connection_age, config.max_connection_age_grace) == (None, 600.0, 60.0)
    assert (config.decision_wait, config.idle_timeout, config.max_trace_wait) == (2.0, 30.0, 300.0)
    assert (config.num_traces, config.max_buffered_spans, config.released_cache_size) == (50_000, 1_000_000, 100_000)
    assert (config.memory_limit_mib, config.analysis_workers, config.content_mode) == (0, "auto", "digest")
    assert config.metrics.otlp_interval == 60.0 and config.detectors.drift.window == 200
    export = parse_config({"exporter": {"endpoint": "x:1"}}).export
    assert export is not None and export.insecure and export.timeout == 10.0 and export.max_message_bytes == 4 * 1024 * 1024
    assert export.retry_on_failure.max_elapsed_time == 300.0 and export.sending_queue.batch_flush_timeout == 0.2
    limits = AssemblerLimits()
    assert (limits.decision_wait, limits.idle_timeout, limits.max_trace_wait, limits.num_traces,
            limits.max_buffered_spans, limits.released_cache_size) == (
        config.decision_wait, config.idle_timeout, config.max_trace_wait, config.num_traces,
        config.max_buffered_spans, config.released_cache_size)


def test_the_schema_and_the_example_are_generated_from_the_definition() -> None:
    hint = "regenerate with: python -m processor.config.generate --write"
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), hint
    assert EXAMPLE_PATH.read_text(encoding="utf-8") == example_text(), hint
    assert main(["--check"]) == 0


def test_generate_check_fails_on_a_stale_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from processor.config import generate

    stale = tmp_path / "config.example.yaml"
    stale.write_text(example_text().replace("  num_traces: 50000", "  num_traces: 1"))
    (tmp_path / "schema.json").write_text(schema_text())
    monkeypatch.setattr(generate, "EXAMPLE_PATH", stale)
    monkeypatch.setattr(generate, "SCHEMA_PATH", tmp_path / "schema.json")
    monkeypatch.setattr(generate, "ROOT", tmp_path)
    assert main(["--check"]) == 1
    assert "stale: config.example.yaml" in capsys.readouterr().err
    assert main(["--write"]) == 0 and stale.read_text() == example_text()


def _schema_node(schema: dict[str, Any], path: str) -> dict[str, Any]:
    node = schema
    for part in path.split("."):
        node = node["properties"][part]
    return node


def test_every_key_is_in_the_schema_and_the_example_and_no_other() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    example_text_ = EXAMPLE_PATH.read_text()
    example = yaml.safe_load(example_text_)
    keys = dict(CONFIG.walk())
    assert len(keys) > 100
    for path, key in keys.items():
        assert _schema_node(schema, path), path
        parent_path, _, name = path.rpartition(".")
        parent = example
        for part in parent_path.split("."):
            parent = parent[part]
        if key.commented:
            assert name not in parent, path
            assert re.search(rf"^\s*# {re.escape(name)}:", example_text_, re.MULTILINE), path
        else:
            assert name in parent, path

    def documented(node: dict[str, Any], prefix: str) -> set[str]:
        found = set()
        for name, value in node.items():
            path = f"{prefix}.{name}" if prefix else name
            child = _definition_node(path)
            found |= documented(value, path) if isinstance(child, Section) and isinstance(value, dict) else {path}
        return found

    assert documented(example, "") <= set(keys)


def _definition_node(path: str) -> Key | Section:
    node: Key | Section = CONFIG
    for part in path.split("."):
        assert isinstance(node, Section), path
        node = node.child(part)
    return node


def test_the_example_matches_the_schema_and_loads_with_the_documented_values() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    raw = yaml.safe_load(EXAMPLE_PATH.read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(raw)) == []
    config = load_config(EXAMPLE_PATH, environ={})
    assert config.export is not None and config.export.cert_file == "/etc/otel-trajectory/tls/client.crt"
    assert config.logs_export is not None and config.logs_export.insecure
    assert config.detectors.budget.max_duration_s == 900.0 and config.detectors.ordering.rules
    assert schema["properties"]["detectors"]["properties"]["drift"]["properties"]["window"]["default"] == 200


GOOD_DURATIONS = [("1m30s", 90.0), ("500ms", 0.5), ("2h", 7200.0), ("1h2m3.5s", 3723.5), ("250us", 0.00025),
                  ("2", 2.0), ("2.5s", 2.5), (".5h", 1800.0), (45, 45.0), (1.5, 1.5), ("0s", 0.0)]
BAD_DURATIONS = ["soon", "1m30", "1d", "-1s", "1.2.3s", "", "m", True, [1]]


@pytest.mark.parametrize(("text", "seconds"), GOOD_DURATIONS, ids=str)
@pytest.mark.parametrize("key", ["exporter.retry_on_failure.max_elapsed_time", "receiver.keepalive.server_parameters.max_connection_age",
                                 "telemetry.metrics.otlp.interval", "exporter.sending_queue.batch.flush_timeout"])
def test_go_style_durations_are_read_everywhere(key: str, text: object, seconds: float) -> None:
    raw = _nested(key, text)
    if key.startswith("exporter"):
        raw["exporter"]["endpoint"] = "x:1"
    config = parse_config(raw)
    read = {
        "exporter.retry_on_failure.max_elapsed_time": lambda: config.export.retry_on_failure.max_elapsed_time,  # type: ignore[union-attr]
        "receiver.keepalive.server_parameters.max_connection_age": lambda: config.max_connection_age or 0.0,
        "telemetry.metrics.otlp.interval": lambda: config.metrics.otlp_interval,
        "exporter.sending_queue.batch.flush_timeout": lambda: config.export.sending_queue.batch_flush_timeout,  # type: ignore[union-attr]
    }[key]()
    assert read == pytest.approx(seconds)


def test_go_style_durations_in_processor_and_detector_keys() -> None:
    config = parse_config({"processor": {"decision_wait": "1.5s", "idle_timeout": "1m30s", "max_trace_wait": "1h2m3.5s"},
                           "detectors": {"time_budget_s": "500ms", "budget": {"max_duration_s": "15m"}}})
    assert (config.decision_wait, config.idle_timeout, config.max_trace_wait) == (1.5, 90.0, 3723.5)
    assert config.detectors.time_budget_s == 0.5 and config.detectors.budget.max_duration_s == 900.0


@pytest.mark.parametrize("value", BAD_DURATIONS, ids=repr)
def test_a_wrong_duration_names_the_key_and_the_accepted_forms(value: object) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"processor": {"max_trace_wait": value}})
    (problem,) = caught.value.problems
    assert problem.startswith("processor.max_trace_wait: ")
    assert "1m30s" in problem and "500ms" in problem and "number of seconds" in problem and repr(value) in problem


@pytest.mark.parametrize("value", [text for text, _ in GOOD_DURATIONS] + BAD_DURATIONS, ids=repr)
def test_the_schema_accepts_the_durations_the_loader_accepts(value: object) -> None:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    document = {"exporter": {"endpoint": "x:1", "timeout": value}}
    try:
        parse_config(document)
        loads = True
    except ConfigError:
        loads = False
    assert validator.is_valid(document) == loads


def _nested(dotted: str, value: object) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    *parents, name = dotted.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[name] = value
    return root


def test_duration_flags_take_the_config_forms() -> None:
    from processor.cli.main import _parser

    assert _parser().parse_args(["serve", "--decision-wait", "1m30s"]).decision_wait == 90.0
    assert _parser().parse_args(["healthcheck", "--timeout", "500ms"]).timeout == 0.5
    assert _parser().parse_args(["serve", "--decision-wait", "3"]).decision_wait == 3.0
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--decision-wait", "soon"])


def test_the_loader_uses_every_declared_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key declared (and so accepted) but never read into the config would be silently ignored."""
    from processor.config.loader import build_config
    from processor.settings import Values

    read: set[str] = set()
    original = Values.__getitem__

    def recording(self: Values, key: str) -> Any:
        read.add(self.at(key))
        return original(self, key)

    monkeypatch.setattr(Values, "__getitem__", recording)
    text = re.sub(r"^(\s*)# (bearer_token_file|enabled|references):", r"\1\2:", EXAMPLE_PATH.read_text(), flags=re.M)
    build_config(yaml.safe_load(text), load_files=False)
    assert {path for path, _ in CONFIG.walk()} - read == set()


@pytest.mark.parametrize("rel", ["deploy/otel-trajectory/config.yaml", "deploy/examples/behind-gateway.yaml",
                                 "deploy/examples/jaeger.yaml", "deploy/examples/tempo-tenant.yaml",
                                 "corpus/config.yaml", "docs/config.example.yaml"])
def test_the_config_files_in_the_repo_match_the_schema(rel: str) -> None:
    from processor.config import expand_env

    root = Path(__file__).resolve().parents[2]
    problems: list[str] = []
    document = yaml.safe_load(expand_env((root / rel).read_text(), {}, problems))
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    assert [error.message for error in validator.iter_errors(document)] == []
