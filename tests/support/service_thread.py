"""A TrajectoryService and a capture sink running on their own event loop in a background thread, so synchronous
code (hypothesis tests, fuzz scripts) can send to them with blocking clients."""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from processor.config import Config, ExportConfig, MiB
from processor.service import TrajectoryService
from tests.support.capture_sink import CaptureSink

__all__ = ["ServiceThread"]

T = TypeVar("T")
METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


class ServiceThread:
    def __init__(self, output: Path, **overrides: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="service-loop", daemon=True)
        self._overrides = overrides
        self._output = output
        self.sink = CaptureSink()
        self.service: TrajectoryService | None = None
        self.port = 0
        self.http_port = 0
        self._channel: grpc.Channel | None = None

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def __enter__(self) -> ServiceThread:
        self._thread.start()
        sink_port = self.run(self.sink.start())
        settings: dict[str, Any] = {
            "listen": "127.0.0.1:0", "http_listen": "127.0.0.1:0", "output_dir": str(self._output),
            "decision_wait": 0.05, "idle_timeout": 1.0, "max_recv_msg_size": 4 * MiB,
            "export": ExportConfig(endpoint=f"127.0.0.1:{sink_port}"),
        }
        settings.update(self._overrides)
        self.service = TrajectoryService(Config(**settings))
        self.port = self.run(self.service.start())
        self.http_port = self.service.http_port or 0
        self._channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._channel is not None:
            self._channel.close()
        if self.service is not None:
            self.run(self.service.shutdown(deadline=30))
        self.run(self.sink.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    def send_grpc(self, body: bytes) -> str:
        """Outcome of one Export call: ``ok``, ``partial`` or the status code name."""
        assert self._channel is not None
        call = self._channel.unary_unary(METHOD, request_serializer=None, response_deserializer=ExportTraceServiceResponse.FromString)
        try:
            response = call(body, timeout=30)
        except grpc.RpcError as error:
            return error.code().name  # type: ignore[attr-defined]
        return "partial" if response.partial_success.rejected_spans else "ok"

    def send_http(self, body: bytes, content_type: str = "application/x-protobuf") -> str:
        """Outcome of one POST /v1/traces: ``http <status>``."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.http_port}/v1/traces", data=body, headers={"Content-Type": content_type}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return f"http {response.status}"
        except urllib.error.HTTPError as error:
            return f"http {error.code}"

    def drained(self) -> None:
        """Wait until everything accepted so far went downstream."""
        assert self.service is not None
        service = self.service

        async def settle() -> None:
            for _ in range(600):
                await service.flush()
                # a trace released while flush awaited is neither buffered nor flushed yet: flush again
                if service.buffered_traces == 0 and service.pending_spans == 0:
                    return
                await asyncio.sleep(0.05)

        self.run(settle(), timeout=120)
