"""The running processor: receivers -> spool -> assembler -> analysis -> exporters (+ artifact files).

One event loop owns all mutable state (assembler, queues, counters, spool bookkeeping). Analysis runs off the loop
(:class:`~processor.pipeline.analysis.AnalysisStage`), so the loop keeps answering requests. Nothing is dropped silently:

- intake is refused with a retryable answer (gRPC ``UNAVAILABLE`` + RetryInfo, HTTP 503 + ``Retry-After``) when
  the export queue is full, analysis is behind, the spool is full, or the service is draining; the trace
  receivers ask before they decode a request, so a refused one costs no decoding;
- before that, memory is bounded: over ``processor.memory_limit_mib`` the oldest buffered traces are released
  early (bundle ``open``), counted;
- with the spool on (the default), an accepted request is on disk before the client hears "accepted", and stays
  there until every span of it was delivered (or refused for good) by the export target; at start-up what is left
  is fed through again (at-least-once; replays are counted);
- ``shutdown`` (SIGTERM/SIGINT in ``serve``): readiness goes false, intake stops, every buffered trace is released
  (``open``), analysis and export drain within the deadline; whatever did not make it stays in the spool.

This module keeps the lifecycle only: it builds the parts, starts them in order and shuts them down in order.
Start-up checks what can fail before it starts anything (:mod:`processor.listeners`, :mod:`processor.startup`):
a failed start says why in one line per cause and leaves nothing running.
The parts: :mod:`~processor.pipeline.sinks` (what receivers hand data to), :mod:`~processor.pipeline.admission`
(admission control and memory policy), :mod:`~processor.pipeline.signal_pipeline` (spool + delivery tracker +
exporter, one per signal), :mod:`~processor.pipeline.processing` (release queue, analysis, export) and
:mod:`~processor.pipeline.replay` (spool replay at start-up).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

from otel_mapper.mapping.recognition import SpanRecogniser
from processor.auth import BearerTokenAuth
from processor.config import Config, ExportConfig
from processor.listeners import bound, check_listeners, grpc_server, self_metrics, serve_metrics, start_http
from processor.pipeline.admission import DEFAULT_MEMORY_SHARE, AdmissionControl, MiB, effective_memory_limit
from processor.pipeline.analysis import AnalysedTrace, AnalysisStage
from processor.pipeline.assembler import AssemblerLimits, TraceAssembler
from processor.pipeline.exporter import OtlpGrpcExporter
from processor.pipeline.fast_path import may_be_agent
from processor.pipeline.file_exporter import FileExporter
from processor.pipeline.http_receiver import OtlpHttpReceiver
from processor.pipeline.log_join import LogJoinBuffer
from processor.pipeline.outbound import Exporter, OnSettled, Signal
from processor.pipeline.processing import TraceProcessing
from processor.pipeline.receiver import LOGS_SERVICE, TRACE_SERVICE, LogsReceiver, TraceReceiver
from processor.pipeline.replay import SpoolReplay
from processor.pipeline.signal_pipeline import SignalPipeline, spool_for
from processor.pipeline.sinks import PipelineSinks
from processor.pipeline.spool import SpoolEntry
from processor.report.page import TrajectoryPage
from processor.telemetry.counters import Telemetry
from processor.telemetry.health import HealthState, exporter_health_service
from processor.tls import channel_credentials, server_credentials, server_ssl_context

if TYPE_CHECKING:
    from processor.telemetry.self_metrics import SelfMetrics

__all__ = ["DEFAULT_MEMORY_SHARE", "MiB", "TrajectoryService", "effective_memory_limit"]

logger = logging.getLogger(__name__)


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
                max_run_wait=config.max_run_wait,
                num_traces=config.num_traces,
                max_buffered_spans=config.max_buffered_spans,
                released_cache_size=config.released_cache_size,
            ),
            clock=clock,
            may_be_agent=partial(may_be_agent, recogniser=SpanRecogniser()),
        )
        self._output_dir = Path(config.output_dir)
        # Security material is read now, so a bad file stops start-up with a clear message.
        self._auth = (
            BearerTokenAuth.from_settings(config.auth.bearer_token, config.auth.bearer_token_file) if config.auth else None
        )
        tls = config.tls
        self._server_credentials = server_credentials(tls.cert_file, tls.key_file, tls.client_ca_file) if tls else None
        self._http_ssl = server_ssl_context(tls.cert_file, tls.key_file, tls.client_ca_file) if tls else None
        self._page = TrajectoryPage.from_config(config, auth=self._auth, ssl_context=self._http_ssl)
        self._on_analysed = on_analysed
        self._health = HealthState(
            [TRACE_SERVICE, LOGS_SERVICE]
            + [exporter_health_service(signal) for signal, export in _exports(config) if export is not None]
        )
        self._traces = self._pipeline(config, Signal.TRACES, config.export)
        self._logs = self._pipeline(config, Signal.LOGS, config.logs_export) if config.logs_export else None
        self._analysis = AnalysisStage(
            config,
            self.telemetry.processor,
            self._traces.exporter.max_message_bytes,
            keep_trajectories=on_analysed is not None,
        )
        self._log_join = LogJoinBuffer(
            max_age=config.max_trace_wait, clock=clock, is_released=self._assembler.was_released
        )
        self._admission = AdmissionControl(
            config, self._assembler, self._traces, self._logs, self.telemetry.processor, is_stopped=self._is_stopped,
            clock=clock,
        )
        self._memory_limit = self._admission.memory_limit
        self._processing = TraceProcessing(
            self._assembler,
            self._analysis,
            self._admission,
            self._traces,
            self._log_join,
            self.telemetry,
            logs=self._logs,
            on_analysed=self._analysed,
            forward_together=on_analysed is None,  # the live page and self-metrics skip fast-path traces
        )
        # Passthrough needs an export target: without one, spans are analysed and written to files.
        self._sinks = PipelineSinks(
            self._assembler,
            self._admission,
            self._processing,
            self._traces,
            self._logs,
            self._log_join,
            passthrough=config.passthrough and config.export is not None,
            is_stopped=self._is_stopped,
        )
        self._replay = SpoolReplay(self._sinks, self._admission, self._traces, self._logs, self.telemetry.spool)
        self._server: grpc.aio.Server | None = None
        self._http: OtlpHttpReceiver | None = None
        self._metrics: SelfMetrics | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False
        self._stopped = False
        self.port: int | None = None
        self.http_port: int | None = None
        self.metrics_port: int | None = None

    def _analysed(self, analysed: AnalysedTrace) -> None:
        """After a trace is analysed and handed to export: trajectory self-metrics, the live page, then the embedding
        caller's callback."""
        self.telemetry.trajectories.record(analysed.diagnosis, analysed.usage)
        self._page.record(analysed)
        if self._on_analysed is not None:
            self._on_analysed(analysed)

    def _pipeline(self, config: Config, signal: Signal, export: ExportConfig | None) -> SignalPipeline:
        spool, setting = spool_for(config, "exporter" if signal is Signal.TRACES else "logs_exporter")
        return SignalPipeline(
            signal,
            spool,
            lambda on_settled: self._make_exporter(export, signal, on_settled, spooled=spool is not None),
            spool_setting=setting,
        )

    def _make_exporter(
        self, export: ExportConfig | None, signal: Signal, on_settled: OnSettled, *, spooled: bool
    ) -> Exporter:
        """The gRPC exporter of ``export``; without an export target, traces are written under ``output_dir``."""
        counters = self.telemetry.exporter if signal is Signal.TRACES else self.telemetry.logs_exporter
        if export is None:
            return FileExporter(self._output_dir, counters, on_settled=on_settled)
        credentials = None if export.insecure else channel_credentials(export.ca_file, export.cert_file, export.key_file)
        service = exporter_health_service(signal)

        async def on_failing(failing: bool) -> None:
            await self._health.set_component(service, serving=not failing)

        return OtlpGrpcExporter(
            export, counters, signal=signal, credentials=credentials, on_settled=on_settled, on_failing=on_failing,
            spooled=spooled, clock=self._clock,
        )

    def _is_stopped(self) -> bool:
        return self._stopped

    @property
    def _pipelines(self) -> list[SignalPipeline]:
        """Traces, then logs when configured: the order in which they start and stop."""
        return [p for p in (self._traces, self._logs) if p is not None]

    @property
    def buffered_traces(self) -> int:
        return self._assembler.traces_held

    @property
    def pending_spans(self) -> int:
        """Spans of released traces not yet analysed and handed to the exporter."""
        return self._admission.pending_spans

    @property
    def held_bytes(self) -> int:
        """Span data held (wire size): buffered traces, released traces in analysis, queued exports."""
        return self._admission.held_bytes

    # --- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> int:
        """Start in an order where what can fail fails first: every listener's port is checked, the spools are
        opened and the gRPC port bound, then workers and exporters start, then the listeners serve. Raises
        :class:`~processor.startup.StartupError` (one line per cause, naming the setting and its value) with
        everything started so far stopped again; returns the bound gRPC port."""
        if self._started:
            raise RuntimeError("service already started")
        self._started = True
        try:
            await self._start()
        except BaseException:
            await self._abort_start()
            raise
        logger.info("%s", self._started_line())
        return self.port or 0

    async def _start(self) -> None:
        config = self._config
        check_listeners(config)  # before anything starts: a busy port must not leave workers behind
        self._processing.open()
        replay = await self._open_spools()
        interceptors = [self._auth.grpc_interceptor(self.telemetry.receiver)] if self._auth else []
        handlers = (
            TraceReceiver(self._sinks.submit, self.telemetry.receiver, check_room=self._sinks.check_room).handler(),
            LogsReceiver(self._sinks.submit_logs, self.telemetry.receiver).handler(),
        )
        self._server, self.port = grpc_server(config, handlers, self._health.servicer(), interceptors,
                                              self._server_credentials)
        await self._analysis.start()
        for pipeline in self._pipelines:
            await pipeline.start()
        await self._health.set_not_serving()
        await self._server.start()
        if config.http_listen is not None:
            self._http = OtlpHttpReceiver(
                self._sinks.submit,
                self._sinks.submit_logs,
                self.telemetry.receiver,
                max_body_bytes=config.max_recv_msg_size,
                max_decompressed_bytes=config.max_recv_msg_size,
                authorize=self._auth.check if self._auth else None,
                ssl_context=self._http_ssl,
                max_concurrent_requests=config.max_concurrent_streams,
                check_room=self._sinks.check_room,
            )
            self.http_port = await start_http(self._http, config.http_listen)
        if config.metrics.prometheus_endpoint is not None or config.metrics.otlp_endpoint is not None:
            self._metrics = self_metrics(config, self._metrics_telemetry)
            self.metrics_port = await serve_metrics(self._metrics, config, self._page)
        workers = max(1, self._analysis.workers) * 2
        self._tasks = [asyncio.create_task(self._processing.release_loop(), name="release-loop")]
        self._tasks += [
            asyncio.create_task(self._processing.process_loop(), name=f"process-loop-{n}") for n in range(workers)
        ]
        if replay:
            self._tasks.append(asyncio.create_task(self._replay.run(replay), name="spool-replay"))
        await self._health.set_serving()

    async def _abort_start(self) -> None:
        """Stop what a failed start had started, in reverse order, without letting a second error hide the first."""
        self._stopped = True

        async def quietly(step: Awaitable[object]) -> None:
            try:
                await step
            except Exception:  # already failing: the first error is the one to report
                logger.debug("stopping after a failed start", exc_info=True)

        if self._metrics is not None:
            await quietly(self._metrics.close())
        if self._http is not None:
            await quietly(self._http.stop(grace=0))
        if self._server is not None:
            await quietly(self._server.stop(None))
        for pipeline in self._pipelines:
            await quietly(pipeline.shutdown(0))
        await quietly(self._analysis.close())
        for pipeline in self._pipelines:
            await quietly(pipeline.close_spool())

    def _started_line(self) -> str:
        """What is on, said once at start-up."""
        config = self._config
        parts = [f"OTLP/gRPC on {bound(config.listen, self.port)}{' (TLS)' if self._server_credentials else ''}"]
        if self._http is not None:
            parts.append(f"OTLP/HTTP on {bound(config.http_listen or '', self.http_port)}")
        if self._auth is not None:
            parts.append("bearer token required")
        for pipeline in self._pipelines:
            export = config.export if pipeline.signal is Signal.TRACES else config.logs_export
            target = f"to {export.endpoint}" if export is not None else f"to files under {self._output_dir}"
            spool = f"spool {pipeline.spool.directory}" if pipeline.spool is not None else "no spool"
            parts.append(f"{pipeline.signal} {target} ({spool})")
        workers = self._analysis.workers
        parts.append(f"{workers} analysis worker process(es)" if workers else "analysis in a thread")
        parts.append(f"span data held up to {self._memory_limit // MiB} MiB")
        if self._metrics is not None:
            parts.append(f"self-metrics: {self._metrics.description}")
        return "otel-trajectory started: " + "; ".join(parts)

    async def _open_spools(self) -> list[SpoolEntry]:
        """Open the spools; returns the entries that were not delivered before the last stop (their payloads stay
        on disk until replayed)."""
        replay: list[SpoolEntry] = []
        for pipeline in self._pipelines:
            replay += await pipeline.open_spool(self.telemetry.spool)
        if replay:
            logger.warning("spool: %d request(s) were not delivered before the last stop; sending them again", len(replay))
        return replay

    def _metrics_telemetry(self) -> Telemetry:
        """The counters for a metrics collection, with the levels read from their owners first."""
        counters = self.telemetry.processor
        counters.buffered_traces = self._assembler.traces_held
        counters.buffered_spans = self._assembler.spans_held
        counters.held_bytes = self.held_bytes
        counters.memory_limit_bytes = self._memory_limit
        counters.annotation_growth = self._admission.growth.ratio
        counters.analysis_lag_seconds = self._admission.backlog.lag() or 0.0
        self.telemetry.runs = self._analysis.run_counts
        self.telemetry.spool.spool_bytes = sum(p.spool_bytes for p in self._pipelines)
        joined = self._log_join.counters
        self.telemetry.logs.joined_log_records = joined.joined
        self.telemetry.logs.late_log_records = joined.late
        self.telemetry.logs.unjoined_log_records = joined.expired + joined.dropped_full + joined.without_span + joined.duplicate
        return self.telemetry

    async def shutdown(self, deadline: float = 10.0) -> None:
        """Readiness off, stop accepting, release every buffered trace (bundle ``open``), drain within
        ``deadline`` seconds per stage, close. What did not go out stays in the spool for the next start."""
        if not self._started or self._stopped:
            if not self._stopped:
                self._stopped = True
                await self._analysis.close()
            return
        self._stopped = True
        assert self._server is not None
        await self._health.set_draining()
        if self._http is not None:
            await self._http.stop(grace=min(deadline, 2.0))
        await self._server.stop(grace=min(deadline, 2.0))
        for released in self._assembler.drain():
            self._processing.enqueue_release(released)
        try:
            await asyncio.wait_for(self._processing.join(), timeout=deadline)
        except TimeoutError:
            logger.error("shutdown deadline reached with %d trace(s) not yet analysed", self._processing.queued_traces)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for pipeline in self._pipelines:
            await pipeline.shutdown(deadline)
        await self._analysis.close()
        for pipeline in self._pipelines:
            await pipeline.close_spool()
        if self._metrics is not None:
            await self._metrics.close()
        logger.info("otel-trajectory stopped: %s", self.telemetry.snapshot())

    async def flush(self) -> None:
        """Wait until everything released so far is analysed and exported, and its artifact files written (tests
        and the demo)."""
        await self._processing.join()
        await self._analysis.flush_artifacts()
        for pipeline in self._pipelines:
            await pipeline.flush()


def _exports(config: Config) -> Iterator[tuple[Signal, ExportConfig | None]]:
    yield Signal.TRACES, config.export
    yield Signal.LOGS, config.logs_export
