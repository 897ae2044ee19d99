"""Run ``otel-trajectory serve`` as a real child process for crash and signal tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from processor.telemetry.health import probe

__all__ = ["ServeProcess", "free_port"]

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServeProcess:
    def __init__(self, config: Path, log: Path) -> None:
        self.config = config
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, endpoint: str, timeout: float = 30.0) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "processor.cli", "--log-level", "INFO", "serve", "--config", str(self.config)],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited with {self.process.returncode}:\n{self.log.read_text()[-3000:]}")
            if probe(endpoint, timeout=0.5)[0]:
                return
            time.sleep(0.05)
        raise TimeoutError(f"serve did not become ready:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def terminate(self, timeout: float = 60.0) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)

    def stop_quietly(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
