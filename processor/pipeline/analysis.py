"""One released trace -> trajectory, diagnosis and annotated spans. Fails open: if mapping or the chain
raises, the spans still go out, annotated with verdict ``error`` and the reason (DESIGN invariant 2).

This is the thin wrapper around the pure stages (map, detect, annotate) that adds timing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from otel_mapper.annotate import annotate, annotate_failure
from otel_mapper.attribution import PriceTable, attribute
from otel_mapper.attribution.summary import TraceUsage, trace_usage
from otel_mapper.diagnosis import Diagnosis
from otel_mapper.mapping.build import MappingOptions, map_trace, trajectory_id_for
from otel_mapper.mapping.log_events import events_in_logs_declaration, mapping_envelopes
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope, build_requests_with_origins
from otel_mapper.otlp.held import open_spans
from processor.config import Config, bundle_options
from processor.detectors.chain import DetectorChain
from processor.detectors.drift import DriftEvaluator
from processor.detectors.registry import load_detectors
from processor.pipeline.analysis_pool import AnalysisPool, WorkerLost
from processor.pipeline.analysis_worker import WorkerResult, pack_trace
from processor.pipeline.artifacts import ArtifactWriter
from processor.pipeline.assembler import ReleasedTrace
from processor.pipeline.exporter import OutboundRequest
from processor.telemetry.counters import ProcessorCounters

__all__ = [
    "ANALYSIS_BATCH_SPANS",
    "ANALYSIS_BATCH_TRACES",
    "AnalysedTrace",
    "AnalysisStage",
    "Analyser",
    "BatchQueue",
    "outbound_requests",
]

logger = logging.getLogger(__name__)

ANALYSIS_BATCH_TRACES = 16
ANALYSIS_BATCH_SPANS = 128
"""Released traces queued together go to analysis in one call while their spans add up to at most this (a single
larger trace goes alone): small traces share a worker round trip, which costs about as much as analysing a few
spans; a batch delays its first trace by at most the analysis of this many spans."""

_T = TypeVar("_T")


class BatchQueue(asyncio.Queue[_T]):
    """Released traces waiting for analysis (the service's queue between assembler and analysis)."""

    def take_batch(self, first: _T, spans_of: Callable[[_T], int]) -> list[_T]:
        """``first`` and the items queued behind it that fit one analysis call (:data:`ANALYSIS_BATCH_SPANS`,
        :data:`ANALYSIS_BATCH_TRACES`); an item that does not fit stays queued, first in line."""
        batch = [first]
        spans = spans_of(first)
        queued = self._queue  # type: ignore[attr-defined]  # asyncio.Queue keeps its items in this deque
        while queued and len(batch) < ANALYSIS_BATCH_TRACES:
            following = spans_of(queued[0])
            if spans + following > ANALYSIS_BATCH_SPANS:
                break
            batch.append(self.get_nowait())
            spans += following
        return batch


@dataclass(slots=True)
class AnalysedTrace:
    released: ReleasedTrace
    trajectory: Trajectory | None
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float
    requests: list[OutboundRequest] = field(default_factory=list)
    """The annotated spans, serialized for export (filled by :class:`AnalysisStage`)."""
    envelopes: list[SpanEnvelope] = field(default_factory=list)
    """The annotated spans, parsed (analysis in this process only; empty when a worker analysed the trace)."""
    usage: TraceUsage | None = None
    """Tokens and cost by model, for self-metrics (``None`` when analysis failed)."""


def mapping_options(released: ReleasedTrace) -> MappingOptions:
    """How a released trace is mapped: its revision, why it was released, and what is known lost already."""
    declarations = (events_in_logs_declaration(),) if released.logs_expected and not released.logs else ()
    return MappingOptions(
        revision=released.revision,
        released_early=released.reason.early,
        release_reason=f"released by {released.reason.value}",
        declarations=declarations,
    )


class Analyser:
    """Runs map -> detect -> annotate on released traces. Stateless apart from its configuration."""

    def __init__(
        self,
        chain: DetectorChain,
        post_chain: Callable[[Trajectory, Diagnosis], Diagnosis] | None = None,
        clock: Callable[[], float] = time.perf_counter,
        prices: PriceTable | None = None,
    ) -> None:
        self._chain = chain
        self._post_chain = post_chain
        self._clock = clock
        self._prices = prices

    def analyse(self, released: ReleasedTrace) -> AnalysedTrace:
        started = self._clock()
        trace_hex = released.trace_id.hex()
        envelopes = open_spans(released.spans)
        try:
            mapping = map_trace(mapping_envelopes(envelopes, released.logs), mapping_options(released))
            diagnosis = self._chain.run(mapping.trajectory)
            if self._post_chain is not None:
                diagnosis = self._post_chain(mapping.trajectory, diagnosis)
            attribution = attribute(mapping.trajectory, self._prices)
            annotate(envelopes, mapping, diagnosis, attribution)
        except Exception as exc:  # fail open: never lose spans because analysis broke
            reason = f"analysis failed: {type(exc).__name__}: {str(exc)[:200]}"
            logger.error("trace %s: %s", trace_hex, reason, exc_info=logger.isEnabledFor(logging.DEBUG))
            annotate_failure(envelopes, trajectory_id_for(trace_hex), released.revision, reason)
            return AnalysedTrace(released, None, None, reason, self._clock() - started, envelopes=envelopes)
        seconds = self._clock() - started
        usage = trace_usage(mapping.trajectory, attribution)
        return AnalysedTrace(released, mapping.trajectory, diagnosis, None, seconds, envelopes=envelopes, usage=usage)


class AnalysisStage:
    """The whole per-trace stage between the assembler and the exporters.

    ``await process(released)`` maps, detects (drift included), annotates, writes the trace's artifacts and
    returns the annotated spans as serialized Export requests, each under ``max_request_bytes``.

    Where the work runs follows ``config.analysis_workers``: ``0`` in one thread of this process (the
    trajectory and the annotated envelopes are kept on the result); ``N >= 1`` in N worker processes
    (:mod:`processor.pipeline.analysis_pool`), so analysis uses other cores than the event loop's. Then
    ``AnalysedTrace.trajectory`` is ``None`` unless ``keep_trajectories`` (it stays in the worker: sending it back
    costs more than analysing a small trace), ``diagnosis`` is filled, and the annotated spans exist only as
    ``requests`` (``released.spans`` are left as received).

    ``await process_batch(traces)`` does the same for several traces in one worker call (results in order).

    Drift baselines have one owner, this stage, and see runs in the order ``process``/``process_batch`` was
    called (and within a batch, in its order), whatever order the workers finish in: each call takes a ticket and
    drift is evaluated in ticket order. Several calls may be in flight at once (the service runs a few process
    loops per worker). Fail open: if a worker raises, dies or hangs, the spans of its traces still go out with
    verdict ``error`` and the worker is restarted.
    """

    def __init__(
        self, config: Config, counters: ProcessorCounters, max_request_bytes: int, *, keep_trajectories: bool = False
    ) -> None:
        output_dir = Path(config.output_dir)
        self._drift = DriftEvaluator(config.detectors.drift, output_dir / "drift")
        self._counters = counters
        self._max_request_bytes = max_request_bytes
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="otel-trajectory-analysis")
        self._turns = _Turns()
        self._pool: AnalysisPool | None = None
        self._analyser: Analyser | None = None
        self._artifacts: ArtifactWriter | None = None
        if config.analysis_workers >= 1:
            self._pool = AnalysisPool(
                config.analysis_workers, config, max_request_bytes, keep_trajectories=keep_trajectories
            )
        else:
            self._analyser = Analyser(
                DetectorChain(load_detectors(config.detectors), config.detectors),
                post_chain=self._with_drift,
                prices=config.pricing or None,
            )
            self._artifacts = (
                ArtifactWriter(output_dir, bundle_options(config))
                if config.write_artifacts
                else None
            )
        self._closed = False

    @property
    def pool(self) -> AnalysisPool | None:
        """The worker processes (``None`` when analysis runs in a thread of this process)."""
        return self._pool

    def _with_drift(self, trajectory: Trajectory, diagnosis: Diagnosis) -> Diagnosis:
        return replace(diagnosis, drift=self._drift.evaluate(trajectory, diagnosis))

    async def start(self) -> None:
        """Start the worker processes now rather than on the first trace (optional)."""
        if self._pool is not None:
            self._pool.start()

    async def process(self, released: ReleasedTrace) -> AnalysedTrace:
        return (await self.process_batch([released]))[0]

    async def process_batch(self, batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        """Analyse several traces in one call (one round trip to a worker): results in ``batch`` order, drift
        evaluated in that order, each trace failed open on its own when its analysis breaks."""
        if self._pool is None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, self._process_all, batch)
        return await self._process_in_pool(self._pool, batch)

    def _process_all(self, batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        return [self._process(released) for released in batch]

    def _process(self, released: ReleasedTrace) -> AnalysedTrace:
        assert self._analyser is not None
        analysed = self._analyser.analyse(released)
        if analysed.error is None and self._artifacts is not None and analysed.trajectory is not None and analysed.diagnosis is not None:
            try:
                self._artifacts.write(analysed.trajectory, analysed.diagnosis)
            except Exception:  # artifacts are a by-product: failing to write them never blocks delivery
                logger.exception("writing artifacts for trace %s failed", released.trace_id.hex())
        analysed.requests = outbound_requests(analysed.envelopes, self._max_request_bytes)
        self._count(analysed)
        return analysed

    async def _process_in_pool(self, pool: AnalysisPool, batch: Sequence[ReleasedTrace]) -> list[AnalysedTrace]:
        ticket = self._turns.take()
        try:
            results = await self._run_in_pool(pool, batch, ticket)
        except (WorkerLost, OSError) as exc:
            return [self._count(await self._fail_open(released, str(exc))) for released in batch]
        finally:
            self._turns.done(ticket)  # no-op when drift already took its turn
        analysed_traces: list[AnalysedTrace] = []
        for released, result in zip(batch, results, strict=False):
            analysed = AnalysedTrace(
                released, result.trajectory, result.diagnosis, result.error, result.seconds, usage=result.usage
            )
            analysed.requests = [OutboundRequest(payload, len(origins), origins) for payload, origins in result.requests]
            analysed_traces.append(self._count(analysed))
        return analysed_traces

    async def _run_in_pool(self, pool: AnalysisPool, batch: Sequence[ReleasedTrace], ticket: int) -> list[WorkerResult]:
        handle, generation, job, reply = await pool.analyse([pack_trace(released) for released in batch])
        if reply[0] == "failed":
            raise WorkerLost(f"analysis worker failed: {reply[2]}")
        outcomes: tuple[tuple[str, Any], ...] = reply[2]
        if len(outcomes) != len(batch):
            raise WorkerLost(f"analysis worker answered {len(outcomes)} traces of {len(batch)}")
        runs = [value for kind, value in outcomes if kind == "mapped"]
        finished: tuple[WorkerResult, ...] = ()
        if runs:
            try:
                await self._turns.wait(ticket)
            except BaseException:  # cancelled while waiting: phase two never comes
                pool.forget(handle, generation, job)
                raise
            drift_results = [self._drift.evaluate_input(run) for run in runs]
            self._turns.done(ticket)
            reply = await pool.finish(handle, generation, job, drift_results)
            if reply[0] == "failed":
                raise WorkerLost(f"analysis worker failed: {reply[2]}")
            finished = reply[2]
            if len(finished) != len(runs):
                raise WorkerLost(f"analysis worker finished {len(finished)} traces of {len(runs)}")
        results = iter(finished)
        return [value if kind == "done" else next(results) for kind, value in outcomes]

    async def _fail_open(self, released: ReleasedTrace, why: str) -> AnalysedTrace:
        reason = f"analysis failed: {why[:200]}"
        logger.error("trace %s: %s", released.trace_id.hex(), reason)

        def annotate_here() -> AnalysedTrace:
            trace_hex = released.trace_id.hex()
            envelopes = open_spans(released.spans)
            annotate_failure(envelopes, trajectory_id_for(trace_hex), released.revision, reason)
            analysed = AnalysedTrace(released, None, None, reason, 0.0, envelopes=envelopes)
            analysed.requests = outbound_requests(envelopes, self._max_request_bytes)
            return analysed

        if self._closed:  # the executor is gone: small work, done here
            return annotate_here()
        return await asyncio.get_running_loop().run_in_executor(self._executor, annotate_here)

    def _count(self, analysed: AnalysedTrace) -> AnalysedTrace:
        counters = self._counters
        counters.traces_analysed += 1
        counters.analysis_seconds_total += analysed.seconds
        if analysed.error is not None:
            counters.analysis_errors += 1
        return analysed

    async def close(self) -> None:
        """Finish the work in hand, stop the workers and persist drift baselines. Safe twice."""
        if self._pool is not None:
            await self._pool.close()
        self._closed = True
        self._executor.shutdown(wait=True)
        self._drift.save()


class _Turns:
    """Tickets in call order; drift for ticket N is evaluated only after every earlier ticket is done."""

    def __init__(self) -> None:
        self._issued = 0
        self._current = 0
        self._finished: set[int] = set()
        self._waiters: dict[int, asyncio.Future[None]] = {}

    def take(self) -> int:
        ticket = self._issued
        self._issued += 1
        return ticket

    def is_current(self, ticket: int) -> bool:
        return self._current == ticket

    async def wait(self, ticket: int) -> None:
        if self._current == ticket:
            return
        waiter = self._waiters[ticket] = asyncio.get_running_loop().create_future()
        try:
            await waiter
        finally:
            self._waiters.pop(ticket, None)

    def done(self, ticket: int) -> None:
        """Mark ``ticket`` done (again: no effect) and wake the next one in line."""
        if ticket < self._current or ticket in self._finished:
            return
        self._finished.add(ticket)
        while self._current in self._finished:
            self._finished.discard(self._current)
            self._current += 1
        waiter = self._waiters.get(self._current)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


def outbound_requests(envelopes: Sequence[SpanEnvelope], max_bytes: int) -> list[OutboundRequest]:
    """Serialized Export requests for ``envelopes``, each under ``max_bytes``, with the spool origin of each span."""
    return [
        OutboundRequest(request.SerializeToString(), len(origins), origins)
        for request, origins in build_requests_with_origins(envelopes, max_bytes)
    ]
