"""The worker-process side of analysis: what a worker receives, what it runs, what it sends back.

A worker gets released traces as bytes (:class:`~processor.pipeline.packed.PackedTrace`), several per call, and
analyses them in two phases (messages in :mod:`processor.pipeline.worker_messages`): phase one maps each trace and
runs the detector chain (:func:`~processor.pipeline.trace_analysis.detect_trace`), keeping the results; phase two,
once the main process has judged drift for each trace, annotates the spans
(:func:`~processor.pipeline.trace_analysis.complete_trace`), queues the trajectories the artifact policy selects
and serializes the Export requests; their files are written once the answer is sent, before the next call is read
(:class:`~processor.pipeline.artifacts.DeferredArtifactWriter`). A trace whose analysis raises is failed
open on its own (verdict ``error``); the others of its call go on.
"""

from __future__ import annotations

import logging
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from otel_mapper.diagnosis import DriftResult
from otel_mapper.mapping.run_state import RunState
from otel_mapper.otlp.envelopes import SpanEnvelope, build_requests_with_origins, fits_one_request
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import DriftInput, drift_input
from processor.detectors.registry import load_detectors
from processor.pipeline.artifact_policy import ArtifactPolicy
from processor.pipeline.artifacts import ArtifactCounts, DeferredArtifactWriter, artifact_writer
from processor.pipeline.packed import PackedTrace, pack_trace, packed_logs, unpack_into_request, unpack_trace
from processor.pipeline.run_store import run_store
from processor.pipeline.trace_analysis import (
    MAX_REASON_CHARS,
    Detected,
    TraceAnalysis,
    already_counted,
    complete_trace,
    detect_trace,
    fail_open,
    mapping_options,
    run_revision,
)
from processor.pipeline.worker_collector import WorkerCollector
from processor.pipeline.worker_messages import (
    AnalyseCall,
    ArtifactTally,
    DoneReply,
    FailedReply,
    FinishCall,
    FlushCall,
    ForgetCall,
    MappedReply,
    StopCall,
    WorkerCall,
    WorkerReply,
    WorkerResult,
)

__all__ = [
    "AnalysisWorker",
    "PackedTrace",
    "WorkerResult",
    "pack_trace",
    "unpack_into_request",
    "unpack_trace",
    "worker_main",
]

logger = logging.getLogger(__name__)

ARTIFACT_CLOSE_TIMEOUT: Final = 4.0
"""Within the pool's stop timeout (5 s), after which the main process kills a worker that has not exited."""


@dataclass(slots=True)
class _Mapped:
    envelopes: list[SpanEnvelope]
    request: ExportTraceServiceRequest
    """Holds the envelopes' spans (see :func:`unpack_into_request`)."""
    origins: list[int]
    trace_hex: str
    detected: Detected
    seconds: float
    prior: RunState | None


