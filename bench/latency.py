"""Latency a trace gains after release: map + detect + annotate + hand-off to the exporter, at a fraction of the
maximum rate, through :class:`processor.pipeline.analysis.AnalysisStage` as the service drives it (a queue of released
traces and ``2 x workers`` process loops), no network.

First the maximum rate is measured (traces released as fast as the stage takes them); then traces are released
at ``--load`` of that rate, evenly spaced, and each one's time from release to its requests reaching the export
queue is recorded. Not a test: it prints figures.

    .venv/bin/python bench/latency.py --spans-per-trace 100 --traces 400 --workers 1 --load 0.5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.synthetic import trace_request  # noqa: E402
from otel_mapper.otlp.held import hold_request  # noqa: E402
from processor.config import ArtifactsConfig, Config  # noqa: E402
from processor.pipeline.analysis import AnalysisStage, BatchQueue  # noqa: E402
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason  # noqa: E402
from processor.pipeline.exporter import OutboundRequest  # noqa: E402
from processor.telemetry.counters import ProcessorCounters  # noqa: E402


def released(number: int, spans: int) -> ReleasedTrace:
    held = hold_request(trace_request(number, spans))[0]
    return ReleasedTrace(trace_id=held[0].trace_id, spans=held, revision=1, reason=ReleaseReason.DECISION_WAIT)


async def drive(stage: AnalysisStage, traces: list[ReleasedTrace], loops: int, interval: float) -> tuple[float, list[float]]:
    """Release ``traces`` every ``interval`` seconds (0: all at once); returns (elapsed, per-trace latencies)."""
    queue: BatchQueue[tuple[float, ReleasedTrace]] = BatchQueue()
    exported: asyncio.Queue[OutboundRequest] = asyncio.Queue()
    latencies: list[float] = []

    async def process_loop() -> None:
        while True:  # as the service's process loops: queued small traces go in one call
            batch = queue.take_batch(await queue.get(), lambda item: len(item[1].spans))
            analysed_traces = await stage.process_batch([trace for _, trace in batch])
            for (released_at, _), analysed in zip(batch, analysed_traces, strict=True):
                for request in analysed.requests:
                    exported.put_nowait(request)
                latencies.append(time.perf_counter() - released_at)
                queue.task_done()

    tasks = [asyncio.create_task(process_loop()) for _ in range(loops)]
    started = time.perf_counter()
    for position, trace in enumerate(traces):
        due = started + position * interval
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        queue.put_nowait((time.perf_counter(), trace))
    await queue.join()
    elapsed = time.perf_counter() - started
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return elapsed, latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        artifacts = ArtifactsConfig(mode="all" if args.artifacts else "none")
        config = Config(output_dir=tmp, artifacts=artifacts).with_overrides(analysis_workers=args.workers)
        stage = AnalysisStage(config, ProcessorCounters(), 4 * 1024 * 1024)
        loops = max(1, args.workers) * 2
        try:
            await stage.start()
            await drive(stage, [released(n, args.spans_per_trace) for n in range(1, 41)], loops, 0.0)  # warm up
            traces = [released(n, args.spans_per_trace) for n in range(1_000, 1_000 + args.traces)]
            elapsed, _ = await drive(stage, traces, loops, 0.0)
            max_rate = len(traces) / elapsed
            print(f"maximum: {max_rate:.0f} traces/s = {max_rate * args.spans_per_trace:.0f} spans/s")
            traces = [released(n, args.spans_per_trace) for n in range(5_000, 5_000 + args.traces)]
            elapsed, latencies = await drive(stage, traces, loops, 1.0 / (args.load * max_rate))
        finally:
            await stage.close()
    ms = [value * 1e3 for value in latencies]
    print(f"at {args.load:.0%} of maximum ({len(traces) / elapsed:.0f} traces/s): latency p50 {statistics.median(ms):.1f} ms, "
          f"p90 {percentile(ms, 0.9):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spans-per-trace", type=int, default=100)
    parser.add_argument("--traces", type=int, default=400)
    parser.add_argument("--workers", type=int, default=1, help="processor.analysis_workers (0: a thread)")
    parser.add_argument("--load", type=float, default=0.5, help="fraction of the maximum rate")
    parser.add_argument("--artifacts", action="store_true")
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
