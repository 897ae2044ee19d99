"""In-process cost of the analysis stages, no network: decode, ship to a worker, map, detect (drift included),
annotate, serialize.

Synthetic traces shaped like the corpus (:mod:`bench.synthetic`) are serialized as Export requests once; each
pass then decodes them, groups spans by trace, and runs every stage on every trace, timing each stage
separately in CPU time (the machine is shared), with the collector set up as in an analysis worker unless
``--default-gc``. Reports spans/s per stage and for the whole stage chain (best pass and median). Not a test.

    .venv/bin/python bench/mapping.py --traces 2000 --spans-per-trace 20 --passes 5
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.collector import add_collector_option, after_each_trace, set_up_collector  # noqa: E402
from bench.synthetic import make_request  # noqa: E402
from otel_mapper.annotate import annotate  # noqa: E402
from otel_mapper.mapping.build import MappingOptions, map_trace  # noqa: E402
from otel_mapper.otlp.envelopes import fits_one_request  # noqa: E402
from otel_mapper.otlp.held import HeldSpan  # noqa: E402
from otel_mapper.otlp.salvage import decode_trace_request  # noqa: E402
from processor.config import Config  # noqa: E402
from processor.detectors.chain import DetectorChain  # noqa: E402
from processor.detectors.drift import DriftEvaluator, drift_input  # noqa: E402
from processor.detectors.registry import load_detectors  # noqa: E402
from processor.pipeline.analysis import outbound_requests  # noqa: E402
from processor.pipeline.analysis_worker import pack_trace, unpack_into_request  # noqa: E402
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason  # noqa: E402
from processor.pipeline.worker_collector import WorkerCollector  # noqa: E402

STAGES = ("decode", "ship", "map", "detect", "annotate", "serialize", "collect")
MAX_REQUEST_BYTES = 4 * 1024 * 1024


def one_pass(
    bodies: list[bytes], drift_dir: Path, collector: WorkerCollector | None
) -> tuple[dict[str, float], int]:
    """One pass over every trace, as the service with analysis workers runs it: the main process decodes and
    packs (``ship`` includes pickling both ways and the worker's unpacking), the worker maps, detects (drift
    evaluated as the main process does), annotates and serializes; ``collect`` is the worker's cyclic collector
    between two traces (``collector``; ``None``: the default collector, whose pauses fall in any stage)."""
    config = Config()
    chain = DetectorChain(load_detectors(config.detectors), config.detectors)
    drift = DriftEvaluator(config.detectors.drift, drift_dir, save_every=0)
    seconds = dict.fromkeys(STAGES, 0.0)
    clock = time.process_time  # CPU time: the machine is shared, wall time would count other processes

    started = clock()
    by_trace: dict[bytes, list[HeldSpan]] = defaultdict(list)
    for body in bodies:
        for span in decode_trace_request(body).spans:  # as the receivers decode: spans held as bytes
            by_trace[span.trace_id].append(span)
    seconds["decode"] = clock() - started
    spans = 0
    for trace_id, received in by_trace.items():
        spans += len(received)
        started = clock()
        released = ReleasedTrace(trace_id=trace_id, spans=received, revision=1, reason=ReleaseReason.DECISION_WAIT)
        packed = pickle.loads(pickle.dumps(pack_trace(released), protocol=pickle.HIGHEST_PROTOCOL))
        envelopes, request, origins = unpack_into_request(packed)
        shipped = clock()
        mapping = map_trace(envelopes, MappingOptions(release_reason="released by decision_wait"))
        mapped = clock()
        diagnosis = chain.run(mapping.trajectory)
        diagnosis = replace(diagnosis, drift=drift.evaluate_input(drift_input(mapping.trajectory, diagnosis)))
        detected = clock()
        annotate(envelopes, mapping, diagnosis)
        annotated = clock()
        if fits_one_request(envelopes, MAX_REQUEST_BYTES):
            request.SerializeToString()
        else:
            outbound_requests(envelopes, MAX_REQUEST_BYTES)
        serialized = clock()
        after_each_trace(collector)
        collected = clock()
        seconds["ship"] += shipped - started
        seconds["map"] += mapped - shipped
        seconds["detect"] += detected - mapped
        seconds["annotate"] += annotated - detected
        seconds["serialize"] += serialized - annotated
        seconds["collect"] += collected - serialized
    return seconds, spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--spans-per-trace", type=int, default=20)
    parser.add_argument("--batch", type=int, default=25, help="traces per Export request")
    parser.add_argument("--passes", type=int, default=5)
    add_collector_option(parser)
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    collector = set_up_collector(args)
    bodies = [
        make_request(1 + offset, min(args.batch, args.traces - offset), args.spans_per_trace).SerializeToString()
        for offset in range(0, args.traces, args.batch)
    ]
    results: list[dict[str, float]] = []
    spans = 0
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.passes):
            seconds, spans = one_pass(bodies, Path(tmp) / f"drift{number}", collector)
            results.append(seconds)
    print(f"{args.traces} traces x {args.spans_per_trace} spans = {spans} spans per pass, {args.passes} passes")
    print(f"{'stage':10s} {'best spans/s':>14s} {'median spans/s':>15s} {'median us/span':>15s}")
    for stage in (*STAGES, "total"):
        times = [sum(r.values()) if stage == "total" else r[stage] for r in results]
        best, median = min(times), statistics.median(times)
        print(f"{stage:10s} {spans / best:14.0f} {spans / median:15.0f} {median / spans * 1e6:15.1f}")


if __name__ == "__main__":
    main()
