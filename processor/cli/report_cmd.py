"""``otel-trajectory report INPUT... --output FILE.html``: one self-contained HTML page of the trajectories.

INPUT is what ``map`` reads (OTLP/JSON or protobuf files, analysed here without writing anything), a trace
directory or output directory ``map``/``serve`` wrote, or a bundle file. The page needs no network.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from otel_mapper.report import render_report
from processor.config import load_config
from processor.report.files import ReportInputError, bundles_from_inputs

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", type=Path, metavar="INPUT",
                        help="OTLP files (as map reads them), trace or output directories map/serve wrote, or bundle.json files")
    parser.add_argument("--output", type=Path, required=True, metavar="FILE.html", help="where to write the page")
    parser.add_argument("--config", type=Path, help="YAML config file (detectors and content mode for OTLP inputs)")
    parser.add_argument("--title", default="Agent trajectories", help="page title")


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    config = load_config(args.config)
    try:
        bundles = bundles_from_inputs(args.inputs, config)
    except ReportInputError as exc:
        print(f"otel-trajectory report: {exc}", file=sys.stderr)
        return 2
    page = render_report(bundles, title=args.title)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(page, encoding="utf-8")
    out.write(f"wrote {len(bundles)} trajector{'y' if len(bundles) == 1 else 'ies'} to {args.output} "
              f"({len(page.encode('utf-8')) // 1024} KiB, no network needed)\n")
    return 0
