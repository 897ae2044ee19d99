"""Spool replay at start-up: requests accepted before the last stop but not delivered are fed through again
(at-least-once: their spans may reach the export target twice; replays are counted).

Entries are read from disk one at a time, only when their turn comes, and each waits while the pipeline pushes
back, so a large spool does not flood memory or starve live intake.
"""

from __future__ import annotations

import asyncio
import logging

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from otel_mapper.otlp.salvage import WireError, decode_trace_request
from processor.pipeline.admission import AdmissionControl
from processor.pipeline.intake import Backpressure, log_record_count
from processor.pipeline.outbound import OutboundRequest
from processor.pipeline.signal_pipeline import SignalPipeline
from processor.pipeline.sinks import PipelineSinks
from processor.pipeline.spool import KIND_TRACES, SpoolEntry
from processor.telemetry.counters import SpoolCounters

__all__ = ["REPLAY_RETRY_SECONDS", "SpoolReplay"]

logger = logging.getLogger(__name__)

REPLAY_RETRY_SECONDS = 0.2


class SpoolReplay:
    """Feeds undelivered spool entries of both signals through the same sinks as live requests."""

    def __init__(
        self,
        sinks: PipelineSinks,
        admission: AdmissionControl,
        traces: SignalPipeline,
        logs: SignalPipeline | None,
        counters: SpoolCounters,
    ) -> None:
        self._sinks = sinks
        self._admission = admission
        self._traces = traces
        self._logs = logs
        self._counters = counters

    async def run(self, entries: list[SpoolEntry]) -> None:
        """Feed undelivered spool entries through again, one at a time (each read from disk only now), waiting
        whenever the pipeline pushes back."""
        for entry in entries:
            kind, entry_id = entry.kind, entry.entry_id
            try:
                payload = await asyncio.to_thread(_read_payload, entry)
            except OSError as exc:  # the segment changed under us since start-up: nothing left to send
                logger.error("spool entry %d cannot be read (%s); dropped", entry_id, exc)
                pipeline = self._traces if kind == KIND_TRACES else self._logs
                if pipeline is not None:
                    pipeline.ack(entry_id)
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
        try:
            decoded = decode_trace_request(payload)
        except WireError:
            logger.error("spool entry %d is not a trace request; dropped", entry_id)
            self._traces.ack(entry_id)
            return
        self._admission.check_room()
        for span in decoded.spans:
            span.origin = entry_id
        self._traces.register(entry_id, len(decoded.spans) + len(decoded.raw_requests))
        self._counters.replayed_requests += 1
        self._counters.replayed_spans += len(decoded.spans) + len(decoded.raw_requests)
        self._sinks.take(decoded.spans, decoded.raw_requests, entry_id)

    def _replay_logs(self, entry_id: int, payload: bytes) -> None:
        logs = self._logs
        if logs is None:  # no logs target any more: nothing to deliver to
            return
        logs.check_export_room()
        try:
            request = ExportLogsServiceRequest.FromString(payload)
        except Exception:  # DecodeError: a spooled request is what a receiver accepted, so this is damage
            logger.error("spool entry %d is not a logs request; dropped", entry_id)
            logs.ack(entry_id)
            return
        logs.register(entry_id, 1)
        self._counters.replayed_requests += 1
        logs.exporter.enqueue(OutboundRequest(payload, log_record_count(request), (entry_id,)))


def _read_payload(entry: SpoolEntry) -> bytes:
    return entry.payload
