"""``check-config`` checks what ``serve`` will read (TLS and token files, spool directories) and reports every problem
at once; ``--offline`` checks keys and values only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from processor.cli.main import main
from processor.config.generate import EXAMPLE_PATH
from tests.support.pki import Pki, make_pki

EXAMPLE_FILES = [
    ("receiver.tls.cert_file", "/etc/otel-trajectory/tls/server.crt"),
    ("receiver.tls.key_file", "/etc/otel-trajectory/tls/server.key"),
    ("receiver.tls.client_ca_file", "/etc/otel-trajectory/tls/ca.crt"),
    ("exporter.tls.ca_file", "/etc/ssl/certs/tempo-ca.pem"),
    ("exporter.tls.cert_file", "/etc/otel-trajectory/tls/client.crt"),
    ("exporter.tls.key_file", "/etc/otel-trajectory/tls/client.key"),
]


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TLS_DIR", "OTEL_TRAJECTORY_TOKEN", "TEMPO_TENANT"):
        monkeypatch.delenv(name, raising=False)


def test_the_example_loads_offline(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", "--offline", str(EXAMPLE_PATH)]) == 0
    assert capsys.readouterr().out.startswith(f"{EXAMPLE_PATH}: OK (offline: files not checked)\n")


@pytest.mark.skipif(any(os.path.exists(path) for _, path in EXAMPLE_FILES), reason="this machine has the example's files")
def test_the_full_check_of_the_example_names_each_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(EXAMPLE_PATH)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    for setting, path in EXAMPLE_FILES:
        assert f"{setting}: {path!r} does not exist" in captured.err, (setting, captured.err)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


def test_a_config_whose_files_are_there_passes(tmp_path: Path, pki: Pki, capsys: pytest.CaptureFixture[str]) -> None:
    token = tmp_path / "token"
    token.write_text("s3cret-token\n")
    path = _write(tmp_path, (
        f"receiver:\n  tls: {{cert_file: {pki.server_cert}, key_file: {pki.server_key}, client_ca_file: {pki.ca}}}\n"
        f"  auth: {{bearer_token_file: {token}}}\n"
        f"exporter:\n  endpoint: 'tempo:4317'\n  tls: {{ca_file: {pki.ca}, cert_file: {pki.client_cert}, key_file: {pki.client_key}}}\n"
        f"  sending_queue: {{storage: {tmp_path / 'spool'}}}\n"
        f"output: {{directory: {tmp_path / 'out'}}}\n"
    ))
    assert main(["check-config", str(path)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith(f"{path}: OK\n")
    assert not (tmp_path / "spool").exists()  # checked, not created


def test_every_problem_serve_would_stop_on_is_reported_at_once(
    tmp_path: Path, pki: Pki, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    path = _write(tmp_path, (
        f"receiver:\n  tls: {{cert_file: {pki.server_cert}, key_file: {tmp_path / 'absent.key'}}}\n"
        f"  auth: {{bearer_token_file: {tmp_path / 'absent-token'}}}\n"
        f"exporter:\n  endpoint: 'tempo:4317'\n  tls: {{ca_file: {tmp_path}, cert_file: {pki.client_cert}}}\n"
        f"  sending_queue: {{storage: {blocker / 'spool'}}}\n"
        f"logs_exporter: {{endpoint: 'c:4317', tls: {{ca_file: {pki.encrypted_key}}}}}\n"
        "telemetry: {metrics: {prometheus: {endpoint: 'localhost:99999'}}}\n"
    ))
    assert main(["check-config", str(path)]) == 2
    err = capsys.readouterr().err
    expected = [
        f"receiver.tls.key_file: {str(tmp_path / 'absent.key')!r} does not exist",
        f"receiver.auth.bearer_token_file: {str(tmp_path / 'absent-token')!r} does not exist",
        f"exporter.tls.ca_file: {str(tmp_path)!r} is a directory",
        "exporter.tls: cert_file and key_file go together",
        f"exporter.sending_queue.storage: spool directory {str(blocker / 'spool')!r} cannot be created",
        f"logs_exporter.tls: ca_file {pki.encrypted_key!r} is not a PEM certificate",  # the message serve gives
        "telemetry.metrics.prometheus.endpoint: 'localhost:99999' is not HOST:PORT",
    ]
    for fragment in expected:
        assert fragment in err, (fragment, err)
    assert "7 problem(s)" in err, err


def test_offline_skips_the_file_checks_but_not_the_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, f"receiver: {{tls: {{cert_file: {tmp_path / 'a.crt'}, key_file: {tmp_path / 'a.key'}}}}}\n")
    assert main(["check-config", "--offline", str(path)]) == 0
    assert main(["check-config", str(path)]) == 2
    assert "receiver.tls.cert_file" in capsys.readouterr().err
    path.write_text("receiver: {tls: {cert_file: a.crt}}\nprocessor: {decision_wait: 1d}\n")
    assert main(["check-config", "--offline", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cert_file and key_file are both required" in err and "processor.decision_wait" in err


def test_an_unwritable_spool_directory_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spool = tmp_path / "spool"
    spool.write_text("a file where the spool should be")
    path = _write(tmp_path, f"exporter: {{endpoint: 'x:1', sending_queue: {{storage: {spool}}}}}\n")
    assert main(["check-config", str(path)]) == 2
    assert f"spool directory {str(spool)!r} exists and is not a directory" in capsys.readouterr().err
    path.write_text(f"output: {{directory: {spool / 'out'}}}\n")  # the default spool under output.directory
    assert main(["check-config", str(path)]) == 2
    assert "output.directory (the exporter spool)" in capsys.readouterr().err
