"""OTLP/gRPC trace exporter: bounded queue -> retry -> timeout -> push, as the Collector's exporterhelper.

Error classification at the gRPC boundary (OTLP spec, Collector ``otlpexporter``): CANCELLED,
DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE, UNAVAILABLE and DATA_LOSS are retried; RESOURCE_EXHAUSTED only when
the server sent a RetryInfo delay; everything else is permanent. Partial success is logged and counted, never
retried. Shutdown stops retrying first, drains the queue within the deadline, then closes the channel.

How long a retryable failure is retried depends on where the data also is:

- ``spooled`` (the spool is on): until it is delivered or refused for good, however long the target is away;
  ``retry_on_failure.max_elapsed_time`` does not apply, because giving up would delete acknowledged data from the
  spool. A long outage fills the queue, then the memory limit or the spool, and the receivers push back;
- not spooled: the Collector's semantics, given up after ``max_elapsed_time`` (0: never), counted and logged.

What the operator is told about failures (first one at once with its cause, then summaries) and the failing state
shown in metrics and health live in :mod:`processor.pipeline.export_status`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import grpc
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from processor.config import ExportConfig, RetryConfig
from processor.pipeline.export_batch import gather, merge
from processor.pipeline.export_status import ExportStatus, describe_export_error
from processor.pipeline.outbound import (
    ExportQueueFull,
    OnSettled,
    OutboundRequest,
    Settlement,
    Signal,
    outbound,
)
from processor.telemetry.counters import ExporterCounters

__all__ = [
    "ExportQueueFull",
    "OtlpGrpcExporter",
    "OutboundRequest",
    "SendResult",
    "Settlement",
    "Signal",
    "outbound",
    "retry_delay_of",
]

logger = logging.getLogger(__name__)

RETRYABLE = frozenset(
    {
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
    }
)


@dataclass(frozen=True, slots=True)
class SendResult:
    rejected_spans: int = 0
    error_message: str = ""


Send = Callable[[OutboundRequest, float], Awaitable[SendResult]]
OnFailing = Callable[[bool], Awaitable[None]]
"""Told when the target starts failing (True) and when it delivers again (False): the health service's entry."""


def _identity(payload: bytes) -> bytes:
    return payload


def retry_delay_of(error: grpc.aio.AioRpcError) -> float | None:
    """The RetryInfo delay a server put in ``grpc-status-details-bin``, in seconds."""
    for key, value in error.trailing_metadata() or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        status = status_pb2.Status()
        try:
            status.ParseFromString(value)
        except Exception:  # malformed details from a server are ignored, not fatal
            return None
        for detail in status.details:
            if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                info = error_details_pb2.RetryInfo()
                detail.Unpack(info)
                return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    return None


