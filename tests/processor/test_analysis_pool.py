"""Analysis in worker processes: same output as in-process analysis, drift in call order, fail open when a
worker breaks, dies or hangs, and the pool recovers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from bench.synthetic import trace_request
from otel_mapper.otlp.held import hold_request, open_spans
from processor.config import ArtifactsConfig, Config
from processor.detectors.config import DriftConfig
from processor.pipeline.analysis import AnalysedTrace, AnalysisStage
from processor.pipeline.analysis_pool import AnalysisPool, WorkerLost
from processor.pipeline.analysis_worker import PackedTrace, pack_trace, unpack_trace
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason
from processor.telemetry.counters import ProcessorCounters
from semconv import trajectory as names

MAX_REQUEST_BYTES = 64 * 1024
DEADLINE = 60.0


def released(number: int, spans: int = 9, origin: int = 7) -> ReleasedTrace:
    held = hold_request(trace_request(number, spans))[0]
    for position, span in enumerate(held):
        span.origin = origin + position
    return ReleasedTrace(trace_id=held[0].trace_id, spans=held, revision=1, reason=ReleaseReason.DECISION_WAIT)


def config(tmp_path: Path, workers: int) -> Config:
    base = Config(output_dir=str(tmp_path / f"out{workers}"), artifacts=ArtifactsConfig(mode="all"))
    drift = DriftConfig(min_runs=2, window=3)
    return base.with_overrides(analysis_workers=workers, detectors=replace(base.detectors, drift=drift))


async def analyse_all(stage: AnalysisStage, traces: Sequence[ReleasedTrace], in_flight: int) -> list[AnalysedTrace]:
    limit = asyncio.Semaphore(in_flight)

    async def one(trace: ReleasedTrace) -> AnalysedTrace:
        async with limit:
            return await stage.process(trace)

    return await asyncio.gather(*(one(trace) for trace in traces))


def fingerprint(analysed: AnalysedTrace) -> tuple[object, ...]:
    diagnosis = analysed.diagnosis
    assert diagnosis is not None
    results = tuple(replace(result, duration_s=None) for result in diagnosis.verifier_results)
    return (
        [(request.payload, tuple(request.origins)) for request in analysed.requests],
        replace(diagnosis, verifier_results=results),
        analysed.error,
    )


def root_attributes(analysed: AnalysedTrace) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in analysed.requests:
        request = ExportTraceServiceRequest.FromString(item.payload)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    if not span.parent_span_id:
                        found.update((kv.key, kv.value.string_value) for kv in span.attributes)
    return found


def test_packing_keeps_order_origins_and_resource_scope_sharing() -> None:
    trace = released(1, spans=5)
    envelopes = unpack_trace(pack_trace(trace))
    assert [e.span for e in envelopes] == [e.span for e in open_spans(trace.spans)]
    assert [e.origin for e in envelopes] == [span.origin for span in trace.spans]
    assert len({id(e.resource) for e in envelopes}) == 1 and len({id(e.scope) for e in envelopes}) == 1


@pytest.mark.slow
def test_workers_give_the_same_output_as_in_process_analysis(tmp_path: Path) -> None:
    # Traces 1..8 alternate two shapes, so drift verdicts change along the sequence (min_runs 2, window 3).
    traces = [released(number, spans=9 if number % 3 else 15) for number in range(1, 9)]

    async def run(workers: int, in_flight: int) -> list[AnalysedTrace]:
        stage = AnalysisStage(config(tmp_path, workers), ProcessorCounters(), MAX_REQUEST_BYTES, keep_trajectories=True)
        try:
            return await analyse_all(stage, [released(number, spans=len(t.spans)) for number, t in enumerate(traces, 1)], in_flight)
        finally:
            await stage.close()

    async def run_batches(workers: int, size: int) -> list[AnalysedTrace]:
        stage = AnalysisStage(config(tmp_path / "batched", workers), ProcessorCounters(), MAX_REQUEST_BYTES, keep_trajectories=True)
        fresh = [released(number, spans=len(t.spans)) for number, t in enumerate(traces, 1)]
        try:
            batches = [fresh[start : start + size] for start in range(0, len(fresh), size)]
            results = await asyncio.gather(*(stage.process_batch(batch) for batch in batches))
            return [item for batch in results for item in batch]
        finally:
            await stage.close()

    in_process = asyncio.run(run(0, 1))
    pooled = asyncio.run(run(2, 6))  # several traces in flight on two workers
    batched = asyncio.run(run_batches(2, 3))  # three calls of up to three traces, in flight together
    batched_in_process = asyncio.run(run_batches(0, 3))

    assert [fingerprint(item) for item in pooled] == [fingerprint(item) for item in in_process]
    assert [fingerprint(item) for item in batched] == [fingerprint(item) for item in in_process]
    assert [fingerprint(item) for item in batched_in_process] == [fingerprint(item) for item in in_process]
    verdicts = [item.diagnosis.drift.verdict.value for item in in_process if item.diagnosis]
    assert "baseline_building" in verdicts and len(set(verdicts)) > 1  # drift really was sequence-dependent
    assert [item.trajectory for item in pooled] == [item.trajectory for item in in_process]
    assert all(item.trajectory is not None for item in pooled)
    files = sorted(path.name for path in (tmp_path / "out2").rglob("*.json") if path.parent.name != "drift")
    assert files == sorted(path.name for path in (tmp_path / "out0").rglob("*.json") if path.parent.name != "drift")
    assert files.count("bundle.json") == 8


@pytest.mark.slow
def test_a_killed_worker_fails_its_traces_open_and_is_restarted(tmp_path: Path) -> None:
    async def run() -> tuple[list[AnalysedTrace], AnalysedTrace, int, ProcessorCounters]:
        counters = ProcessorCounters()
        stage = AnalysisStage(config(tmp_path, 1), counters, MAX_REQUEST_BYTES)
        pool = stage.pool
        assert pool is not None
        try:
            await stage.process(released(1))  # the worker is up and serving
            big = [released(number, spans=2_001) for number in range(2, 5)]
            pending = [asyncio.create_task(stage.process(trace)) for trace in big]
            await asyncio.sleep(0)
            pool.kill_worker(0)
            failed = await asyncio.wait_for(asyncio.gather(*pending), DEADLINE)
            after = await asyncio.wait_for(stage.process(released(9)), DEADLINE)
            return failed, after, pool.restarts, counters
        finally:
            await stage.close()

    failed, after, restarts, counters = asyncio.run(run())

    assert restarts == 1
    for item in failed:
        assert item.error is not None and "exited" in item.error
        attributes = root_attributes(item)
        assert attributes[names.VERDICT] == "error" and names.ANALYSIS_ERROR in attributes
        assert sum(request.items for request in item.requests) == len(item.released.spans)  # no span lost
        assert sorted(o for request in item.requests for o in request.origins) == [span.origin for span in item.released.spans]
    assert after.error is None and root_attributes(after)[names.VERDICT] != "error"
    assert after.trajectory is None and after.diagnosis is not None  # trajectories stay in the worker by default
    assert counters.analysis_errors == 3 and counters.traces_analysed == 5


@pytest.mark.slow
def test_a_worker_that_cannot_read_a_trace_answers_failed_and_keeps_serving(tmp_path: Path) -> None:
    good = pack_trace(released(1))
    broken = PackedTrace(
        resources=good.resources, scopes=good.scopes, groups=good.groups, spans=(b"\xff\xff\xff",),
        group_of_span=(0,), origins=(1,), revision=1, reason="decision_wait", early=False,
    )

    async def run() -> tuple[str, str]:
        pool = AnalysisPool(1, config(tmp_path, 1), MAX_REQUEST_BYTES)
        try:
            _, _, _, bad_reply = await asyncio.wait_for(pool.analyse([broken]), DEADLINE)
            _, _, _, good_reply = await asyncio.wait_for(pool.analyse([good]), DEADLINE)
            return type(bad_reply).__name__, type(good_reply).__name__
        finally:
            await pool.close()

    assert asyncio.run(run()) == ("FailedReply", "MappedReply")


@pytest.mark.slow
def test_a_worker_past_its_deadline_is_killed_and_the_call_fails(tmp_path: Path) -> None:
    async def run() -> tuple[bool, int, str]:
        pool = AnalysisPool(1, config(tmp_path, 1), MAX_REQUEST_BYTES, job_timeout=30.0)
        try:
            await asyncio.wait_for(pool.analyse([pack_trace(released(1))]), DEADLINE)  # started and warm
            pool.job_timeout = 0.001
            lost = False
            try:
                await pool.analyse([pack_trace(released(2, spans=5_001))])
            except WorkerLost:
                lost = True
            pool.job_timeout = 30.0
            deadline = time.monotonic() + DEADLINE
            while True:  # the restarted worker answers again
                try:
                    _, _, _, reply = await pool.analyse([pack_trace(released(3))])
                    break
                except WorkerLost:
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.05)
            return lost, pool.restarts, type(reply).__name__
        finally:
            await pool.close()

    assert asyncio.run(run()) == (True, 1, "MappedReply")


def test_close_is_safe_twice_and_later_traces_still_go_out(tmp_path: Path) -> None:
    async def run() -> AnalysedTrace:
        stage = AnalysisStage(config(tmp_path, 1), ProcessorCounters(), MAX_REQUEST_BYTES)
        await stage.close()
        await stage.close()
        return await asyncio.wait_for(stage.process(released(1)), DEADLINE)

    late = asyncio.run(run())
    assert late.error is not None and "closed" in late.error
    assert root_attributes(late)[names.VERDICT] == "error"
    assert sum(request.items for request in late.requests) == len(late.released.spans)


def test_a_pool_needs_a_worker(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        AnalysisPool(0, config(tmp_path, 0), MAX_REQUEST_BYTES)
