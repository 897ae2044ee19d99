"""The cyclic-collector setup the in-process benchmarks share: as in an analysis worker unless ``--default-gc``."""

from __future__ import annotations

import argparse
from contextlib import AbstractContextManager, nullcontext

from processor.pipeline.analysis_worker import collector_paused, tune_gc

__all__ = ["add_collector_option", "around_each_trace", "set_up_collector"]


def add_collector_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--default-gc", action="store_true", help="keep the default collector settings instead of "
                        "an analysis worker's (processor.pipeline.analysis_worker.tune_gc, paused during each trace)")


def set_up_collector(args: argparse.Namespace) -> None:
    if not args.default_gc:
        tune_gc()


def around_each_trace(as_in_worker: bool) -> AbstractContextManager[None]:
    """What a worker does around a job: the collector paused (nothing when not ``as_in_worker``)."""
    return collector_paused() if as_in_worker else nullcontext()
