"""How cost grows with trace size: per-span CPU of map, detect (drift included) and annotate for traces of 10 to
100,000 spans, and the memory the assembler holds per buffered span against the span's protobuf wire size.

Traces are the synthetic corpus shape (:mod:`bench.synthetic`: one agent, alternating model and tool calls, so
the biggest trace is also the widest sibling group). Each size analyses about ``--spans`` spans in total (at
least one trace). CPU time, not wall time (the machine is shared). The collector is set up as in an analysis worker
unless ``--default-gc``. Not a test: it prints figures.

    .venv/bin/python bench/scaling.py --spans 100000
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from bench.collector import add_collector_option, after_each_trace, set_up_collector  # noqa: E402
from bench.synthetic import trace_request  # noqa: E402
from otel_mapper.annotate import annotate  # noqa: E402
from otel_mapper.mapping.build import MappingOptions, map_trace  # noqa: E402
from otel_mapper.otlp.envelopes import split_request  # noqa: E402
from otel_mapper.otlp.salvage import decode_trace_request  # noqa: E402
from processor.config import Config  # noqa: E402
from processor.detectors.chain import DetectorChain  # noqa: E402
from processor.detectors.drift import DriftEvaluator  # noqa: E402
from processor.detectors.registry import load_detectors  # noqa: E402
from processor.pipeline.assembler import AssemblerLimits, TraceAssembler  # noqa: E402
from processor.pipeline.worker_collector import WorkerCollector  # noqa: E402

SIZES = (10, 100, 1_000, 10_000, 100_000)


def per_span_costs(
    size: int, total_spans: int, drift_dir: Path, collector: WorkerCollector | None
) -> tuple[float, float, float, int]:
    """(map, detect, annotate) CPU microseconds per span, and the number of traces analysed; ``collector``: the
    cyclic collector of an analysis worker (off during a trace, run between two), whose cost is not counted;
    ``None``: the default collector, whose pauses fall in the stages."""
    config = Config()
    chain = DetectorChain(load_detectors(config.detectors), config.detectors)
    drift = DriftEvaluator(config.detectors.drift, drift_dir, save_every=0)
    traces = max(1, total_spans // size)
    bodies = [trace_request(number, size).SerializeToString() for number in range(1, traces + 1)]
    clock = time.process_time
    mapping_s = detect_s = annotate_s = 0.0
    for body in bodies:
        envelopes, _ = split_request(ExportTraceServiceRequest.FromString(body))
        started = clock()
        mapping = map_trace(envelopes, MappingOptions(release_reason="released by decision_wait"))
        mapped = clock()
        diagnosis = chain.run(mapping.trajectory)
        diagnosis = replace(diagnosis, drift=drift.evaluate(mapping.trajectory, diagnosis))
        detected = clock()
        annotate(envelopes, mapping, diagnosis)
        annotated = clock()
        after_each_trace(collector)
        mapping_s += mapped - started
        detect_s += detected - mapped
        annotate_s += annotated - detected
    spans = traces * size
    return mapping_s / spans * 1e6, detect_s / spans * 1e6, annotate_s / spans * 1e6, traces


def _rss_bytes() -> int:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def buffered_memory(size: int, traces: int) -> tuple[float, float]:
    """(resident bytes per buffered span, wire bytes per span) for ``traces`` traces of ``size`` spans held by an
    assembler, each arriving as its own Export request (decoded as the receivers decode it)."""
    bodies = [trace_request(number, size).SerializeToString() for number in range(1, traces + 1)]
    wire = sum(len(body) for body in bodies) / (traces * size)
    assembler = TraceAssembler(limits=AssemblerLimits(decision_wait=3600, idle_timeout=3600), clock=time.monotonic)
    gc.collect()
    before = _rss_bytes()
    for body in bodies:
        assembler.add(decode_trace_request(body).spans)  # as the receivers decode: spans held as bytes
    gc.collect()
    held = _rss_bytes() - before
    assert assembler.spans_held == traces * size
    return held / (traces * size), wire


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spans", type=int, default=100_000, help="spans analysed per trace size")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--memory-traces", type=int, default=200, help="100-span traces buffered for the memory figure")
    add_collector_option(parser)
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    collector = set_up_collector(args)
    print(f"collector: {'default' if collector is None else 'as in an analysis worker (off during each trace, run between two)'}")
    print(f"{'spans/trace':>11s} {'traces':>7s} {'map us/span':>12s} {'detect us/span':>15s} {'annotate us/span':>17s} "
          f"{'total us/span':>14s} {'vs 100':>7s}")
    reference: float | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for number, size in enumerate(args.sizes):
            mapping, detect, annotated, traces = per_span_costs(
                size, args.spans, Path(tmp) / f"drift{number}", collector
            )
            total = mapping + detect + annotated
            if size == 100:
                reference = total
            ratio = f"{total / reference:7.2f}" if reference else f"{'-':>7s}"
            print(f"{size:11d} {traces:7d} {mapping:12.1f} {detect:15.1f} {annotated:17.1f} {total:14.1f} {ratio}")
    # In a fresh process: after the runs above, freed memory would be reused without raising the resident size.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as fresh:
        held, wire = fresh.submit(buffered_memory, 100, args.memory_traces).result()
    print(f"assembler memory (fresh process): {held:.0f} resident bytes per buffered span, wire size {wire:.0f} "
          f"bytes per span ({held / wire:.2f}x), {args.memory_traces} traces x 100 spans")


if __name__ == "__main__":
    main()
