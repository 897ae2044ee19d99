"""Start-up failures of ``serve``: one line naming the setting, the value and the cause, exit 2, no traceback, and
nothing left running (no analysis worker, no port held)."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from processor.config import Config, ExportConfig, MetricsConfig, QueueConfig
from processor.service import TrajectoryService
from processor.startup import StartupError, check_bindable
from tests.support.serve_process import ROOT, free_port

pytestmark = pytest.mark.slow  # runs serve as a child process

MARKER = "OTEL_TRAJECTORY_TEST_RUN"


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another process's socket listens on (here: ours, as a local Collector would)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def _processes_with(marker: str) -> list[int]:
    """Processes whose environment carries ``marker`` (the child and anything it started: workers inherit it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _serve(config: Path) -> tuple[int, list[str]]:
    """Run ``serve`` until it exits; its exit code and its non-empty output lines. Asserts nothing it started is
    still running."""
    marker = f"{MARKER}={uuid.uuid4().hex}"
    name, _, value = marker.partition("=")
    result = subprocess.run(
        [sys.executable, "-m", "processor.cli", "serve", "--config", str(config)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), name: value},
    )
    assert _processes_with(marker) == [], "serve left a process running"
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    return result.returncode, lines


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(f"output: {{directory: '{tmp_path / 'out'}'}}\nprocessor: {{analysis_workers: 1}}\n{text}")
    return path


def _assert_one_line(code: int, lines: list[str], *expected: str) -> None:
    assert code == 2, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("otel-trajectory serve: cannot start: "), lines
    for part in expected:
        assert part in lines[0], lines


@pytest.mark.parametrize(
    ("where", "setting"),
    [
        ("receiver: {{endpoint: '127.0.0.1:{port}', http: {{endpoint: '127.0.0.1:0'}}}}", "receiver.endpoint"),
        ("receiver: {{endpoint: '127.0.0.1:0', http: {{endpoint: '127.0.0.1:{port}'}}}}", "receiver.http.endpoint"),
        ("receiver: {{endpoint: '127.0.0.1:0', http: {{endpoint: '127.0.0.1:0'}}}}\n"
         "telemetry: {{metrics: {{prometheus: {{endpoint: '127.0.0.1:{port}'}}}}}}",
         "telemetry.metrics.prometheus.endpoint"),
    ],
)
def test_a_busy_port_is_one_line_naming_the_setting(tmp_path: Path, busy_port: int, where: str, setting: str) -> None:
    code, lines = _serve(_config(tmp_path, where.format(port=busy_port)))

    _assert_one_line(code, lines, f"{setting} 127.0.0.1:{busy_port}: address already in use")
    assert not any("Traceback" in line or "restarting" in line for line in lines)


def test_an_address_this_host_does_not_have_is_one_line(tmp_path: Path) -> None:
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): no interface of a test machine has it, so binding it is forbidden.
    port = free_port()
    code, lines = _serve(_config(tmp_path, f"receiver: {{endpoint: '192.0.2.1:{port}'}}"))

    _assert_one_line(code, lines, f"receiver.endpoint 192.0.2.1:{port}: address not available")


def test_a_missing_tls_file_is_one_line(tmp_path: Path) -> None:
    key = tmp_path / "server.key"
    key.write_text("present")
    missing = tmp_path / "server.crt"
    config = _config(tmp_path, f"receiver: {{endpoint: '127.0.0.1:0', tls: {{cert_file: '{missing}', key_file: '{key}'}}}}")

    code, lines = _serve(config)

    _assert_one_line(code, lines, f"receiver.tls.cert_file: '{missing}' does not exist")


def test_a_missing_token_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "token"
    code, lines = _serve(_config(tmp_path, f"receiver: {{endpoint: '127.0.0.1:0', auth: {{bearer_token_file: '{missing}'}}}}"))

    _assert_one_line(code, lines, f"receiver.auth.bearer_token_file: '{missing}' does not exist")


def test_a_spool_directory_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    config = _config(tmp_path, "receiver: {endpoint: '127.0.0.1:0'}\n"
                               f"exporter: {{endpoint: '127.0.0.1:9', sending_queue: {{storage: '{blocker / 'spool'}'}}}}")

    code, lines = _serve(config)

    _assert_one_line(code, lines, f"exporter.sending_queue.storage: spool directory '{blocker / 'spool'}' cannot be created")


# --- in process: what a failed start stops ------------------------------------------------------------------


@pytest.mark.parametrize("taken", ["receiver.endpoint", "receiver.http.endpoint", "telemetry.metrics.prometheus.endpoint"])
def test_a_port_taken_after_the_check_stops_everything_started(
    tmp_path: Path, busy_port: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, taken: str
) -> None:
    # The race the port check cannot close: a port is taken between the check and the bind, after some parts
    # (gRPC server, workers, exporters, HTTP receiver) started. They are stopped again.
    monkeypatch.setattr("processor.service.check_listeners", lambda config: None)
    spool = tmp_path / "spool"
    busy = f"127.0.0.1:{busy_port}"
    config = Config(
        listen=busy if taken == "receiver.endpoint" else "127.0.0.1:0",
        http_listen=busy if taken == "receiver.http.endpoint" else "127.0.0.1:0",
        output_dir=str(tmp_path), analysis_workers=1,
        export=ExportConfig(endpoint="127.0.0.1:9", sending_queue=QueueConfig(storage=str(spool))),
        metrics=MetricsConfig(prometheus_endpoint=busy if taken.startswith("telemetry") else "127.0.0.1:0"),
    )

    async def scenario() -> tuple[StartupError, TrajectoryService, list[asyncio.Task[object]]]:
        service = TrajectoryService(config)
        with pytest.raises(StartupError) as raised:
            await service.start()
        await service.shutdown()  # safe after a failed start
        return raised.value, service, [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]

    with caplog.at_level(logging.INFO):
        error, service, tasks = asyncio.run(scenario())

    (problem,) = error.problems
    assert problem.startswith(f"{taken} {busy}: ")
    if taken != "receiver.endpoint":  # gRPC says only that it could not bind
        assert problem == (f"{taken} {busy}: address already in use: another process listens there (4317 and 4318 "
                           "are often a local Collector's or Jaeger's); stop it or choose another port")
    assert tasks == []
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []
    pool = service._analysis.pool
    assert pool is not None and not any(handle.up for handle in pool._handles)  # workers stopped, not restarted
    started = [port for port in (service.port, service.http_port) if port and port != busy_port]
    for port in started:  # the listeners that had started let their ports go
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", port))
    from processor.pipeline.spool import Spool

    again = Spool(spool)
    again.open()  # the spool's lock was released
    asyncio.run(again.close())


def test_check_bindable_accepts_port_zero_and_a_free_port_and_names_a_busy_one(busy_port: int) -> None:
    check_bindable("receiver.endpoint", "127.0.0.1:0")
    check_bindable("receiver.endpoint", f"127.0.0.1:{free_port()}")
    with pytest.raises(StartupError, match=rf"^receiver.endpoint 127.0.0.1:{busy_port}: address already in use"):
        check_bindable("receiver.endpoint", f"127.0.0.1:{busy_port}")
    with pytest.raises(StartupError, match=r"^receiver.endpoint nowhere.invalid:4317: cannot resolve 'nowhere.invalid'"):
        check_bindable("receiver.endpoint", "nowhere.invalid:4317")
