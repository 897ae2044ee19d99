"""Processes for the end-to-end tests: an Arize Phoenix server and ``otel-trajectory serve`` exporting to it.

Both run as subprocesses of the test interpreter, on 127.0.0.1, with their logs in the test's temporary directory.
Readiness is polled with a deadline; every process is terminated, then killed, at the end of the module.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PHOENIX_START_DEADLINE = 180.0
"""Seconds for Phoenix to run its database migrations and answer ``/readyz`` (about 10 s on 2 cores)."""
PROCESSOR_START_DEADLINE = 60.0
START_ATTEMPTS = 3
"""Phoenix's ports and the processor's gRPC port are chosen free, then bound by the child process; a port taken
in between makes the process exit, which costs one more attempt with new ports."""
STOP_GRACE = 15.0
LOG_TAIL_LINES = 40


@dataclass(frozen=True, slots=True)
class RunningProcess:
    process: subprocess.Popen[bytes]
    log: Path

    def tail(self) -> str:
        """The last lines of the process's combined output, for failure messages."""
        try:
            lines = self.log.read_text(errors="replace").splitlines()
        except OSError as exc:
            return f"(no log: {exc})"
        return "\n".join(lines[-LOG_TAIL_LINES:])


@dataclass(frozen=True, slots=True)
class PhoenixServer:
    running: RunningProcess
    http_url: str
    grpc_port: int


@dataclass(frozen=True, slots=True)
class TrajectoryProcess:
    running: RunningProcess
    port: int
    output_dir: Path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _launch(argv: list[str], env: dict[str, str], log: Path) -> RunningProcess:
    with log.open("wb") as sink:
        process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                                   cwd=log.parent)
    return RunningProcess(process, log)


def _stop(running: RunningProcess) -> int:
    """SIGTERM, wait up to STOP_GRACE seconds, then SIGKILL. Returns the exit code."""
    process = running.process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait(timeout=STOP_GRACE)


def _wait_until(ready: Callable[[], bool], running: RunningProcess, deadline: float, what: str) -> bool:
    """Poll ``ready`` until it holds (True), the process exits (False) or the deadline passes (test failure)."""
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        if ready():
            return True
        if running.process.poll() is not None:
            return False
        time.sleep(0.2)
    pytest.fail(f"{what} not ready after {deadline:.0f} s; its output ends with:\n{running.tail()}")


def _start(what: str, attempt: Callable[[int], tuple[RunningProcess, Callable[[], bool]]],
           deadline: float) -> RunningProcess:
    """Launch with ``attempt(n)`` until its readiness check holds; a process that exits early is tried again."""
    for number in range(1, START_ATTEMPTS + 1):
        running, ready = attempt(number)
        try:
            if _wait_until(ready, running, deadline, what):
                return running
        except BaseException:
            _stop(running)
            raise
        code = _stop(running)
        if number == START_ATTEMPTS:
            pytest.fail(f"{what} exited with code {code} before it was ready ({number} attempts); "
                        f"its output ends with:\n{running.tail()}")
    raise AssertionError("unreachable")


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2.0) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _phoenix_env(working_dir: Path, http_port: int, grpc_port: int) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PHOENIX_", "OTEL_"))}
    env.update(
        PHOENIX_WORKING_DIR=str(working_dir),
        PHOENIX_SQL_DATABASE_URL=f"sqlite:///{working_dir / 'phoenix.db'}",
        PHOENIX_HOST="127.0.0.1",
        PHOENIX_PORT=str(http_port),
        PHOENIX_GRPC_PORT=str(grpc_port),
        PHOENIX_TELEMETRY_ENABLED="false",
        PHOENIX_ALLOW_EXTERNAL_RESOURCES="false",
        PHOENIX_DISABLE_AGENT_ASSISTANT="true",
        PHOENIX_ENABLE_MCP_SERVER="false",
        PHOENIX_LOG_MIGRATIONS="false",
    )
    return env


@pytest.fixture(scope="module")
def phoenix_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PhoenixServer]:
    """Arize Phoenix with SQLite storage in a temporary working directory, HTTP on 127.0.0.1."""
    if importlib.util.find_spec("phoenix.server.main") is None:
        pytest.fail(f"arize-phoenix is not installed for {sys.executable}; run `make e2e`, which installs "
                    "requirements-e2e.txt into .venv-e2e and runs these tests there")
    base = tmp_path_factory.mktemp("phoenix")
    ports: dict[str, int] = {}

    def attempt(number: int) -> tuple[RunningProcess, Callable[[], bool]]:
        working_dir = base / f"attempt-{number}"
        working_dir.mkdir()
        ports.update(http=_free_port(), grpc=_free_port())
        running = _launch([sys.executable, "-m", "phoenix.server.main", "serve"],
                          _phoenix_env(working_dir, ports["http"], ports["grpc"]), working_dir / "phoenix.log")
        return running, lambda: _http_ok(f"http://127.0.0.1:{ports['http']}/readyz")

    running = _start("Phoenix", attempt, PHOENIX_START_DEADLINE)
    try:
        yield PhoenixServer(running, f"http://127.0.0.1:{ports['http']}", ports["grpc"])
    finally:
        _stop(running)


@pytest.fixture(scope="module")
def trajectory_process(phoenix_server: PhoenixServer,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[TrajectoryProcess]:
    """``otel-trajectory serve`` on 127.0.0.1, exporting to Phoenix's OTLP/gRPC port; ready once its gRPC health
    service reports the trace service SERVING."""
    from processor.pipeline.receiver import TRACE_SERVICE
    from processor.telemetry.health import probe

    command = Path(sys.executable).parent / "otel-trajectory"
    if not command.exists():
        pytest.fail(f"{command} not found: install the project into this interpreter (`pip install -e .`)")
    work = tmp_path_factory.mktemp("otel-trajectory")
    output_dir = work / "out"
    # The corpus's detector config, and a ledger for every trace (the test reads the verdict of clean ones too;
    # the default policy writes files only for traces with a finding).
    config = work / "config.yaml"
    config.write_text((REPO_ROOT / "corpus" / "config.yaml").read_text() + "output:\n  artifacts: all\n")
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    ports: dict[str, int] = {}

    def attempt(number: int) -> tuple[RunningProcess, Callable[[], bool]]:
        ports.update(grpc=_free_port())
        endpoint = f"127.0.0.1:{ports['grpc']}"
        running = _launch(
            [str(command), "serve", "--config", str(config),
             "--listen", endpoint, "--http-listen", "127.0.0.1:0",
             "--export-endpoint", f"127.0.0.1:{phoenix_server.grpc_port}",
             "--output-dir", str(output_dir), "--decision-wait", "0.2"],
            env, work / f"otel-trajectory-{number}.log",
        )
        return running, lambda: probe(endpoint, timeout=1.0, service=TRACE_SERVICE)[0]

    running = _start("otel-trajectory serve", attempt, PROCESSOR_START_DEADLINE)
    yield TrajectoryProcess(running, ports["grpc"], output_dir)
    code = _stop(running)
    if code != 0:
        pytest.fail(f"otel-trajectory serve exited with code {code} on SIGTERM; its output ends with:\n"
                    f"{running.tail()}")
