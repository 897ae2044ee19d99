"""The cyclic-collector setup the in-process benchmarks share: as in an analysis worker unless ``--default-gc``."""

from __future__ import annotations

import argparse

from processor.pipeline.worker_collector import WorkerCollector

__all__ = ["add_collector_option", "after_each_trace", "set_up_collector"]


def add_collector_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--default-gc", action="store_true", help="keep the default collector settings instead of "
                        "an analysis worker's (processor.pipeline.worker_collector: off during jobs, young objects "
                        "collected between them)")


def set_up_collector(args: argparse.Namespace) -> WorkerCollector | None:
    """The worker's collector, started (``None`` with ``--default-gc``)."""
    if args.default_gc:
        return None
    collector = WorkerCollector()
    collector.start()
    return collector


def after_each_trace(collector: WorkerCollector | None) -> None:
    """What a worker does between two calls: collect if due (nothing with the default collector)."""
    if collector is not None:
        collector.between_calls(jobs_in_hand=False)
