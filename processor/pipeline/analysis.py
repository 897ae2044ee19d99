"""The analysis stage between the assembler and the exporters: per released trace, the fast path or
map -> detect -> annotate (:func:`~processor.pipeline.trace_analysis.analyse_trace`), artifacts queued off the
path, annotated spans serialized for export. Fails open: if analysis raises, the spans still go out, annotated
with verdict ``error`` and the reason (DESIGN invariant 2).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from otel_mapper.diagnosis import Diagnosis, DriftResult
from otel_mapper.model import Trajectory
from otel_mapper.otlp.held import open_spans
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import DriftEvaluator, DriftInput
from processor.detectors.registry import load_detectors
from processor.pipeline.analyser import AnalysedTrace, Analyser, outbound_requests, release_options
from processor.pipeline.analysis_pool import AnalysisPool, WorkerLost
from processor.pipeline.artifact_policy import ArtifactPolicy
from processor.pipeline.artifacts import ArtifactCounts, BackgroundArtifactWriter, artifact_writer
from processor.pipeline.assembler import ReleasedTrace
from processor.pipeline.batch_queue import ANALYSIS_BATCH_SPANS, ANALYSIS_BATCH_TRACES, BatchQueue, analysis_calls
from processor.pipeline.drift_turns import DriftTurns
from processor.pipeline.exporter import OutboundRequest
from processor.pipeline.fast_path import FastPath, FastPathRuns
from processor.pipeline.packed import pack_trace
from processor.pipeline.retention import RetentionSweeper
from processor.pipeline.run_store import run_store
from processor.pipeline.trace_analysis import fail_open
from processor.pipeline.worker_messages import ArtifactTally, DoneReply, FailedReply, MappedReply, WorkerResult
from processor.resources import analysis_worker_count
from processor.telemetry.counters import ProcessorCounters, RunStateCounters

__all__ = [
    "ANALYSIS_BATCH_SPANS",
    "ANALYSIS_BATCH_TRACES",
    "AnalysedTrace",
    "AnalysisStage",
    "Analyser",
    "BatchQueue",
    "Forwarded",
    "outbound_requests",
    "release_options",
]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class Forwarded:
    """Fast-path traces of one batch, forwarded together: ``requests`` hold the spans of all of ``traces``."""

    traces: list[ReleasedTrace]
    requests: list[OutboundRequest]


class AnalysisStage:
    """The whole per-trace stage between the assembler and the exporters.

    ``await process(released)`` forwards a trace no reader recognises as it came (the fast path,
    :mod:`processor.pipeline.fast_path`); otherwise it maps, detects (drift included), annotates, hands the
    trajectory to the artifact writer when ``output.artifacts`` selects it, and returns the annotated spans as
    serialized Export requests, each under ``max_request_bytes``.

    Where the analysis runs follows ``config.analysis_workers``: ``0`` in one thread of this process (the
    trajectory and the annotated envelopes are kept on the result); ``N >= 1`` in N worker processes
    (:mod:`processor.pipeline.analysis_pool`), so analysis uses other cores than the event loop's. Then
    ``AnalysedTrace.trajectory`` is ``None`` unless ``keep_trajectories`` (it stays in the worker: sending it back
    costs more than analysing a small trace), ``diagnosis`` is filled, and the annotated spans exist only as
    ``requests`` (``released.spans`` are left as received).

    Artifact files are written from a bounded queue: in a worker, once it has answered the call that queued them
    (:class:`~processor.pipeline.artifacts.DeferredArtifactWriter`); with no workers, by a thread
    (:class:`~processor.pipeline.artifacts.BackgroundArtifactWriter`). Delivery never waits for them; when the
    queue is full, trajectories are dropped and counted. Retention (``output.retention``) is swept by this stage.

    ``await process_batch(traces)`` does the same for several traces in one worker call (results in order).

    Drift baselines have one owner, this stage, and see runs in the order ``process``/``process_batch`` was
    called (and within a batch, in its order), whatever order the workers finish in: each call takes a ticket and
    drift is evaluated in ticket order. Several calls may be in flight at once (the service runs a few process
    loops per worker). Fail open: if a worker raises, dies or hangs, the spans of its traces still go out with
    verdict ``error`` and the worker is restarted.
    """

    def __init__(
        self,
        config: Config,
        counters: ProcessorCounters,
        max_request_bytes: int,
        *,
        keep_trajectories: bool = False,
        fast_path_runs: FastPathRuns | None = None,
    ) -> None:
        output_dir = Path(config.output_dir)
        self._drift = DriftEvaluator(config.detectors.drift, output_dir / "drift")
        self._counters = counters
        self._max_request_bytes = max_request_bytes
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="otel-trajectory-analysis")
        self._turns = DriftTurns()
        self._worker_runs: dict[int, RunStateCounters] = {}
        self._run_worker: OrderedDict[bytes, int] = OrderedDict()
        """Which worker holds each recent run's state (its later revisions go there); bounded like the
        assembler's cache of released traces."""
        self._run_worker_capacity = max(config.released_cache_size, 1)
        self._pool: AnalysisPool | None = None
        self._analyser: Analyser | None = None
        self._policy = ArtifactPolicy.from_config(config)
        self._artifacts: BackgroundArtifactWriter | None = None
        self._artifacts_reported = ArtifactCounts()
        self.fast_path = FastPath(fast_path_runs)
        """The fast-path decision; ``fast_path.runs`` is where it records the traces it forwarded."""
        self._retention = RetentionSweeper.from_config(config) if self._policy.writes_any else None
        self._retention_task: asyncio.Task[None] | None = None
        self.workers = analysis_worker_count(config.analysis_workers)
        """Worker processes analysing (``0``: a thread of this process), ``auto`` resolved."""
        if self.workers >= 1:
            self._pool = AnalysisPool(self.workers, config, max_request_bytes, keep_trajectories=keep_trajectories)
        else:
            self._analyser = Analyser(
                DetectorChain(load_detectors(config.detectors), config.detectors),
                drift=self._judge_drift,
                prices=config.pricing or None,
                runs=run_store(config),
                records=config.evaluation_log_records,
            )
            if self._policy.writes_any:
                self._artifacts = BackgroundArtifactWriter(artifact_writer(config))
        self._closed = False

    @property
    def pool(self) -> AnalysisPool | None:
        """The worker processes (``None`` when analysis runs in a thread of this process)."""
        return self._pool

    @property
    def artifact_writer(self) -> BackgroundArtifactWriter | None:
        """This process's artifact writer (``None`` with workers, whose writers live in them, or artifacts off)."""
        return self._artifacts

    def _judge_drift(self, trajectory: Trajectory, diagnosis: Diagnosis, already_counted: bool) -> DriftResult:
        return self._drift.evaluate(trajectory, diagnosis, already_counted)

    @property
    def run_counts(self) -> RunStateCounters:
        """The run stores of every analysing process, added up (a worker's as of its latest reply)."""
        if self._analyser is not None and self._analyser.runs is not None:
            return self._analyser.runs.counts.copy()
        total = RunStateCounters()
        for counts in self._worker_runs.values():
            total.add(counts)
        return total

    async def start(self) -> None:
        """Start the worker processes now rather than on the first trace (optional), and retention."""
        if self._pool is not None:
            self._pool.start()
        if self._retention is not None and self._retention_task is None:
            self._retention_task = asyncio.create_task(self._retention.run(self._counters), name="artifact-retention")

    async def process(self, released: ReleasedTrace) -> AnalysedTrace:
        return (await self.process_batch([released]))[0]

    async def process_batch(self, batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        """Analyse several traces in one call (one round trip to a worker): results in ``batch`` order, drift
        evaluated in that order, each trace failed open on its own when its analysis breaks; traces of the fast
        path are forwarded here, without analysis, each with requests of its own."""
        taken = self.fast_path.take(batch)
        to_analyse = [released for released, fast in zip(batch, taken, strict=True) if not fast]
        analysed = iter(await self.analyse(to_analyse))
        return [self._forward(released) if fast else next(analysed) for released, fast in zip(batch, taken, strict=True)]

    def forward_fast(self, batch: Sequence[ReleasedTrace]) -> tuple[Forwarded | None, list[ReleasedTrace]]:
        """The fast-path traces of ``batch`` with their requests (``None``: none took it), and the traces left to
        :meth:`analyse`, in batch order: :meth:`process_batch` for an exporter that need not see each fast-path
        trace's requests apart, their spans in one set of requests, which a caller can send before the analysis of
        the rest ends."""
        taken = self.fast_path.take(batch)
        fast = [released for released, take in zip(batch, taken, strict=True) if take]
        to_analyse = [released for released, take in zip(batch, taken, strict=True) if not take]
        return (Forwarded(fast, self._forward_together(fast)) if fast else None), to_analyse

    async def analyse(self, to_analyse: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        """Analyse traces the fast path did not take (in one thread, or in calls to the workers), in order."""
        if not to_analyse:
            return []
        if self._pool is None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, self._process_all, to_analyse)
        return await self._process_routed(self._pool, to_analyse)

    def _forward(self, released: ReleasedTrace) -> AnalysedTrace:
        requests = self._forward_together([released])
        return AnalysedTrace(released, None, None, None, 0.0, requests=requests, fast_path=True)

    def _forward_together(self, traces: list[ReleasedTrace]) -> list[OutboundRequest]:
        """The requests of fast-path ``traces``, counted as forwarded unanalysed."""
        requests = self.fast_path.forward(traces, self._max_request_bytes)
        self._counters.traces_fast_pathed += len(traces)
        self._counters.spans_fast_pathed += sum(len(released.spans) for released in traces)
        return requests

    def _process_all(self, batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        results = [self._process(released) for released in batch]
        self._report_artifacts()
        return results

    def _process(self, released: ReleasedTrace) -> AnalysedTrace:
        assert self._analyser is not None
        analysed = self._analyser.analyse(released)
        if self._artifacts is not None and analysed.trajectory is not None and analysed.diagnosis is not None:
            if self._policy.selects(released.trace_id, analysed.diagnosis):
                self._artifacts.offer(analysed.trajectory, analysed.diagnosis)
            else:
                self._counters.artifacts_skipped += 1
        analysed.requests = outbound_requests(analysed.envelopes, self._max_request_bytes)
        self._count(analysed)
        return analysed

    def _report_artifacts(self) -> None:
        """Add what this process's writer did since the last report to the counters."""
        if self._artifacts is None:
            return
        now, before = self._artifacts.counts, self._artifacts_reported
        self._add_tally(ArtifactTally(
            dropped=now.dropped - before.dropped,
            written=now.written - before.written,
            written_bytes=now.written_bytes - before.written_bytes,
            failed=now.failed - before.failed,
        ))
        self._artifacts_reported = ArtifactCounts(now.queued, now.dropped, now.written, now.written_bytes, now.failed)

    def _add_tally(self, tally: ArtifactTally) -> None:
        counters = self._counters
        counters.artifacts_skipped += tally.skipped
        counters.artifacts_dropped += tally.dropped
        counters.artifacts_written += tally.written
        counters.artifacts_written_bytes += tally.written_bytes
        counters.artifacts_failed += tally.failed

    async def _process_routed(self, pool: AnalysisPool, batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        """Later revisions go to the worker that holds their run's state: the batch is split by that worker, the
        rest goes to the least busy worker; each part is split into analysis calls (:func:`analysis_calls`).
        Every call takes its drift ticket here, in batch order (drift sees the runs in that order), and the calls
        then run at once; results come back in batch order."""
        parts: dict[int | None, list[int]] = {}
        if pool.size == 1 or not self._run_worker:
            parts[None] = list(range(len(batch)))
        else:
            for position, released in enumerate(batch):
                parts.setdefault(self._run_worker.get(released.trace_id), []).append(position)
        calls: list[tuple[list[int], int | None, int]] = []
        for worker, positions in parts.items():
            for call in analysis_calls([len(batch[position].spans) for position in positions]):
                calls.append(([positions[index] for index in call], worker, self._turns.take()))
        if len(calls) == 1:
            positions, worker, ticket = calls[0]
            return await self._process_in_pool(pool, [batch[position] for position in positions], worker, ticket)
        results: list[AnalysedTrace | None] = [None] * len(batch)
        done = await asyncio.gather(
            *(self._process_in_pool(pool, [batch[position] for position in positions], worker, ticket)
              for positions, worker, ticket in calls)
        )
        for (positions, _worker, _ticket), analysed in zip(calls, done, strict=True):
            for position, item in zip(positions, analysed, strict=True):
                results[position] = item
        return [item for item in results if item is not None]

    async def _process_in_pool(
        self, pool: AnalysisPool, batch: Sequence[ReleasedTrace], worker: int | None, ticket: int
    ) -> list[AnalysedTrace]:
        try:
            number, results = await self._run_in_pool(pool, batch, ticket, worker)
        except (WorkerLost, OSError) as exc:
            return [self._count(await self._fail_open(released, str(exc))) for released in batch]
        finally:
            self._turns.done(ticket)  # no-op when drift already took its turn
        analysed_traces: list[AnalysedTrace] = []
        for released, result in zip(batch, results, strict=False):
            analysed = AnalysedTrace(
                released, result.trajectory, result.diagnosis, result.error, result.seconds, usage=result.usage,
                log_request=result.log_request, log_records=result.log_records, merged_run=result.merged_run,
            )
            analysed.requests = [OutboundRequest(payload, len(origins), origins) for payload, origins in result.requests]
            analysed_traces.append(self._count(analysed))
            if result.diagnosis is not None:
                self._remember_worker(released.trace_id, number)
        return analysed_traces

    def _remember_worker(self, trace_id: bytes, number: int) -> None:
        routes = self._run_worker
        routes[trace_id] = number
        routes.move_to_end(trace_id)
        while len(routes) > self._run_worker_capacity:
            routes.popitem(last=False)

    async def _run_in_pool(
        self, pool: AnalysisPool, batch: Sequence[ReleasedTrace], ticket: int, worker: int | None
    ) -> tuple[int, list[WorkerResult]]:
        handle, generation, job, reply = await pool.analyse([pack_trace(released) for released in batch], worker)
        if isinstance(reply, FailedReply):
            raise WorkerLost(f"analysis worker failed: {reply.reason}")
        if not isinstance(reply, MappedReply) or len(reply.outcomes) != len(batch):
            raise WorkerLost(f"analysis worker answered {type(reply).__name__} for {len(batch)} traces")
        runs = [outcome for outcome in reply.outcomes if isinstance(outcome, DriftInput)]
        finished: tuple[WorkerResult, ...] = ()
        if runs:
            try:
                await self._turns.wait(ticket)
            except BaseException:  # cancelled while waiting: phase two never comes
                pool.forget(handle, generation, job)
                raise
            drift_results = [self._drift.evaluate_input(run) for run in runs]
            self._turns.done(ticket)
            done = await pool.finish(handle, generation, job, drift_results)
            if isinstance(done, FailedReply):
                raise WorkerLost(f"analysis worker failed: {done.reason}")
            if not isinstance(done, DoneReply) or len(done.results) != len(runs):
                raise WorkerLost(f"analysis worker finished {type(done).__name__} for {len(runs)} traces")
            self._add_tally(done.artifacts)
            if done.runs is not None:
                self._worker_runs[handle.number] = done.runs
            finished = done.results
        results = iter(finished)
        return handle.number, [next(results) if isinstance(outcome, DriftInput) else outcome for outcome in reply.outcomes]

    async def _fail_open(self, released: ReleasedTrace, why: str) -> AnalysedTrace:
        def annotate_here() -> AnalysedTrace:
            envelopes = open_spans(released.spans)
            outcome = fail_open(envelopes, released.trace_id.hex(), released.revision, why)
            analysed = AnalysedTrace(released, None, None, outcome.error, 0.0, envelopes=envelopes)
            analysed.requests = outbound_requests(envelopes, self._max_request_bytes)
            return analysed

        if self._closed:  # the executor is gone: small work, done here
            return annotate_here()
        return await asyncio.get_running_loop().run_in_executor(self._executor, annotate_here)

    def _count(self, analysed: AnalysedTrace) -> AnalysedTrace:
        counters = self._counters
        counters.traces_analysed += 1
        counters.analysis_seconds_total += analysed.seconds
        counters.run_revisions_merged += analysed.merged_run
        counters.evaluation_log_records += analysed.log_records
        if analysed.error is not None:
            counters.analysis_errors += 1
        return analysed

    async def flush_artifacts(self, timeout: float | None = None) -> None:
        """Wait until the artifact writers (this process's, or the workers') have written what they were given."""
        if self._pool is not None:
            for reply in await self._pool.flush_artifacts():
                if isinstance(reply, DoneReply):
                    self._add_tally(reply.artifacts)
        if self._artifacts is not None:
            await asyncio.to_thread(self._artifacts.wait_idle, timeout)
            self._report_artifacts()

    async def close(self) -> None:
        """Finish the work in hand, stop the workers (their artifact writers finish first), write the artifacts
        still queued, persist drift baselines. Safe twice."""
        if self._retention_task is not None:
            self._retention_task.cancel()
            try:
                await self._retention_task
            except asyncio.CancelledError:
                pass
            self._retention_task = None
        if self._pool is not None:
            await self._pool.close()
        self._closed = True
        self._executor.shutdown(wait=True)
        if self._analyser is not None and self._analyser.runs is not None:
            self._analyser.runs.close()
        if self._artifacts is not None:
            await asyncio.to_thread(self._artifacts.close)
            self._report_artifacts()
        self._drift.save()