class AnalysisWorker:
    """The analysis one worker process runs: ``handle(call)`` answers each call of
    :mod:`processor.pipeline.worker_messages` (``None`` for calls that need no answer)."""

    def __init__(
        self, config: Config, max_request_bytes: int, keep_trajectories: bool = False, number: int = 0
    ) -> None:
        self._keep_trajectories = keep_trajectories
        self._runs = run_store(config, number)
        self._records = config.evaluation_log_records
        self._chain = DetectorChain(load_detectors(config.detectors), config.detectors)
        self._policy = ArtifactPolicy.from_config(config)
        self._artifacts = DeferredArtifactWriter(artifact_writer(config)) if self._policy.writes_any else None
        self._reported = ArtifactCounts()
        self._skipped = 0
        self._max_request_bytes = max_request_bytes
        self._prices = config.pricing or None
        self._pending: dict[int, list[_Mapped]] = {}

    def handle(self, call: WorkerCall) -> WorkerReply | None:
        try:
            if isinstance(call, AnalyseCall):
                return self._analyse(call.job, call.traces)
            if isinstance(call, FinishCall):
                return self._finish(call.job, call.drift_results)
            if isinstance(call, ForgetCall):
                self._pending.pop(call.job, None)
                return None
            if isinstance(call, FlushCall):
                self.write_artifacts()
                return DoneReply(call.job, (), self._tally(), self._runs.counts.copy())
            raise ValueError(f"unknown call {type(call).__name__}")
        except Exception as exc:  # the main process fails the spans open; this worker keeps serving
            job = getattr(call, "job", -1)
            self._pending.pop(job, None)
            logger.exception("analysis worker failed on job %d", job)
            return FailedReply(job, f"{type(exc).__name__}: {str(exc)[:MAX_REASON_CHARS]}")

    @property
    def jobs_in_hand(self) -> bool:
        """Whether a call's mapped traces wait for their drift results (their objects are still needed)."""
        return bool(self._pending)

    def close(self) -> None:
        """Write the artifacts still queued (within :data:`ARTIFACT_CLOSE_TIMEOUT`), stop the writer thread, and
        spill the run states held in memory (a restarted worker finds them)."""
        if self._artifacts is not None:
            self._artifacts.write_queued(deadline=time.monotonic() + ARTIFACT_CLOSE_TIMEOUT)
        self._runs.close()

    def write_artifacts(self) -> None:
        """Write the files of the trajectories the calls so far queued (:class:`DeferredArtifactWriter`): called
        after each answer is sent, before the next call is read."""
        if self._artifacts is not None:
            self._artifacts.write_queued()

    def _analyse(self, job: int, traces: Sequence[PackedTrace]) -> MappedReply:
        outcomes: list[DriftInput | WorkerResult] = []
        pending: list[_Mapped] = []
        for packed in traces:
            outcome, mapped = self._analyse_one(packed)
            outcomes.append(outcome)
            if mapped is not None:
                pending.append(mapped)
        if pending:
            self._pending[job] = pending
        return MappedReply(job, tuple(outcomes))

    def _analyse_one(self, packed: PackedTrace) -> tuple[DriftInput | WorkerResult, _Mapped | None]:
        envelopes, request, origins = unpack_into_request(packed)
        trace_hex = envelopes[0].span.trace_id.hex()
        started = time.perf_counter()
        prior = self._runs.get(trace_hex)
        revision = run_revision(packed.revision, prior)
        options = mapping_options(
            revision=revision, early=packed.early, reason=packed.reason,
            logs_missing=packed.logs_expected and not packed.logs, keep_run=True,
            earlier_missing=packed.revision > 1 and prior is None,
        )
        try:
            detected = detect_trace(envelopes, options, self._chain, packed_logs(packed), prior)
            run = drift_input(detected.mapping.trajectory, detected.diagnosis, already_counted(prior, revision))
        except Exception as exc:  # fail open, as everywhere
            failed = fail_open(envelopes, trace_hex, revision, exc)
            return self._result(failed, envelopes, request, origins, time.perf_counter() - started), None
        return run, _Mapped(envelopes, request, origins, trace_hex, detected, time.perf_counter() - started, prior)

    def _finish(self, job: int, drift_results: Sequence[DriftResult]) -> DoneReply:
        pending = self._pending.pop(job)
        if len(drift_results) != len(pending):
            raise ValueError(f"job {job}: {len(drift_results)} drift results for {len(pending)} mapped traces")
        results = tuple(self._finish_one(mapped, drift) for mapped, drift in zip(pending, drift_results, strict=False))
        return DoneReply(job, results, self._tally(), self._runs.counts.copy())

    def _finish_one(self, mapped: _Mapped, drift: DriftResult) -> WorkerResult:
        started = time.perf_counter()
        detected = Detected(mapped.detected.mapping, replace(mapped.detected.diagnosis, drift=drift))
        analysis = complete_trace(
            mapped.envelopes, detected, mapped.trace_hex, self._prices, mapped.prior, self._records
        )
        if analysis.state is not None:
            self._runs.put(analysis.state)
        if analysis.trajectory is not None and analysis.diagnosis is not None and self._artifacts is not None:
            if self._policy.selects(bytes.fromhex(mapped.trace_hex), analysis.diagnosis):
                self._artifacts.offer(analysis.trajectory, analysis.diagnosis)
            else:
                self._skipped += 1
        seconds = mapped.seconds + time.perf_counter() - started
        return self._result(
            analysis, mapped.envelopes, mapped.request, mapped.origins, seconds, merged_run=mapped.prior is not None
        )

    def _result(
        self,
        analysis: TraceAnalysis,
        envelopes: list[SpanEnvelope],
        request: ExportTraceServiceRequest,
        origins: list[int],
        seconds: float,
        *,
        merged_run: bool = False,
    ) -> WorkerResult:
        trajectory = analysis.trajectory if self._keep_trajectories else None
        requests = self._requests(envelopes, request, origins)
        return WorkerResult(
            requests, analysis.diagnosis, analysis.error, seconds, trajectory, analysis.usage,
            analysis.log_request, analysis.log_records, merged_run,
        )

    def _tally(self) -> ArtifactTally:
        """Artifact outcomes since the previous reply."""
        if self._artifacts is None:
            return ArtifactTally()
        now, before = self._artifacts.counts, self._reported
        tally = ArtifactTally(
            skipped=self._skipped,
            dropped=now.dropped - before.dropped,
            written=now.written - before.written,
            written_bytes=now.written_bytes - before.written_bytes,
            failed=now.failed - before.failed,
        )
        self._reported = ArtifactCounts(now.queued, now.dropped, now.written, now.written_bytes, now.failed)
        self._skipped = 0
        return tally

    def _requests(
        self, envelopes: list[SpanEnvelope], request: ExportTraceServiceRequest, origins: list[int]
    ) -> tuple[tuple[bytes, tuple[int, ...]], ...]:
        if fits_one_request(envelopes, self._max_request_bytes):
            return ((request.SerializeToString(), tuple(origins)),)
        return tuple(
            (request.SerializeToString(), tuple(origins))
            for request, origins in build_requests_with_origins(envelopes, self._max_request_bytes)
        )


def worker_main(
    connection: Connection,
    config: Config,
    max_request_bytes: int,
    log_level: int,
    keep_trajectories: bool = False,
    number: int = 0,
) -> None:
    """Entry point of a worker process: serve calls until told to stop or the main process goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when workers stop
    logging.basicConfig(level=log_level, format="%(asctime)s %(levelname)s %(name)s[worker]: %(message)s")
    worker = AnalysisWorker(config, max_request_bytes, keep_trajectories, number)
    collector = WorkerCollector()
    collector.start()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if isinstance(message, StopCall):
            worker.close()
            return
        reply = worker.handle(message)
        if reply is not None:
            try:
                connection.send(reply)
            except OSError:  # the main process went away
                return
        worker.write_artifacts()  # after the answer: the files never delay the spans
        collector.between_calls(worker.jobs_in_hand)