class OtlpGrpcExporter:
    """Sends serialized Export requests of one signal to one OTLP/gRPC endpoint.

    ``send`` can be injected (tests); by default a real channel. ``credentials`` are the channel credentials for
    TLS (``None`` with ``tls.insecure``: plaintext). ``on_settled`` is told how every request ended, ``on_failing``
    when the target starts or stops failing. ``spooled``: every request taken is also in the spool (then retryable
    failures are retried until delivered; see the module docstring). ``clock`` times the failure reports.
    Implements :class:`~processor.pipeline.outbound.Exporter`.
    """

    holds_requests = True
    by_trace = False

    def __init__(
        self,
        config: ExportConfig,
        counters: ExporterCounters,
        send: Send | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
        *,
        signal: Signal = Signal.TRACES,
        credentials: grpc.ChannelCredentials | None = None,
        on_settled: OnSettled | None = None,
        on_failing: OnFailing | None = None,
        spooled: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._counters = counters
        self._send_override = send
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._signal = signal
        self._credentials = credentials
        self._on_settled = on_settled
        self._queue: asyncio.Queue[OutboundRequest] = asyncio.Queue(config.sending_queue.queue_size)
        self._workers: list[asyncio.Task[None]] = []
        self._channel: grpc.aio.Channel | None = None
        self._call: grpc.aio.UnaryUnaryMultiCallable | None = None
        self._stopping = asyncio.Event()
        self._gathering = asyncio.Lock()
        self._queued_bytes = 0
        self._queued_items = 0
        self._on_failing = on_failing
        self._spooled = spooled
        self._section = "exporter" if signal is Signal.TRACES else "logs_exporter"
        self._status = ExportStatus(
            f"{config.endpoint} ({signal})",
            items="spans" if signal is Signal.TRACES else "log records",
            counters=counters,
            clock=clock,
        )
        counters.queue_capacity = config.sending_queue.queue_size

    @property
    def max_message_bytes(self) -> int:
        return self._config.max_message_bytes

    async def start(self) -> None:
        if self._send_override is None:
            # Requests are split to max_message_bytes; a single span larger than that still goes (the next hop decides).
            # A target back from an outage is reconnected to within retry_on_failure.max_interval, not gRPC's 120 s.
            reconnect_ms = max(1000, int(self._config.retry_on_failure.max_interval * 1000))
            options = [("grpc.max_send_message_length", -1), ("grpc.max_reconnect_backoff_ms", reconnect_ms)]
            compression = grpc.Compression.Gzip if self._config.compression == "gzip" else grpc.Compression.NoCompression
            if self._config.insecure and self._credentials is None:
                self._channel = grpc.aio.insecure_channel(self._config.endpoint, options=options, compression=compression)
            else:
                credentials = self._credentials or grpc.ssl_channel_credentials()
                self._channel = grpc.aio.secure_channel(
                    self._config.endpoint, credentials, options=options, compression=compression
                )
            response_type = ExportTraceServiceResponse if self._signal is Signal.TRACES else ExportLogsServiceResponse
            self._call = self._channel.unary_unary(
                self._signal.method, request_serializer=_identity, response_deserializer=response_type.FromString
            )
        for number in range(self._config.sending_queue.num_consumers):
            self._workers.append(asyncio.create_task(self._consume(), name=f"otlp-export-{self._signal}-{number}"))
        logger.debug("OTLP/gRPC %s exporter started for %s", self._signal, self._config.endpoint)

    @property
    def queued_bytes(self) -> int:
        """Payload bytes queued or being sent (memory held by this exporter)."""
        return self._queued_bytes

    @property
    def queued_items(self) -> int:
        """Spans (log records) queued or being sent: what waits while the target is failing."""
        return self._queued_items

    @property
    def failing(self) -> bool:
        """Whether the target is failing: from a failed attempt until the next delivery."""
        return self._status.failing

    def has_room(self, requests: int = 1) -> bool:
        return self._queue.maxsize - self._queue.qsize() >= requests

    def enqueue(self, request: OutboundRequest) -> None:
        """Queue one request (ownership passes). Raises :class:`ExportQueueFull` when full."""
        try:
            self._queue.put_nowait(request)
        except asyncio.QueueFull:
            self._counters.enqueue_failed_spans += request.items
            raise ExportQueueFull(f"sending queue full ({self._queue.maxsize} requests)") from None
        self._queued_bytes += len(request.payload)
        self._queued_items += request.items
        self._counters.queue_size = self._queue.qsize()

    async def put(self, request: OutboundRequest | ExportTraceServiceRequest) -> None:
        """Queue one request, waiting for room: a slow downstream slows the pipeline instead of losing spans."""
        if isinstance(request, ExportTraceServiceRequest):
            request = outbound(request)
        await self._queue.put(request)
        self._queued_bytes += len(request.payload)
        self._queued_items += request.items
        self._counters.queue_size = self._queue.qsize()

    async def put_trace(self, trace_id: bytes, requests: Sequence[OutboundRequest]) -> None:
        """The requests of one analysed trace, each queued with :meth:`put`."""
        await self.put_requests(requests)

    async def put_requests(self, requests: Sequence[OutboundRequest]) -> None:
        """Requests of any traces, each queued with :meth:`put`."""
        for request in requests:
            await self.put(request)

    async def _default_send(self, request: OutboundRequest, timeout: float) -> SendResult:
        assert self._call is not None
        metadata = tuple(self._config.headers.items()) or None
        response = await self._call(request.payload, timeout=timeout, metadata=metadata)
        partial = response.partial_success
        rejected = partial.rejected_spans if self._signal is Signal.TRACES else partial.rejected_log_records
        return SendResult(rejected_spans=rejected, error_message=partial.error_message)

    def _settle(self, request: OutboundRequest, how: Settlement) -> None:
        if self._on_settled is not None:
            try:
                self._on_settled(request, how)
            except Exception:  # bookkeeping must never stop the export workers
                logger.exception("settlement callback failed")

    async def _consume(self) -> None:
        """One export worker. Workers take turns gathering a batch (:func:`~processor.pipeline.export_batch.gather`), sent as one Export call
        while the next worker gathers the next batch. Serialized
        Export requests of one signal concatenate into a valid request (repeated fields merge), so the batch is
        their joined bytes; every request of the batch is then settled with the outcome of that call."""
        carried: OutboundRequest | None = None
        while True:
            if carried is not None:
                # The request that did not fit the last batch goes on its own, without waiting for the gathering
                # turn: the worker holding it may be blocked on an empty queue.
                batch, carried = [carried], None
            else:
                async with self._gathering:  # the other workers are sending their batches meanwhile
                    queue_config = self._config.sending_queue
                    batch, carried = await gather(
                        self._queue, min_items=queue_config.batch_min_size, max_bytes=self._config.max_message_bytes,
                        flush_timeout=queue_config.batch_flush_timeout, stopping=self._stopping,
                    )
            merged = merge(batch)
            try:
                how = await self._deliver(merged)
                for item in batch:
                    self._settle(item, how)
            except asyncio.CancelledError:
                for item in batch:
                    self._settle(item, Settlement.ABANDONED)
                raise
            except Exception:  # the worker survives anything a single send does
                if self._spooled:
                    logger.exception("unexpected error while exporting; the request stays in the spool for the next start")
                else:
                    logger.exception("unexpected error while exporting; the request is dropped and counted")
                for item in batch:
                    self._counters.send_failed_spans += item.items
                    self._settle(item, Settlement.ABANDONED if self._spooled else Settlement.FAILED)
            finally:
                for item in batch:
                    self._queued_bytes -= len(item.payload)
                    self._queued_items -= item.items
                    self._queue.task_done()
                self._counters.queue_size = self._queue.qsize()

    async def _deliver(self, request: OutboundRequest) -> Settlement:
        send = self._send_override or self._default_send
        spans = request.items
        retry: RetryConfig = self._config.retry_on_failure
        interval = retry.initial_interval
        # With the spool on, giving up would delete acknowledged data: retried until delivered or refused for good.
        budget = math.inf if self._spooled or not retry.max_elapsed_time else retry.max_elapsed_time
        elapsed = 0.0
        while True:
            try:
                result = await send(request, self._config.timeout)
            except grpc.aio.AioRpcError as error:
                code = error.code()
                delay = retry_delay_of(error)
                retryable = code in RETRYABLE or (code is grpc.StatusCode.RESOURCE_EXHAUSTED and delay is not None)
                cause = describe_export_error(error, self._section, self._config.timeout)
                if not retryable or not retry.enabled:
                    # Permanent: retrying cannot help (bad request, auth, unimplemented...).
                    self._counters.send_failed_spans += spans
                    why = "refused for good" if not retryable else f"not retried ({self._section}.retry_on_failure.enabled: false)"
                    await self._changed(self._status.gave_up(cause, self._queued_items - spans, spans, why))
                    return Settlement.FAILED
                if delay is None:
                    jitter = interval * retry.randomization_factor
                    delay = interval + self._rng.uniform(-jitter, jitter)
                    interval = min(interval * retry.multiplier, retry.max_interval)
                if self._stopping.is_set():
                    # Shutting down: leave it to the spool (replayed at the next start), counted as failed here.
                    logger.error("export to %s interrupted by shutdown (%s)", self._config.endpoint, code.name)
                    self._counters.send_failed_spans += spans
                    return Settlement.ABANDONED
                if elapsed + delay > budget:
                    # Out of retry budget (no spool): give up, counted.
                    self._counters.send_failed_spans += spans
                    why = (f"given up after {elapsed:.1f}s of retries ({self._section}.retry_on_failure.max_elapsed_time; "
                           "no spool holds them)")
                    await self._changed(self._status.gave_up(cause, self._queued_items - spans, spans, why))
                    return Settlement.FAILED
                retrying = "until delivered (the spool holds them)" if budget == math.inf else (
                    f"for up to {budget:g}s ({self._section}.retry_on_failure.max_elapsed_time)")
                await self._changed(self._status.failure(cause, self._queued_items, retrying=retrying))
                self._counters.retries += 1
                await self._sleep_or_stop(delay)
                elapsed += delay
                continue
            # Delivered (partial success is a delivery: the server told us what it refused; never retried).
            await self._changed(self._status.success())
            if result.rejected_spans:
                logger.warning(
                    "downstream refused %d span(s): %s", result.rejected_spans, result.error_message[:200]
                )
                self._counters.partial_rejected_spans += result.rejected_spans
            self._counters.sent_spans += spans - result.rejected_spans
            return Settlement.DELIVERED

    async def _changed(self, changed: bool) -> None:
        """Tell ``on_failing`` when the target started or stopped failing."""
        if changed and self._on_failing is not None:
            try:
                await self._on_failing(self._status.failing)
            except Exception:  # the health service's trouble must not stop exports
                logger.exception("reporting the exporter's state failed")

    async def _sleep_or_stop(self, delay: float) -> None:
        stop = asyncio.ensure_future(self._stopping.wait())
        nap = asyncio.ensure_future(self._sleep(delay))
        try:
            await asyncio.wait({stop, nap}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (stop, nap):
                task.cancel()

    async def flush(self) -> None:
        """Wait until every queued request has been delivered or given up."""
        await self._queue.join()

    async def shutdown(self, deadline: float = 10.0) -> None:
        """Stop retrying, drain the queue within ``deadline`` seconds, close. Safe before start and twice."""
        self._stopping.set()
        if self._workers:
            try:
                if self._queued_bytes or not self._queue.empty():  # wait_for(…, 0) times out even when idle
                    await asyncio.wait_for(self._queue.join(), timeout=deadline)
            except TimeoutError:
                left = self._queue.qsize()
                logger.error("exporter shutdown deadline reached with %d request(s) still queued", left)
            for worker in self._workers:
                worker.cancel()
            await asyncio.gather(*self._workers, return_exceptions=True)
            self._workers.clear()
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
