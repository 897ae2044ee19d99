"""Config loading: env expansion, every problem reported at once, every config file in the repo loads.

Defaults, the schema and the example against the definition: ``test_config_definition.py``; ``check-config``:
``test_check_config.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from processor.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_durations_env_and_collector_names(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "processor: {decision_wait: 500ms, idle_timeout: 10s, max_trace_wait: 2m}\n"
        "exporter:\n  endpoint: ${env:BACKEND}\n  headers: {X-Scope-OrgID: ${env:TENANT:-acme}}\n"
        "  retry_on_failure: {initial_interval: 1s}\n  sending_queue: {queue_size: 10, num_consumers: 2}\n"
    )
    config = load_config(path, environ={"BACKEND": "tempo:4317"})
    assert config.decision_wait == 0.5 and config.idle_timeout == 10.0 and config.max_trace_wait == 120.0
    assert config.export is not None and config.export.endpoint == "tempo:4317"
    assert config.export.headers == {"x-scope-orgid": "acme"}
    assert config.export.retry_on_failure.initial_interval == 1.0
    assert config.export.sending_queue.queue_size == 10


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "receiver: {endpoint: nowhere}\n"
        "processor: {decision_wait: soon, num_traces: -1, bogus: 1}\n"
        "exporter: {endpoint: ${env:MISSING}, compression: zstd}\n"
        "output: {content_mode: everything}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    problems = "\n".join(caught.value.problems)
    for expected in ("MISSING is not set", "receiver.endpoint", "processor.decision_wait", "processor.num_traces",
                     "processor.bogus: unknown key", "exporter.compression", "output.content_mode"):
        assert expected in problems
    assert len(caught.value.problems) >= 7


def test_unreadable_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.yaml")


GENERATOR_INSTALLS = frozenset({".venvs", "node_modules"})
"""What the corpus generator installs under corpus/generate (not the project's files, not in git)."""


@pytest.mark.parametrize("path", sorted(p for p in ROOT.glob("corpus/**/*.yaml") if GENERATOR_INSTALLS.isdisjoint(p.parts)),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_config_file_in_the_repo_loads(path: Path) -> None:
    if path.name == "refs.yaml" or "reference" in path.name:
        pytest.skip("reference-path file, not a processor config")
    load_config(path, environ={})


def test_config_files_match_the_json_schema(tmp_path: Path) -> None:
    import json

    import jsonschema
    import yaml

    schema = json.loads((ROOT / "schema" / "otel-trajectory-config-0.1.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    good = yaml.safe_load(
        "receiver: {endpoint: '127.0.0.1:4317'}\nprocessor: {decision_wait: 2s}\n"
        "exporter: {endpoint: 'tempo:4317', headers: {X-Scope-OrgID: a}, retry_on_failure: {max_elapsed_time: 300s}}\n"
        "output: {content_mode: drop}\n"
    )
    assert list(validator.iter_errors(good)) == []
    load_config_text = tmp_path / "c.yaml"
    load_config_text.write_text(yaml.safe_dump(good))
    load_config(load_config_text)  # the processor accepts what the schema accepts
    assert list(validator.iter_errors({"processor": {"decision_wait": "soon"}}))
    assert list(validator.iter_errors({"exporter": {"compression": "zstd", "endpoint": "x:1"}}))
    assert validator.is_valid(yaml.safe_load((ROOT / "corpus" / "config.yaml").read_text()))


def test_the_documented_example_config_loads_and_matches_the_schema() -> None:
    import json

    import jsonschema
    import yaml

    path = ROOT / "docs" / "config.example.yaml"
    config = load_config(path, environ={})
    assert config.tls is not None and config.tls.client_ca_file == "/etc/otel-trajectory/tls/ca.crt"
    assert config.auth is not None and config.auth.bearer_token == "change-me"
    assert "change-me" not in repr(config.auth)
    assert config.export is not None and config.export.ca_file == "/etc/ssl/certs/tempo-ca.pem"
    assert not config.export.insecure and config.export.headers == {"x-scope-orgid": "tenant-a"}
    assert config.logs_export is not None and config.logs_export.endpoint == "collector:4317"
    assert config.metrics.prometheus_endpoint == "127.0.0.1:8888" and config.metrics.otlp_interval == 60.0
    assert config.http_listen == "127.0.0.1:4318"
    queue = config.export.sending_queue
    assert (queue.batch_flush_timeout, queue.batch_min_size) == (0.2, 8192)
    schema = json.loads((ROOT / "schema" / "otel-trajectory-config-0.1.schema.json").read_text())
    raw = yaml.safe_load(path.read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(raw)) == []
    # every key the loader knows is documented in the example, and the schema knows every documented key
    assert set(raw) == set(schema["properties"])
    for section in ("receiver", "processor", "exporter", "output"):
        assert set(raw[section]) == set(schema["properties"][section]["properties"]), section


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("receiver: {tls: {cert_file: a.crt}}", "cert_file and key_file are both required"),
        ("receiver: {auth: {}}", None),
        ("receiver: {auth: {bearer_token: a, bearer_token_file: b}}", "exactly one of bearer_token"),
        ("exporter: {endpoint: 'x:1', tls: {insecure: true, ca_file: ca.pem}}", "insecure: true contradicts"),
        ("exporter: {endpoint: 'x:1', tls: {cert_file: c.pem}}", "cert_file and key_file go together"),
        ("telemetry: {metrics: {otlp: {endpoint: '127.0.0.1:4317'}}}", "own receiver"),
        ("receiver: {http: {endpoint: 'nohost'}}", "receiver.http.endpoint"),
        ("processor: {analysis_workers: -1}", "processor.analysis_workers"),
        ("exporter: {endpoint: 'x:1', sending_queue: {batch: {min_size: 0}}}", "exporter.sending_queue.batch.min_size"),
        ("exporter: {endpoint: 'x:1', sending_queue: {batch: {flush_time: 1s}}}", "flush_time"),
        ("telemetry: {metrics: {otlp: {endpoint: 'c:4317', tls: {insecure: true, ca_file: ca.pem}}}}", "insecure: true contradicts"),
        ("telemetry: {metrics: {otlp: {endpoint: 'c:4317', tls: {key_file: k.pem}}}}", "cert_file and key_file go together"),
    ],
)
def test_security_and_telemetry_settings_are_checked(tmp_path: Path, text: str, fragment: str | None) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    if fragment is None:
        assert load_config(path).auth is None  # an empty auth section means no auth
        return
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert any(fragment in problem for problem in caught.value.problems), caught.value.problems


def test_metrics_otlp_tls_takes_the_exporter_keys(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("telemetry: {metrics: {otlp: {endpoint: 'c:4317', tls: {ca_file: ca.pem, cert_file: c.pem, key_file: k.pem}}}}")
    metrics = load_config(path).metrics
    assert not metrics.otlp_insecure
    assert (metrics.otlp_ca_file, metrics.otlp_cert_file, metrics.otlp_key_file) == ("ca.pem", "c.pem", "k.pem")
    path.write_text("telemetry: {metrics: {otlp: {endpoint: 'c:4317'}}}")
    assert load_config(path).metrics.otlp_insecure  # no CA, no certificate: plaintext, as before


def test_spool_can_be_turned_off_and_http_disabled(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("receiver: {http: {enabled: false}}\nexporter: {endpoint: 'x:1', sending_queue: {storage: false}}\n")
    config = load_config(path)
    assert config.http_listen is None
    assert config.export is not None and not config.export.sending_queue.storage_enabled


def test_check_config_says_what_machine_dependent_settings_resolve_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from processor.cli.main import main

    path = tmp_path / "c.yaml"
    path.write_text("processor: {analysis_workers: 0, memory_limit_mib: 300}\n")
    assert main(["check-config", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: OK",
        "  processor.analysis_workers: analysis runs in a thread of serve",
        "  processor.memory_limit_mib: 300 -> 300 MiB",
    ]
    path.write_text("processor: {analysis_workers: 2}\n")
    assert main(["check-config", str(path)]) == 0
    ok, workers, memory = capsys.readouterr().out.splitlines()
    assert (ok, workers) == (f"{path}: OK", "  processor.analysis_workers: analysis runs in 2 worker process(es)")
    assert memory.startswith("  processor.memory_limit_mib: 0 -> ") and "25% of" in memory
    path.write_text("processor: {analysis_workers: lots}\n")
    assert main(["check-config", str(path)]) == 2
    assert "expected an integer >= 0 or auto, got 'lots'" in capsys.readouterr().err


def test_the_price_table_and_rights_are_read_and_checked() -> None:
    from otel_mapper.attribution import ModelPrice
    from processor.config import ConfigError, parse_config

    config = parse_config(
        {
            "pricing": {"models": {"gpt-4o-mini": {"input_per_million": 0.15, "output_per_million": 0.6}},
                        "tools": {"search": {"per_call": 0.01}}},
            "output": {"rights": {"local_evaluation": "granted", "training": "denied"}},
        }
    )
    assert config.pricing.model("gpt-4o-mini-2024-07-18") == ModelPrice(input_per_million=0.15, output_per_million=0.6)
    assert config.pricing.tool("search") is not None and config.pricing.model("gpt-4o") is None
    assert (config.rights.local_evaluation, config.rights.training, config.rights.retention) == (
        "granted", "denied", "unknown")
    with pytest.raises(ConfigError) as caught:
        parse_config({"pricing": {"models": {"m": {"input_per_million": -1}}, "tools": {"t": {}}},
                      "output": {"rights": {"training": "maybe"}}})
    problems = "\n".join(caught.value.problems)
    for fragment in ("pricing.models.m.input_per_million", "pricing.models.m.output_per_million: required",
                     "pricing.tools.t.per_call: required", "output.rights.training"):
        assert fragment in problems
