"""``otel-trajectory replay INPUT... --config NEW [--baseline-config OLD] [--json]``: static replay.

Maps every trace in INPUT (OTLP/JSON or protobuf files, directories of them searched recursively, or the
``spans.otlp.json`` files ``map`` and ``serve`` wrote, whose own annotations are removed first) and diagnoses it
under both configurations (their ``detectors`` sections; installed plug-ins load as in ``serve``). Nothing
external is called: recorded observations only. Prints per trace what changed (:mod:`otel_mapper.replay`);
``--json`` prints one JSON object per changed trace.

Exit status: 0 when nothing newly fails, 1 when a trace newly fails (a CI gate for policy changes), 2 on bad
input (a missing or undecodable file, no spans at all, a config with problems, or, when nothing newly fails, a
trace that could not be analysed: the gate cannot vouch for it).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

import orjson

from otel_mapper.annotate import strip_annotations
from otel_mapper.mapping.build import map_trace
from otel_mapper.otlp.envelopes import SpanEnvelope, split_request
from otel_mapper.replay import Change, compare, summary
from processor.cli.inputs import InputError, read_inputs
from processor.config import ConfigError, load_config
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors

__all__ = ["EXIT_BAD_INPUT", "EXIT_NEW_FAILURE", "EXIT_OK", "add_arguments", "read_traces", "run"]

logger = logging.getLogger(__name__)

EXIT_OK: Final = 0
EXIT_NEW_FAILURE: Final = 1
EXIT_BAD_INPUT: Final = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", type=Path, metavar="INPUT",
                        help="OTLP/JSON or protobuf files, spans.otlp.json files, or directories of them")
    parser.add_argument("--config", type=Path, required=True, metavar="NEW", help="the new configuration (YAML config file)")
    parser.add_argument("--baseline-config", type=Path, default=None, metavar="OLD",
                        help="the configuration to compare against (default: the built-in defaults)")
    parser.add_argument("--json", action="store_true", help="one JSON object per changed trace")
    parser.set_defaults(run_command=run)


def read_traces(inputs: Sequence[str | Path]) -> dict[str, list[SpanEnvelope]]:
    """Spans by trace id (hex) of what ``map`` reads (:mod:`processor.cli.inputs`), with our own annotations removed
    and exact duplicates (the same span read from ``trace.otlp.json`` and ``request-N.pb``, or re-written by a later
    revision) kept once."""
    groups: dict[str, list[SpanEnvelope]] = {}
    seen: set[bytes] = set()
    for item in read_inputs(inputs).files:
        for request in item.requests:
            accepted, _rejected = split_request(request)
            for envelope in accepted:
                strip_annotations(envelope.span)
                key = envelope.span.SerializeToString(deterministic=True) + envelope.resource.SerializeToString(
                    deterministic=True
                )
                if key in seen:
                    continue
                seen.add(key)
                groups.setdefault(envelope.span.trace_id.hex(), []).append(envelope)
    return dict(sorted(groups.items()))


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        after_config = load_config(args.config)
        before_config = load_config(args.baseline_config)
        traces = read_traces(args.inputs)
    except (ConfigError, InputError) as exc:
        print(f"otel-trajectory replay: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"otel-trajectory replay: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not traces:
        print("otel-trajectory replay: no spans in INPUT", file=sys.stderr)
        return EXIT_BAD_INPUT
    before_chain = DetectorChain(load_detectors(before_config.detectors), before_config.detectors)
    after_chain = DetectorChain(load_detectors(after_config.detectors), after_config.detectors)
    counts: Counter[str] = Counter()
    unreadable = 0
    for trace_id, envelopes in traces.items():
        try:
            trajectory = map_trace(envelopes).trajectory
            before, after = before_chain.run(trajectory), after_chain.run(trajectory)
        except Exception as exc:  # one trace that cannot be analysed is reported; the others are still compared
            unreadable += 1
            print(f"otel-trajectory replay: trace {trace_id} could not be analysed: {type(exc).__name__}: "
                  f"{str(exc)[:200]}", file=sys.stderr)
            continue
        outcome = compare(before, after)
        counts[outcome.change.value] += 1
        if outcome.change is Change.UNCHANGED:
            continue
        if args.json:
            record = {
                "trace_id": trace_id,
                "change": outcome.change.value,
                "before": summary(before),
                "after": summary(after),
                "new_findings": [{"category": c, "node_id": n} for c, n in outcome.new_findings],
                "resolved_findings": [{"category": c, "node_id": n} for c, n in outcome.resolved_findings],
            }
            out.write(orjson.dumps(record, option=orjson.OPT_SORT_KEYS).decode() + "\n")
        else:
            out.write(
                f"{trace_id}  {outcome.change.value:<18} {before.verdict.value}/{before.root_cause}"
                f" -> {after.verdict.value}/{after.root_cause}\n"
            )
    if not args.json:
        tally = ", ".join(f"{counts[kind.value]} {kind.value}" for kind in Change)
        out.write(f"\n{len(traces)} trace(s): {tally}\n")
    if counts[Change.NEW_FAILURE.value]:
        return EXIT_NEW_FAILURE
    return EXIT_BAD_INPUT if unreadable else EXIT_OK
