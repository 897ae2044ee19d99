"""What a trajectory's bundle and ledger cost to build and write, in process, CPU time.

The 9-span agent traces of ``bench/pipeline_shapes.py`` (every one with a failing last tool call, so each has a
finding) are analysed once with the default detectors; then each pass times, per trajectory: building the bundle
(parts, secret scrubbing, the RFC 8785 integrity digest), the integrity digest alone, the ledger, and the whole
``ArtifactWriter.write`` (both documents and their files). Reports the median over passes. Not a test.

    .venv/bin/python bench/artifacts.py --traces 200 --passes 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fs_probe import probe  # noqa: E402
from bench.pipeline_shapes import build_requests  # noqa: E402
from otel_mapper.bundle.common import integrity_digest  # noqa: E402
from otel_mapper.bundle.ledger import write_ledger  # noqa: E402
from otel_mapper.bundle.writer import build_bundle  # noqa: E402
from otel_mapper.otlp.held import HeldSpan  # noqa: E402
from otel_mapper.otlp.salvage import decode_trace_request  # noqa: E402
from processor.config import Config  # noqa: E402
from processor.detectors.chain import DetectorChain  # noqa: E402
from processor.detectors.registry import load_detectors  # noqa: E402
from processor.pipeline.analyser import AnalysedTrace, Analyser  # noqa: E402
from processor.pipeline.artifacts import artifact_writer  # noqa: E402
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason  # noqa: E402


def analysed_traces(traces: int) -> list[AnalysedTrace]:
    bodies, _ = build_requests("agent", 1, traces, failing_percent=100.0)
    by_trace: dict[bytes, list[HeldSpan]] = defaultdict(list)
    for body in bodies:
        for span in decode_trace_request(body).spans:
            by_trace[span.trace_id].append(span)
    detectors = Config().detectors
    analyser = Analyser(DetectorChain(load_detectors(detectors), detectors))
    return [
        analyser.analyse(ReleasedTrace(trace_id=trace_id, spans=spans, revision=1, reason=ReleaseReason.DECISION_WAIT))
        for trace_id, spans in by_trace.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=200)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(probe().line())
    results = [item for item in analysed_traces(args.traces) if item.trajectory is not None and item.diagnosis is not None]
    with tempfile.TemporaryDirectory() as temp:
        writer = artifact_writer(replace(Config(), output_dir=temp))
        options = writer.options
        stages: dict[str, Callable[[AnalysedTrace], object]] = {
            "bundle": lambda item: build_bundle(item.trajectory, item.diagnosis, options),  # type: ignore[arg-type]
            "ledger": lambda item: write_ledger(item.trajectory, item.diagnosis,  # type: ignore[arg-type]
                                                content_mode=options.content_mode, prices=options.prices),
            "both files": lambda item: writer.write(item.trajectory, item.diagnosis),  # type: ignore[arg-type]
        }
        documents = [build_bundle(item.trajectory, item.diagnosis, options) for item in results]  # type: ignore[arg-type]
        timings: dict[str, list[float]] = defaultdict(list)
        for _ in range(args.passes):
            for name, stage in stages.items():
                started = time.process_time()
                for item in results:
                    stage(item)
                timings[name].append((time.process_time() - started) / len(results))
            started = time.process_time()
            for document in documents:
                integrity_digest(document)
            timings["integrity digest"].append((time.process_time() - started) / len(documents))
    print(f"{len(results)} trajectories of 9 spans, {args.passes} passes; CPU ms per trajectory (median)")
    for name in ("bundle", "integrity digest", "ledger", "both files"):
        print(f"{name:18s} {statistics.median(timings[name]) * 1e3:8.2f}")


if __name__ == "__main__":
    main()
