"""The sinks every receiver hands accepted data to (:class:`~processor.pipeline.intake.TraceSink` and
:class:`~processor.pipeline.intake.LogSink`): admission, then the spool (durable before the client is answered),
then the assembler (traces) or the log join and the logs exporter (logs).

Threading: everything here runs on the event loop thread that owns the pipeline state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from otel_mapper.otlp.held import HeldSpan, wire_requests
from processor.pipeline.admission import AdmissionControl
from processor.pipeline.assembler import TraceAssembler
from processor.pipeline.intake import Backpressure, LogsOutcome, log_record_count
from processor.pipeline.log_join import LogJoinBuffer
from processor.pipeline.outbound import OutboundRequest
from processor.pipeline.processing import TraceProcessing
from processor.pipeline.signal_pipeline import SignalPipeline

__all__ = ["PipelineSinks"]


class PipelineSinks:
    """``submit`` is the trace sink, ``submit_logs`` the log sink. With ``passthrough`` spans skip the assembler
    and analysis and go to the traces exporter as they came. ``is_stopped`` tells whether the service is
    shutting down (then logs are refused; traces are refused by admission)."""

    def __init__(
        self,
        assembler: TraceAssembler,
        admission: AdmissionControl,
        processing: TraceProcessing,
        traces: SignalPipeline,
        logs: SignalPipeline | None,
        log_join: LogJoinBuffer,
        *,
        passthrough: bool,
        is_stopped: Callable[[], bool],
    ) -> None:
        self._assembler = assembler
        self._admission = admission
        self._processing = processing
        self._traces = traces
        self._logs = logs
        self._log_join = log_join
        self._passthrough = passthrough
        self._is_stopped = is_stopped

    def check_room(self) -> None:
        """The trace receivers' room check (:class:`~processor.pipeline.intake.RoomCheck`), asked before a request
        is decoded: raises Backpressure when ``submit`` would refuse a request now."""
        self._admission.check_room()

    async def submit(
        self, spans: Sequence[HeldSpan], body: bytes = b"", raw_requests: Sequence[bytes] = ()
    ) -> None:
        """The trace sink of every receiver: spool (durable before the client is answered), then take. Room is
        checked again here: it can change while a request is decoded, and while it is spooled."""
        self._admission.check_room()
        origin = -1
        if self._traces.spool is not None and body:
            origin = await self._traces.spool_request(body, len(spans) + len(raw_requests))
            for span in spans:
                span.origin = origin
        try:
            self._admission.check_room()
        except Backpressure:
            if origin >= 0:
                self._traces.ack(origin)  # the client is told to resend: not ours to replay
            raise
        self.take(spans, raw_requests, origin)

    def take(self, spans: Sequence[HeldSpan], raw_requests: Sequence[bytes], origin: int) -> None:
        """Spans admitted (and spooled under ``origin``, ``-1`` when not): into the assembler, or straight out."""
        if raw_requests:
            self._forward_raw(raw_requests, origin)
        if self._passthrough:
            exporter = self._traces.exporter
            for payload, origins in wire_requests(spans, exporter.max_message_bytes):
                exporter.enqueue(OutboundRequest(payload, len(origins), origins))
            return
        for released in self._assembler.add(spans):
            self._processing.enqueue_release(released)
        for released in self._admission.enforce_memory_limit():
            self._processing.enqueue_release(released)
        self._processing.wake()

    def _forward_raw(self, raw_requests: Sequence[bytes], origin: int) -> None:
        """Spans that did not decode on their own go out unchanged and unanalysed."""
        for raw in raw_requests:
            self._traces.exporter.enqueue(OutboundRequest(raw, 1, (origin,), alone=True))

    async def submit_logs(self, request: ExportLogsServiceRequest, body: bytes) -> LogsOutcome:
        """The log sink of every receiver: join to traces for analysis; forward unchanged when configured."""
        if self._is_stopped():
            raise Backpressure("shutting down", retry_after=5.0)
        logs = self._logs
        if logs is not None:
            logs.check_export_room()
            origin = await logs.spool_request(body, 1)
            logs.exporter.enqueue(OutboundRequest(body, log_record_count(request), (origin,)))
        self._log_join.add(request, body)
        return LogsOutcome()
