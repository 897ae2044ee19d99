"""One analysis worker in this process, driven by calls as the pool drives it, on ``pipeline_shapes``' traces.

The main process's part is done here too, outside the worker's figures' concern: spans are decoded and grouped
by trace, packed as the pool packs them, pickled and unpickled (a call's trip), then each call of up to
``--traces-per-call`` traces is analysed (``AnalyseCall``), its drift evaluated as the main process does, finished
(``FinishCall``), its reply pickled, its artifacts written, and the worker's collector asked to collect between
calls, as ``worker_main`` does. The worker keeps the run states of the traces it analysed (``run_store``, default
config), so the heap grows as in ``serve``.

Prints CPU time per span (this process: the machine is shared) and the share of it spent in the cyclic garbage
collector (``gc.callbacks``). ``--default-gc``: Python's automatic collector instead of the worker's. Not a test.

    .venv/bin/python bench/worker_calls.py --shape agent --traces 15000
"""

from __future__ import annotations

import argparse
import gc
import pickle
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.collector import add_collector_option, set_up_collector  # noqa: E402
from bench.fs_probe import probe  # noqa: E402
from bench.pipeline_shapes import build_requests  # noqa: E402
from otel_mapper.otlp.held import HeldSpan  # noqa: E402
from otel_mapper.otlp.salvage import decode_trace_request  # noqa: E402
from processor.config import Config  # noqa: E402
from processor.detectors.drift import DriftEvaluator, DriftInput  # noqa: E402
from processor.pipeline.analysis_worker import AnalysisWorker, pack_trace  # noqa: E402
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason  # noqa: E402
from processor.pipeline.worker_messages import AnalyseCall, DoneReply, FinishCall, MappedReply  # noqa: E402

MAX_REQUEST_BYTES = 4 * 1024 * 1024


class CollectorClock:
    """CPU seconds spent in the cyclic collector, from ``gc.callbacks``."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started
            self.collections += 1


def packed_calls(shape: str, traces: int, failing_percent: float, per_call: int) -> tuple[list[bytes], int]:
    """Pickled ``AnalyseCall`` trace tuples (job numbers set later), and the number of spans."""
    bodies, _ = build_requests(shape, 1, traces, failing_percent=failing_percent)
    by_trace: dict[bytes, list[HeldSpan]] = defaultdict(list)
    for body in bodies:
        for span in decode_trace_request(body).spans:
            by_trace[span.trace_id].append(span)
    packs = [
        pack_trace(ReleasedTrace(trace_id=trace_id, spans=spans, revision=1, reason=ReleaseReason.DECISION_WAIT))
        for trace_id, spans in by_trace.items()
    ]
    calls = [
        pickle.dumps(tuple(packs[start : start + per_call]), protocol=pickle.HIGHEST_PROTOCOL)
        for start in range(0, len(packs), per_call)
    ]
    return calls, sum(len(spans) for spans in by_trace.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=("agent", "web", "mix"), default="agent")
    parser.add_argument("--traces", type=int, default=15000)
    parser.add_argument("--failing-percent", type=float, default=10.0)
    parser.add_argument("--traces-per-call", type=int, default=16, help="as the pool's analysis calls")
    add_collector_option(parser)
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(probe().line())
    calls, spans = packed_calls(args.shape, args.traces, args.failing_percent, args.traces_per_call)
    with tempfile.TemporaryDirectory() as tmp:
        config = replace(Config(), output_dir=tmp)
        worker = AnalysisWorker(config, MAX_REQUEST_BYTES)
        drift = DriftEvaluator(config.detectors.drift, Path(tmp) / "drift", save_every=0)
        collector = set_up_collector(args)
        clock = CollectorClock()
        gc.callbacks.append(clock)
        started = time.process_time()
        for job, call in enumerate(calls, start=1):
            mapped = worker.handle(AnalyseCall(job, pickle.loads(call)))
            assert isinstance(mapped, MappedReply), mapped
            results = tuple(drift.evaluate_input(item) for item in mapped.outcomes if isinstance(item, DriftInput))
            done = worker.handle(FinishCall(job, results))
            assert isinstance(done, DoneReply), done
            pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL)
            worker.write_artifacts()
            if collector is not None:
                collector.between_calls(worker.jobs_in_hand)
        seconds = time.process_time() - started
        gc.callbacks.remove(clock)
        worker.close()
    which = "default collector" if collector is None else (
        f"worker collector ({collector.young_collections} young, {collector.full_collections} full)"
    )
    print(f"{args.shape}: {args.traces} traces, {spans} spans, {len(calls)} calls; {which}")
    print(f"CPU {seconds / spans * 1e6:.1f} us/span; in the cyclic collector {clock.seconds:.2f} s of {seconds:.2f} s "
          f"({clock.seconds / seconds * 100:.1f} %, {clock.collections} collections)")


if __name__ == "__main__":
    main()
