"""The running processor: receiver -> assembler -> analysis -> exporters (+ artifact files).

One event loop owns all mutable state (assembler, queues, counters). Analysis runs in a worker thread so the
loop keeps answering requests; released traces are handed over through a bounded queue, and export awaits
room in the sending queue, so a slow downstream slows intake (the receiver answers UNAVAILABLE with RetryInfo)
instead of losing spans.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp import SpanEnvelope, build_requests
from processor.analysis import AnalysedTrace, AnalysisStage
from processor.assembler import AssemblerLimits, ReleasedTrace, TraceAssembler
from processor.config import Config
from processor.exporter import OtlpGrpcExporter, OutboundRequest, outbound
from processor.file_exporter import write_raw, write_spans
from processor.intake import Backpressure
from processor.receiver import TraceReceiver
from processor.telemetry import Telemetry

__all__ = ["TrajectoryService"]

logger = logging.getLogger(__name__)

FILE_MAX_REQUEST_BYTES = 4 * 1024 * 1024
RELEASE_QUEUE_TRACES = 1024
"""Released traces waiting for analysis; beyond it the receiver pushes back."""


class TrajectoryService:
    """Lifecycle: ``await start()`` returns the bound port; ``await shutdown()`` is safe before start and twice."""

    def __init__(
        self,
        config: Config,
        *,
        clock: Callable[[], float] = time.monotonic,
        on_analysed: Callable[[AnalysedTrace], None] | None = None,
    ) -> None:
        self._config = config
        self.telemetry = Telemetry()
        self._assembler = TraceAssembler(
            limits=AssemblerLimits(
                decision_wait=config.decision_wait,
                idle_timeout=config.idle_timeout,
                max_trace_wait=config.max_trace_wait,
                num_traces=config.num_traces,
                max_buffered_spans=config.max_buffered_spans,
                released_cache_size=config.released_cache_size,
            ),
            clock=clock,
        )
        self._output_dir = Path(config.output_dir)
        self._exporter = OtlpGrpcExporter(config.export, self.telemetry.exporter) if config.export else None
        self._analysis = AnalysisStage(
            config,
            self.telemetry.processor,
            self._exporter.max_message_bytes if self._exporter is not None else FILE_MAX_REQUEST_BYTES,
        )
        self._on_analysed = on_analysed
        self._server: grpc.aio.Server | None = None
        self._released: asyncio.Queue[ReleasedTrace] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._wake: asyncio.Event | None = None
        self._pending_spans = 0
        self._started = False
        self._stopped = False
        self.port: int | None = None

    @property
    def buffered_traces(self) -> int:
        return self._assembler.traces_held

    # --- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> int:
        if self._started:
            raise RuntimeError("service already started")
        self._started = True
        self._released = asyncio.Queue()
        self._wake = asyncio.Event()
        if self._exporter is not None:
            await self._exporter.start()
        self._server = grpc.aio.server(
            options=_server_options(self._config), maximum_concurrent_rpcs=self._config.max_concurrent_rpcs
        )
        receiver = TraceReceiver(self.submit, self.telemetry.receiver)
        self._server.add_generic_rpc_handlers((receiver.handler(),))
        self.port = self._server.add_insecure_port(self._config.listen)
        if self.port == 0:
            raise OSError(f"cannot listen on {self._config.listen}: address in use or not available")
        await self._server.start()
        self._tasks = [
            asyncio.create_task(self._release_loop(), name="release-loop"),
            asyncio.create_task(self._process_loop(), name="process-loop"),
        ]
        logger.info("otel-trajectory listening on %s (port %d)", self._config.listen, self.port)
        return self.port

    async def shutdown(self, deadline: float = 10.0) -> None:
        """Stop accepting, release every buffered trace (bundle ``open``), process, drain exports, close."""
        if not self._started or self._stopped:
            self._stopped = True
            await self._analysis.close()
            return
        self._stopped = True
        assert self._server is not None and self._released is not None
        await self._server.stop(grace=min(deadline, 2.0))
        for released in self._assembler.drain():
            self._enqueue_release(released)
        try:
            await asyncio.wait_for(self._released.join(), timeout=deadline)
        except TimeoutError:
            logger.error("shutdown deadline reached with %d trace(s) not yet analysed", self._released.qsize())
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._exporter is not None:
            await self._exporter.shutdown(deadline)
        await self._analysis.close()
        logger.info("otel-trajectory stopped: %s", self.telemetry.snapshot())

    # --- intake (event loop thread) -------------------------------------------------------------------
    async def submit(
        self, envelopes: Sequence[SpanEnvelope], body: bytes = b"", raw_requests: Sequence[bytes] = ()
    ) -> None:
        """Take ownership of accepted spans. Raises Backpressure when downstream cannot keep up."""
        if self._stopped:
            raise Backpressure("shutting down", retry_after=5.0)
        if self._pending_spans > self._config.max_buffered_spans:
            raise Backpressure("analysis and export are behind", retry_after=1.0)
        if self._exporter is not None and not self._exporter.has_room(1):
            raise Backpressure("export queue is full", retry_after=2.0)
        if raw_requests:
            self._forward_raw(raw_requests, -1)
        if self._config.passthrough and self._exporter is not None:
            for request in build_requests(envelopes, self._exporter.max_message_bytes):
                self._exporter.enqueue(outbound(request))
            return
        for released in self._assembler.add(envelopes):
            self._enqueue_release(released)
        if self._wake is not None:
            self._wake.set()

    def _enqueue_release(self, released: ReleasedTrace) -> None:
        assert self._released is not None
        self._pending_spans += len(released.envelopes)
        if released.reason.early:
            self.telemetry.processor.traces_released_early += 1
        if released.late:
            self.telemetry.processor.late_spans += len(released.envelopes)
        self._released.put_nowait(released)

    async def _release_loop(self) -> None:
        assert self._wake is not None
        while True:
            for released in self._assembler.poll():
                self._enqueue_release(released)
            due_in = self._assembler.next_due_in()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=due_in)
            except TimeoutError:
                pass

    # --- analysis and export --------------------------------------------------------------------------
    async def _process_loop(self) -> None:
        assert self._released is not None
        while True:
            released = await self._released.get()
            try:
                analysed = await self._analysis.process(released)
                await self._export(analysed)
                if self._on_analysed is not None:
                    self._on_analysed(analysed)
            except Exception:  # keep the pipeline alive; the spans of this trace are counted as failed
                logger.exception("processing trace %s failed", released.trace_id.hex())
                self.telemetry.exporter.send_failed_spans += len(released.envelopes)
            finally:
                self._pending_spans -= len(released.envelopes)
                self._released.task_done()

    async def _export(self, analysed: AnalysedTrace) -> None:
        if self._exporter is None:
            requests = [ExportTraceServiceRequest.FromString(item.payload) for item in analysed.requests]
            write_spans(self._output_dir, analysed.released.trace_id.hex(), requests)
            self.telemetry.exporter.sent_spans += len(analysed.released.envelopes)
            return
        for request in analysed.requests:
            await self._exporter.put(request)

    def _forward_raw(self, raw_requests: Sequence[bytes], origin: int) -> None:
        """Spans that did not decode on their own go out unchanged and unanalysed."""
        if self._exporter is None:
            write_raw(self._output_dir, raw_requests)
            self.telemetry.exporter.sent_spans += len(raw_requests)
            return
        for raw in raw_requests:
            self._exporter.enqueue(OutboundRequest(raw, 1, (origin,)))

    async def flush(self) -> None:
        """Wait until everything released so far is analysed and exported (tests and the demo)."""
        assert self._released is not None
        await self._released.join()
        if self._exporter is not None:
            await self._exporter.flush()


def _server_options(config: Config) -> list[tuple[str, int]]:
    options = [
        ("grpc.max_receive_message_length", config.max_recv_msg_size),
        ("grpc.max_concurrent_streams", config.max_concurrent_streams),
    ]
    for name, seconds in (
        ("grpc.max_connection_idle_ms", config.max_connection_idle),
        ("grpc.max_connection_age_ms", config.max_connection_age),
        ("grpc.max_connection_age_grace_ms", config.max_connection_age_grace),
    ):
        if seconds:
            options.append((name, max(1, int(seconds * 1000))))
    return options
