"""The running processor: receivers -> spool -> assembler -> analysis -> exporters (+ artifact files).

One event loop owns all mutable state (assembler, queues, counters, spool bookkeeping). Analysis runs off the loop
(:class:`~processor.pipeline.analysis.AnalysisStage`), so the loop keeps answering requests. Nothing is dropped silently:

- intake is refused with a retryable answer (gRPC ``UNAVAILABLE`` + RetryInfo, HTTP 503 + ``Retry-After``) when
  the export queue is full, analysis is behind, the spool is full, or the service is draining;
- before that, memory is bounded: over ``processor.memory_limit_mib`` the oldest buffered traces are released
  early (bundle ``open``), counted;
- with the spool on (the default), an accepted request is on disk before the client hears "accepted", and stays
  there until every span of it was delivered (or refused for good) by the export target; at start-up what is left
  is fed through again (at-least-once; replays are counted);
- ``shutdown`` (SIGTERM/SIGINT in ``serve``): readiness goes false, intake stops, every buffered trace is released
  (``open``), analysis and export drain within the deadline; whatever did not make it stays in the spool.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.otlp.held import HeldSpan, wire_requests
from otel_mapper.otlp.salvage import WireError, decode_trace_request
from processor.pipeline.analysis import AnalysedTrace, AnalysisStage, BatchQueue
from processor.pipeline.assembler import AssemblerLimits, ReleasedTrace, TraceAssembler
from processor.auth import BearerTokenAuth
from processor.config import Config, ExportConfig, parse_endpoint
from processor.pipeline.delivery import DeliveryTracker
from processor.pipeline.exporter import OtlpGrpcExporter, OutboundRequest, Settlement, Signal
from processor.pipeline.file_exporter import write_raw, write_spans
from processor.pipeline.growth import AnnotationGrowth
from processor.telemetry.health import HealthState
from processor.pipeline.http_receiver import OtlpHttpReceiver
from processor.pipeline.intake import Backpressure, LogsOutcome, log_record_count
from processor.pipeline.log_join import LogJoinBuffer
from processor.pipeline.receiver import LOGS_SERVICE, TRACE_SERVICE, LogsReceiver, TraceReceiver
from processor.resources import cgroup_limits, machine_memory_bytes
from processor.pipeline.spool import KIND_LOGS, KIND_TRACES, Spool, SpoolEntry, SpoolFull
from processor.telemetry.counters import Telemetry
from processor.tls import channel_credentials, server_credentials, server_ssl_context

__all__ = ["TrajectoryService", "effective_memory_limit"]

logger = logging.getLogger(__name__)

FILE_MAX_REQUEST_BYTES = 4 * 1024 * 1024
MiB = 1024 * 1024
DEFAULT_MEMORY_SHARE = 0.25
"""``memory_limit_mib: 0`` means this share of the machine's memory, or of the container's limit when smaller."""
REPLAY_RETRY_SECONDS = 0.2



def effective_memory_limit(config: Config) -> int:
    """Bytes of span data (wire size) the processor may hold: buffered traces plus work in hand.

    The buffer may use half of it (beyond, the oldest traces are released early); beyond the whole, intake is
    refused with a retry delay until exports catch up."""
    if config.memory_limit_mib:
        return config.memory_limit_mib * MiB
    return int(machine_memory_bytes(cgroup_limits(), fallback=4 * 1024 * MiB) * DEFAULT_MEMORY_SHARE)


def _spool_directory(config: Config, export: ExportConfig | None, default_name: str) -> Path | None:
    queue = export.sending_queue if export is not None else None
    if queue is not None and not queue.storage_enabled:
        return None
    if queue is not None and queue.storage:
        return Path(queue.storage)
    return Path(config.output_dir) / default_name


class TrajectoryService:
    """Lifecycle: ``await start()`` returns the bound gRPC port; ``await shutdown()`` is safe before start and twice.

    ``http_port`` and ``metrics_port`` hold the other bound ports (``None`` when off).
    """

    def __init__(
        self,
        config: Config,
        *,
        clock: Callable[[], float] = time.monotonic,
        on_analysed: Callable[[AnalysedTrace], None] | None = None,
    ) -> None:
        self._config = config
        self._clock = clock
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
        self._memory_limit = effective_memory_limit(config)
        self._output_dir = Path(config.output_dir)
        # Security material is read now, so a bad file stops start-up with a clear message.
        self._auth = (
            BearerTokenAuth.from_settings(config.auth.bearer_token, config.auth.bearer_token_file) if config.auth else None
        )
        tls = config.tls
        self._server_credentials = server_credentials(tls.cert_file, tls.key_file, tls.client_ca_file) if tls else None
        self._http_ssl = server_ssl_context(tls.cert_file, tls.key_file, tls.client_ca_file) if tls else None
        self._exporter = self._make_exporter(config.export, Signal.TRACES) if config.export else None
        self._logs_exporter = self._make_exporter(config.logs_export, Signal.LOGS) if config.logs_export else None
        self._analysis = AnalysisStage(
            config,
            self.telemetry.processor,
            self._exporter.max_message_bytes if self._exporter is not None else FILE_MAX_REQUEST_BYTES,
            keep_trajectories=on_analysed is not None,
        )
        spooling = not config.passthrough
        traces_dir = _spool_directory(config, config.export, "spool") if spooling else None
        logs_dir = _spool_directory(config, config.logs_export, "spool-logs") if spooling and config.logs_export else None
        self._spool = Spool(traces_dir, max_bytes=_spool_bytes(config.export)) if traces_dir else None
        self._logs_spool = Spool(logs_dir, max_bytes=_spool_bytes(config.logs_export)) if logs_dir else None
        self._tracker = DeliveryTracker(self._spool.ack) if self._spool else None
        self._logs_tracker = DeliveryTracker(self._logs_spool.ack) if self._logs_spool else None
        self._log_join = LogJoinBuffer(
            max_age=config.max_trace_wait, clock=clock, is_released=self._assembler.was_released
        )
        self._health = HealthState([TRACE_SERVICE, LOGS_SERVICE])
        self._on_analysed = on_analysed
        self._server: grpc.aio.Server | None = None
        self._http: OtlpHttpReceiver | None = None
        self._metrics: object | None = None
        self._released: BatchQueue[ReleasedTrace] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._wake: asyncio.Event | None = None
        self._pending_spans = 0
        self._pending_bytes = 0
        self._growth = AnnotationGrowth()
        """Wire bytes of released traces not yet handed to the exporter; with the exporters' queued bytes, the work
        in hand that the memory limit bounds (the buffer is bounded by early release)."""
        self._started = False
        self._stopped = False
        self.port: int | None = None
        self.http_port: int | None = None
        self.metrics_port: int | None = None

    def _make_exporter(self, export: ExportConfig, signal: Signal) -> OtlpGrpcExporter:
        credentials = None if export.insecure else channel_credentials(export.ca_file, export.cert_file, export.key_file)
        counters = self.telemetry.exporter if signal is Signal.TRACES else self.telemetry.logs_exporter
        return OtlpGrpcExporter(
            export, counters, signal=signal, credentials=credentials, on_settled=lambda r, how: self._settled(signal, r, how)
        )

    @property
    def buffered_traces(self) -> int:
        return self._assembler.traces_held

    @property
    def pending_spans(self) -> int:
        """Spans of released traces not yet analysed and handed to the exporter."""
        return self._pending_spans

    # --- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> int:
        if self._started:
            raise RuntimeError("service already started")
        self._started = True
        self._released = BatchQueue()
        self._wake = asyncio.Event()
        replay = await self._open_spools()
        await self._analysis.start()
        for exporter in (self._exporter, self._logs_exporter):
            if exporter is not None:
                await exporter.start()
        interceptors = [self._auth.grpc_interceptor()] if self._auth else []
        self._server = grpc.aio.server(
            options=_server_options(self._config),
            maximum_concurrent_rpcs=self._config.max_concurrent_rpcs,
            interceptors=interceptors,
        )
        self._server.add_generic_rpc_handlers(
            (
                TraceReceiver(self.submit, self.telemetry.receiver).handler(),
                LogsReceiver(self.submit_logs, self.telemetry.receiver).handler(),
            )
        )
        health_pb2_grpc.add_HealthServicer_to_server(self._health.servicer(), self._server)
        if self._server_credentials is not None:
            self.port = self._server.add_secure_port(self._config.listen, self._server_credentials)
        else:
            self.port = self._server.add_insecure_port(self._config.listen)
        if self.port == 0:
            raise OSError(f"cannot listen on {self._config.listen}: address in use or not available (receiver.endpoint)")
        await self._health.set_not_serving()
        await self._server.start()
        if self._config.http_listen is not None:
            self._http = OtlpHttpReceiver(
                self.submit,
                self.submit_logs,
                self.telemetry.receiver,
                max_body_bytes=self._config.max_recv_msg_size,
                max_decompressed_bytes=self._config.max_recv_msg_size,
                authorize=self._auth.check if self._auth else None,
                ssl_context=self._http_ssl,
                max_concurrent_requests=self._config.max_concurrent_streams,
            )
            host, port = parse_endpoint(self._config.http_listen)
            self.http_port = await self._http.start(host, port)
        await self._start_metrics()
        workers = max(1, self._config.analysis_workers) * 2
        self._tasks = [asyncio.create_task(self._release_loop(), name="release-loop")]
        self._tasks += [asyncio.create_task(self._process_loop(), name=f"process-loop-{n}") for n in range(workers)]
        if replay:
            self._tasks.append(asyncio.create_task(self._replay(replay), name="spool-replay"))
        await self._health.set_serving()
        analysis_workers = self._config.analysis_workers
        logger.info(
            "otel-trajectory listening on %s (gRPC%s)%s; %s, span data held up to %d MiB",
            self._config.listen,
            ", TLS" if self._server_credentials else "",
            f" and {self._config.http_listen} (HTTP)" if self._http else "",
            f"{analysis_workers} analysis worker process(es)" if analysis_workers else "analysis in a thread",
            self._memory_limit // MiB,
        )
        return self.port

    async def _open_spools(self) -> list[SpoolEntry]:
        """Open the spools; returns the entries that were not delivered before the last stop (their payloads stay
        on disk until replayed)."""
        replay: list[SpoolEntry] = []
        for spool in (self._spool, self._logs_spool):
            if spool is None:
                continue
            recovery = await asyncio.to_thread(spool.open)
            for problem in recovery.problems:
                logger.error("spool: %s", problem)
            self.telemetry.spool.quarantined_segments += len(recovery.quarantined)
            replay += recovery.entries
        if replay:
            logger.warning("spool: %d request(s) were not delivered before the last stop; sending them again", len(replay))
        return replay

    async def _start_metrics(self) -> None:
        metrics = self._config.metrics
        if metrics.prometheus_endpoint is None and metrics.otlp_endpoint is None:
            return
        from processor.telemetry.self_metrics import SelfMetrics

        self._metrics = self_metrics = SelfMetrics(
            self._metrics_snapshot,
            otlp_endpoint=metrics.otlp_endpoint,
            otlp_interval=metrics.otlp_interval,
            otlp_insecure=metrics.otlp_insecure,
            otlp_headers=metrics.otlp_headers,
            otlp_credentials=None if metrics.otlp_insecure else channel_credentials(
                metrics.otlp_ca_file, metrics.otlp_cert_file, metrics.otlp_key_file
            ),
            prometheus=metrics.prometheus_endpoint is not None,
            own_endpoints=[e for e in (self._config.listen, self._config.http_listen, metrics.prometheus_endpoint) if e],
        )
        if metrics.prometheus_endpoint is not None:
            host, port = parse_endpoint(metrics.prometheus_endpoint)
            self.metrics_port = await self_metrics.serve_prometheus(host, port)

    def _metrics_snapshot(self) -> dict[str, float]:
        counters = self.telemetry.processor
        counters.buffered_traces = self._assembler.traces_held
        counters.buffered_spans = self._assembler.spans_held
        counters.held_bytes = self.held_bytes
        counters.memory_limit_bytes = self._memory_limit
        counters.annotation_growth = self._growth.ratio
        self.telemetry.spool.spool_bytes = sum(s.bytes_held for s in (self._spool, self._logs_spool) if s is not None)
        joined = self._log_join.counters
        self.telemetry.logs.joined_log_records = joined.joined
        self.telemetry.logs.late_log_records = joined.late
        self.telemetry.logs.unjoined_log_records = joined.expired + joined.dropped_full + joined.without_span
        return self.telemetry.snapshot()

    async def shutdown(self, deadline: float = 10.0) -> None:
        """Readiness off, stop accepting, release every buffered trace (bundle ``open``), drain within
        ``deadline`` seconds per stage, close. What did not go out stays in the spool for the next start."""
        if not self._started or self._stopped:
            self._stopped = True
            await self._analysis.close()
            return
        self._stopped = True
        assert self._server is not None and self._released is not None
        await self._health.set_draining()
        if self._http is not None:
            await self._http.stop(grace=min(deadline, 2.0))
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
        for exporter in (self._exporter, self._logs_exporter):
            if exporter is not None:
                await exporter.shutdown(deadline)
        await self._analysis.close()
        for spool in (self._spool, self._logs_spool):
            if spool is not None:
                if spool.entries_held:
                    logger.warning("spool keeps %d undelivered request(s) for the next start", spool.entries_held)
                await spool.close()
        if self._metrics is not None:
            await self._metrics.close()  # type: ignore[attr-defined]
        logger.info("otel-trajectory stopped: %s", self.telemetry.snapshot())

    # --- intake (event loop thread) -------------------------------------------------------------------
    def _check_room(self) -> None:
        """Raise Backpressure when the pipeline cannot take a request now (checked before spooling)."""
        if self._stopped:
            raise Backpressure("shutting down", retry_after=5.0)
        if self._pending_spans > self._config.max_buffered_spans:
            raise Backpressure("analysis and export are behind", retry_after=1.0)
        if self._projected_held_bytes() > self._memory_limit:
            # The buffer already released its oldest traces early to stay within its half; the rest is work in hand.
            raise Backpressure("analysis and export are behind (processor.memory_limit_mib reached)", retry_after=2.0)
        if self._exporter is not None and not self._exporter.has_room(1):
            raise Backpressure("export queue is full", retry_after=2.0)

    async def submit(
        self, spans: Sequence[HeldSpan], body: bytes = b"", raw_requests: Sequence[bytes] = ()
    ) -> None:
        """The trace sink of every receiver: spool (durable before the client is answered), then take."""
        self._check_room()
        origin = -1
        if self._spool is not None and body:
            try:
                origin = await self._spool.append(KIND_TRACES, body)
            except SpoolFull as exc:
                raise Backpressure(f"spool is full ({exc})", retry_after=5.0) from None
            assert self._tracker is not None
            for span in spans:
                span.origin = origin
            self._tracker.register(origin, len(spans) + len(raw_requests))
        try:
            self._check_room()
        except Backpressure:
            if self._spool is not None and origin >= 0:
                self._spool.ack(origin)  # the client is told to resend: not ours to replay
            raise
        self._take(spans, raw_requests, origin)

    def _take(self, spans: Sequence[HeldSpan], raw_requests: Sequence[bytes], origin: int) -> None:
        if raw_requests:
            self._forward_raw(raw_requests, origin)
        if self._config.passthrough and self._exporter is not None:
            for payload, origins in wire_requests(spans, self._exporter.max_message_bytes):
                self._exporter.enqueue(OutboundRequest(payload, len(origins), origins))
            return
        for released in self._assembler.add(spans):
            self._enqueue_release(released)
        self._enforce_memory_limit()
        if self._wake is not None:
            self._wake.set()

    @property
    def held_bytes(self) -> int:
        """Span data held (wire size): buffered traces, released traces in analysis, queued exports."""
        return self._assembler.buffered_bytes + self._pending_bytes + self._queued_export_bytes()

    def _projected_held_bytes(self) -> int:
        """``held_bytes`` once the traces not yet analysed are annotated: what the memory limit is checked against."""
        not_analysed = self._assembler.buffered_bytes + self._pending_bytes
        return self._growth.projected(not_analysed) + self._queued_export_bytes()

    def _queued_export_bytes(self) -> int:
        return sum(e.queued_bytes for e in (self._exporter, self._logs_exporter) if e is not None)

    def _enforce_memory_limit(self) -> None:
        excess = self._assembler.buffered_bytes - self._memory_limit // 2
        if excess <= 0:
            return
        shed = self._assembler.shed(excess)
        if shed:
            self.telemetry.processor.memory_limit_releases += len(shed)
            logger.warning(
                "buffered spans reached half of processor.memory_limit_mib (%d MiB): released %d oldest trace(s) early",
                self._memory_limit // MiB,
                len(shed),
            )
        for released in shed:
            self._enqueue_release(released)

    async def submit_logs(self, request: ExportLogsServiceRequest, body: bytes) -> LogsOutcome:
        """The log sink of every receiver: join to traces for analysis; forward unchanged when configured."""
        if self._stopped:
            raise Backpressure("shutting down", retry_after=5.0)
        exporter = self._logs_exporter
        if exporter is not None:
            if not exporter.has_room(1):
                raise Backpressure("logs export queue is full", retry_after=2.0)
            origin = -1
            if self._logs_spool is not None:
                try:
                    origin = await self._logs_spool.append(KIND_LOGS, body)
                except SpoolFull as exc:
                    raise Backpressure(f"logs spool is full ({exc})", retry_after=5.0) from None
                assert self._logs_tracker is not None
                self._logs_tracker.register(origin, 1)
            exporter.enqueue(OutboundRequest(body, log_record_count(request), (origin,)))
        self._log_join.add(request)
        return LogsOutcome()

    def _enqueue_release(self, released: ReleasedTrace) -> None:
        assert self._released is not None
        self._pending_spans += len(released.spans)
        self._pending_bytes += released.wire_bytes
        if released.reason.early:
            self.telemetry.processor.traces_released_early += 1
        if released.late:
            self.telemetry.processor.late_spans += len(released.spans)
        self._released.put_nowait(released)

    async def _release_loop(self) -> None:
        assert self._wake is not None
        while True:
            for released in self._assembler.poll():
                self._enqueue_release(released)
            self._log_join.expire()
            due_in = self._assembler.next_due_in()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=due_in if due_in is not None else 5.0)
            except TimeoutError:
                pass

    async def _replay(self, entries: list[SpoolEntry]) -> None:
        """Feed undelivered spool entries through again, one at a time (each read from disk only now), waiting
        whenever the pipeline pushes back."""
        for entry in entries:
            kind, entry_id = entry.kind, entry.entry_id
            try:
                payload = await asyncio.to_thread(_read_payload, entry)
            except OSError as exc:  # the segment changed under us since start-up: nothing left to send
                logger.error("spool entry %d cannot be read (%s); dropped", entry_id, exc)
                (self._spool if kind == KIND_TRACES else self._logs_spool).ack(entry_id)  # type: ignore[union-attr]
                continue
            while True:
                try:
                    if kind == KIND_TRACES:
                        self._replay_traces(entry_id, payload)
                    else:
                        self._replay_logs(entry_id, payload)
                    break
                except Backpressure:
                    await asyncio.sleep(REPLAY_RETRY_SECONDS)

    def _replay_traces(self, entry_id: int, payload: bytes) -> None:
        assert self._spool is not None and self._tracker is not None
        try:
            decoded = decode_trace_request(payload)
        except WireError:
            logger.error("spool entry %d is not a trace request; dropped", entry_id)
            self._spool.ack(entry_id)
            return
        self._check_room()
        for span in decoded.spans:
            span.origin = entry_id
        self._tracker.register(entry_id, len(decoded.spans) + len(decoded.raw_requests))
        self.telemetry.spool.replayed_requests += 1
        self.telemetry.spool.replayed_spans += len(decoded.spans) + len(decoded.raw_requests)
        self._take(decoded.spans, decoded.raw_requests, entry_id)

    def _replay_logs(self, entry_id: int, payload: bytes) -> None:
        assert self._logs_spool is not None and self._logs_tracker is not None
        exporter = self._logs_exporter
        if exporter is None:  # no logs target any more: nothing to deliver to
            self._logs_spool.ack(entry_id)
            return
        if not exporter.has_room(1):
            raise Backpressure("logs export queue is full")
        try:
            request = ExportLogsServiceRequest.FromString(payload)
        except Exception:  # DecodeError: a spooled request is what a receiver accepted, so this is damage
            logger.error("spool entry %d is not a logs request; dropped", entry_id)
            self._logs_spool.ack(entry_id)
            return
        self._logs_tracker.register(entry_id, 1)
        self.telemetry.spool.replayed_requests += 1
        exporter.enqueue(OutboundRequest(payload, log_record_count(request), (entry_id,)))

    # --- analysis and export --------------------------------------------------------------------------
    async def _process_loop(self) -> None:
        assert self._released is not None
        while True:
            batch = self._released.take_batch(await self._released.get(), _span_count)
            analysed_traces: list[AnalysedTrace] = []
            try:
                for released in batch:
                    self._join_logs(released)
                analysed_traces = await self._analysis.process_batch(batch)
            except Exception:  # keep the pipeline alive; the spans of these traces are counted as failed
                logger.exception("processing %d trace(s) failed", len(batch))
                for released in batch:
                    self._count_failed(released)
            for analysed in analysed_traces:
                try:
                    self._count_detectors(analysed)
                    await self._export(analysed)
                    if self._on_analysed is not None:
                        self._on_analysed(analysed)
                except Exception:  # keep the pipeline alive; the spans of this trace are counted as failed
                    logger.exception("exporting trace %s failed", analysed.released.trace_id.hex())
                    self._count_failed(analysed.released)
            for released in batch:
                self._pending_spans -= len(released.spans)
                self._pending_bytes -= released.wire_bytes
                self._released.task_done()

    def _count_failed(self, released: ReleasedTrace) -> None:
        self.telemetry.exporter.send_failed_spans += len(released.spans)
        if self._tracker is not None:
            self._tracker.delivered(span.origin for span in released.spans)

    def _join_logs(self, released: ReleasedTrace) -> None:
        joined = self._log_join.take(released.trace_id)
        if joined is not None:
            released.logs = joined.by_span
            return
        if released.spans:
            service = released.spans[0].group.resource.service_name
            released.logs_expected = bool(service) and self._log_join.expects_logs(service)

    def _count_detectors(self, analysed: AnalysedTrace) -> None:
        if analysed.diagnosis is None:
            return
        counters = self.telemetry.detectors
        for result in analysed.diagnosis.verifier_results:
            counters.seconds[result.verifier] = counters.seconds.get(result.verifier, 0.0) + (result.duration_s or 0.0)
            if result.status.value == "error":
                counters.errors[result.verifier] = counters.errors.get(result.verifier, 0) + 1

    async def _export(self, analysed: AnalysedTrace) -> None:
        if self._exporter is None:
            requests = [ExportTraceServiceRequest.FromString(item.payload) for item in analysed.requests]
            await asyncio.to_thread(write_spans, self._output_dir, analysed.released.trace_id.hex(), requests)
            self.telemetry.exporter.sent_spans += len(analysed.released.spans)
            if self._tracker is not None:
                for item in analysed.requests:
                    self._tracker.delivered(item.origins)
            return
        self._growth.record(analysed.released.wire_bytes, sum(len(request.payload) for request in analysed.requests))
        for request in analysed.requests:
            await self._exporter.put(request)

    def _settled(self, signal: Signal, request: OutboundRequest, how: Settlement) -> None:
        """Exporter callback: delivered or refused for good -> the spool may forget those spans."""
        if how is Settlement.ABANDONED:
            return  # stays in the spool for the next start
        tracker = self._tracker if signal is Signal.TRACES else self._logs_tracker
        if tracker is not None:
            tracker.delivered(request.origins)

    def _forward_raw(self, raw_requests: Sequence[bytes], origin: int) -> None:
        """Spans that did not decode on their own go out unchanged and unanalysed."""
        if self._exporter is None:
            write_raw(self._output_dir, raw_requests)
            self.telemetry.exporter.sent_spans += len(raw_requests)
            if self._tracker is not None:
                self._tracker.delivered([origin] * len(raw_requests))
            return
        for raw in raw_requests:
            self._exporter.enqueue(OutboundRequest(raw, 1, (origin,), alone=True))

    async def flush(self) -> None:
        """Wait until everything released so far is analysed and exported, and its artifact files written (tests
        and the demo)."""
        assert self._released is not None
        await self._released.join()
        await self._analysis.flush_artifacts()
        for exporter in (self._exporter, self._logs_exporter):
            if exporter is not None:
                await exporter.flush()


def _spool_bytes(export: ExportConfig | None) -> int:
    return (export.sending_queue.storage_max_mib if export is not None else 1024) * MiB


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


def _span_count(released: ReleasedTrace) -> int:
    return len(released.spans)


def _read_payload(entry: SpoolEntry) -> bytes:
    return entry.payload
