"""Released traces -> log join -> analysis -> export: the queue between the assembler and the exporter, and the
loops that move traces along it.

Traces are released by the assembler (complete, idle, too old, shed by the memory policy, or drained at shutdown)
into a queue; process loops take them in batches, join their logs, analyse them off the event loop
(:class:`~processor.pipeline.analysis.AnalysisStage`) and hand the annotated requests to the traces exporter.
A trace whose processing fails is counted as failed and its spans are settled, so the pipeline keeps going.

Threading: everything here runs on the event loop thread that owns the pipeline state.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from processor.pipeline.admission import AdmissionControl
from processor.pipeline.analysis import AnalysedTrace, AnalysisStage, BatchQueue, Forwarded
from processor.pipeline.assembler import ReleasedTrace, TraceAssembler
from processor.pipeline.log_join import LogJoinBuffer
from processor.pipeline.outbound import OutboundRequest
from processor.pipeline.signal_pipeline import SignalPipeline
from processor.telemetry.counters import Telemetry

__all__ = ["TraceProcessing"]

logger = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 5.0
"""How long the release loop sleeps when no buffered trace has a deadline (new spans wake it earlier)."""


class TraceProcessing:
    """The release queue and its loops. ``open()`` (on the running loop) before the loops run; ``on_analysed`` is
    told of every trace analysed and handed to the exporter (tests and the demo), fast-path traces included
    unless ``forward_together``: then the fast-path traces of a batch are handed over in shared requests
    (:meth:`~processor.pipeline.analysis.AnalysisStage.forward_fast`) when the exporter allows it (not
    ``by_trace``), one put and one growth record per batch instead of per trace, before the batch's other traces
    are analysed."""

    def __init__(
        self,
        assembler: TraceAssembler,
        analysis: AnalysisStage,
        admission: AdmissionControl,
        traces: SignalPipeline,
        log_join: LogJoinBuffer,
        telemetry: Telemetry,
        *,
        logs: SignalPipeline | None = None,
        on_analysed: Callable[[AnalysedTrace], None] | None = None,
        forward_together: bool = False,
    ) -> None:
        self._assembler = assembler
        self._analysis = analysis
        self._admission = admission
        self._traces = traces
        self._log_join = log_join
        self._logs = logs
        """Where findings and verdicts for already exported spans go as log records (``None``: nowhere)."""
        self._undelivered_said = False
        self.telemetry = telemetry
        self._on_analysed = on_analysed
        self._forward_together = forward_together
        """Fast-path traces of a batch go out in shared requests, and ``on_analysed`` is not told of them."""
        self._released: BatchQueue[ReleasedTrace] | None = None
        self._wake: asyncio.Event | None = None

    def open(self) -> None:
        self._released = BatchQueue()
        self._wake = asyncio.Event()

    @property
    def queued_traces(self) -> int:
        """Released traces waiting for a process loop."""
        return self._released.qsize() if self._released is not None else 0

    def wake(self) -> None:
        """New spans were buffered: the release loop looks at the assembler's deadlines again."""
        if self._wake is not None:
            self._wake.set()

    def enqueue_release(self, released: ReleasedTrace) -> None:
        assert self._released is not None
        self._admission.taken(released)
        if released.reason.early:
            self.telemetry.processor.traces_released_early += 1
        if released.late:
            self.telemetry.processor.late_spans += len(released.spans)
        self._released.put_nowait(released)

    async def join(self) -> None:
        """Wait until every trace released so far went through a process loop."""
        assert self._released is not None
        await self._released.join()

    async def release_loop(self) -> None:
        assert self._wake is not None
        while True:
            for released in self._assembler.poll():
                self.enqueue_release(released)
            self._log_join.expire()
            due_in = self._assembler.next_due_in()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=due_in if due_in is not None else IDLE_POLL_SECONDS)
            except TimeoutError:
                pass

    async def process_loop(self) -> None:
        assert self._released is not None
        while True:
            batch = self._released.take_batch(await self._released.get(), _span_count)
            await self._process(batch)
            for released in batch:
                self._admission.done(released)
                self._released.task_done()

    async def _process(self, batch: list[ReleasedTrace]) -> None:
        """Analyse ``batch`` and hand everything to the exporter; a trace whose processing or export fails is
        counted as failed. When nothing needs the fast-path traces one by one they go out together, and before
        the analysis of the rest starts: a web trace released beside agent traces does not wait for them."""
        together = self._forward_together and not self._traces.exporter.by_trace
        pending = batch
        try:
            for released in batch:
                self._join_logs(released)
            if together:
                forwarded, pending = self._analysis.forward_fast(batch)
                if forwarded is not None:
                    await self._export_forwarded(forwarded)
                analysed_batch = await self._analysis.analyse(pending)
            else:
                analysed_batch = await self._analysis.process_batch(batch)
        except Exception:  # keep the pipeline alive; the spans of these traces are counted as failed
            logger.exception("processing %d trace(s) failed", len(pending))
            for released in pending:
                self._count_failed(released)
            return
        for analysed in analysed_batch:
            try:
                self._count_detectors(analysed)
                await self._export(analysed)
                if self._on_analysed is not None:
                    self._on_analysed(analysed)
            except Exception:  # keep the pipeline alive; the spans of this trace are counted as failed
                logger.exception("exporting trace %s failed", analysed.released.trace_id.hex())
                self._count_failed(analysed.released)

    async def _export_forwarded(self, forwarded: Forwarded) -> None:
        try:
            exporter = self._traces.exporter
            if exporter.holds_requests:
                self._admission.record_forwarded_growth(
                    forwarded.traces, sum(len(request.payload) for request in forwarded.requests)
                )
            await exporter.put_requests(forwarded.requests)
        except Exception:  # keep the pipeline alive; the spans of these traces are counted as failed
            logger.exception("exporting %d trace(s) forwarded unanalysed failed", len(forwarded.traces))
            for released in forwarded.traces:
                self._count_failed(released)

    def _count_failed(self, released: ReleasedTrace) -> None:
        self.telemetry.exporter.send_failed_spans += len(released.spans)
        self._traces.delivered(span.origin for span in released.spans)

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
        exporter = self._traces.exporter
        if exporter.holds_requests:
            self._admission.record_growth(analysed.released, sum(len(request.payload) for request in analysed.requests))
        await exporter.put_trace(analysed.released.trace_id, analysed.requests)
        if analysed.log_request is not None:
            await self._export_records(analysed)

    async def _export_records(self, analysed: AnalysedTrace) -> None:
        assert analysed.log_request is not None
        count = analysed.log_records
        if self._logs is not None:
            request = OutboundRequest(analysed.log_request, count, (-1,) * count)
            await self._logs.exporter.put_trace(analysed.released.trace_id, [request])
            return
        self.telemetry.processor.evaluation_log_records_undelivered += count
        if not self._undelivered_said:
            self._undelivered_said = True
            logger.warning(
                "trace %s: %d finding(s) or verdict(s) concern spans an earlier revision already exported and can "
                "only go out as OTLP log records, but no logs_exporter is configured; set logs_exporter.endpoint "
                "(counted in otel_trajectory_processor_evaluation_log_records_undelivered_total; said once)",
                analysed.released.trace_id.hex(), count,
            )


def _span_count(released: ReleasedTrace) -> int:
    return len(released.spans)
