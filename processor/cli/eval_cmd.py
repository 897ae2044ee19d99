"""``otel-trajectory eval DIR``: run the detector chain over a labelled corpus and score it.

Walks ``DIR`` for ``labels.json`` files next to ``trace.otlp.json``, maps the labelled trace, runs the chain with
``--config FILE`` (default ``DIR/config.yaml`` when present; the file's ``detectors:`` section, or the whole file
if it has none) and prints per category TP / FP / FN, precision, recall, anchor accuracy (the finding sits on the
labelled span) and terminal-status accuracy, then the misses with trace path and evidence. ``--json`` prints the
same as one JSON object. Predicted ``indeterminate`` findings are counted apart: they are neither hits nor false
alarms unless a label says ``indeterminate``. A root cause is *unfounded* when the diagnosis has no failed finding
of its category or the labels have no ``fail`` finding of it; a correct chain has none.

Exit status: 0 when it ran (whatever the scores), 2 on a usage or config problem or when ``DIR`` holds no labelled
trace.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import orjson
import yaml

from otel_mapper.diagnosis import Diagnosis, Finding
from otel_mapper.model import Trajectory
from processor.detectors.chain import DetectorChain
from processor.detectors.config import DetectorsConfig, parse_detectors
from processor.detectors.registry import check_enabled, load_detectors
from semconv.trajectory import ROOT_CAUSE_NONE, FindingStatus

__all__ = ["add_arguments", "run"]

logger = logging.getLogger(__name__)

LABELS = "labels.json"
TRACE = "trace.otlp.json"
MAX_EVIDENCE = 160


@dataclass(slots=True)
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    anchored: int = 0
    indeterminate: int = 0

    def as_dict(self) -> dict[str, Any]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else None
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else None
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": precision, "recall": recall,
                "anchor_accuracy": self.anchored / self.tp if self.tp else None, "indeterminate": self.indeterminate}


@dataclass(slots=True)
class Report:
    categories: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    traces: int = 0
    terminal_right: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)
    root_causes: int = 0
    """Traces whose diagnosis names a root cause (anything but ``none``)."""
    unfounded_root_causes: int = 0
    """Root causes that no failed finding of the diagnosis, or no ``fail`` label of the trace, supports."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", type=Path, help="corpus directory (searched recursively for labels.json)")
    parser.add_argument("--config", type=Path, default=None, help="config file with a detectors: section (default: DIR/config.yaml if present)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of tables")


def _load_config(path: Path | None) -> tuple[DetectorsConfig, list[str]]:
    if path is None:
        return DetectorsConfig(), []
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        return DetectorsConfig(), [f"{path}: cannot read the config: {exc}"]
    section = document.get("detectors", document) if isinstance(document, dict) else document
    errors: list[str] = []
    config = parse_detectors(section, errors, base_dir=path.parent)
    errors += check_enabled(config)
    return config, errors


def _map(trace_file: Path, trace_id: str | None) -> Trajectory:
    from otel_mapper.mapping.build import map_trace
    from otel_mapper.otlp.envelopes import split_request
    from otel_mapper.otlp.json_codec import decode_json_lines

    groups: dict[str, list[Any]] = {}
    for request in decode_json_lines(trace_file.read_bytes()):
        envelopes, _ = split_request(request)
        for envelope in envelopes:
            groups.setdefault(envelope.span.trace_id.hex(), []).append(envelope)
    if not groups:
        raise ValueError("no spans in the trace file")
    chosen = trace_id if trace_id in groups else max(sorted(groups), key=lambda key: len(groups[key]))
    return map_trace(groups[chosen]).trajectory


def _span_of(trajectory: Trajectory, finding: Finding) -> str:
    node = trajectory.node(finding.node_id)
    return node.source.span_id if node else ""


def _score(report: Report, where: str, labels: dict[str, Any], trajectory: Trajectory, diagnosis: Diagnosis) -> None:
    predicted: dict[str, list[Finding]] = defaultdict(list)
    for item in diagnosis.chain:
        predicted[item.finding.category.value].append(item.finding)
    expected: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for label in labels.get("findings") or []:
        expected[str(label.get("category"))].append(label)
    for category in sorted(set(predicted) | set(expected)):
        tally = report.categories[category]
        free = list(predicted.get(category, []))
        for label in expected.get(category, []):
            status = label.get("status", "fail")
            candidates = [f for f in free if f.status.value == status]
            on_span = [f for f in candidates if _span_of(trajectory, f) == label.get("anchor_span")]
            chosen = on_span[0] if on_span else candidates[0] if candidates else None
            if chosen is None:
                tally.fn += 1
                near = next((f for f in free if f.status.value != status), None)
                note = f"predicted {near.status.value}: {near.evidence[:MAX_EVIDENCE]}" if near else "no finding"
                report.misses.append({"trace": where, "category": category, "kind": "missed", "span": label.get("anchor_span"), "evidence": note})
                continue
            free.remove(chosen)
            tally.tp += 1
            if on_span:
                tally.anchored += 1
            else:
                report.misses.append({"trace": where, "category": category, "kind": "wrong anchor", "span": _span_of(trajectory, chosen),
                                      "evidence": f"labelled {label.get('anchor_span')}; found: {chosen.evidence[:MAX_EVIDENCE]}"})
        for finding in free:
            if finding.status.value == "indeterminate":
                tally.indeterminate += 1
                continue
            tally.fp += 1
            report.misses.append({"trace": where, "category": category, "kind": "false alarm", "span": _span_of(trajectory, finding),
                                  "evidence": finding.evidence[:MAX_EVIDENCE]})
    report.traces += 1
    _score_root_cause(report, where, labels, diagnosis)
    expected_terminal = labels.get("terminal_status")
    if expected_terminal == diagnosis.terminal_status.value:
        report.terminal_right += 1
    elif expected_terminal is not None:
        report.misses.append({"trace": where, "category": "terminal_status", "kind": "wrong terminal status", "span": "",
                              "evidence": f"labelled {expected_terminal}, got {diagnosis.terminal_status.value}"})


def _score_root_cause(report: Report, where: str, labels: dict[str, Any], diagnosis: Diagnosis) -> None:
    """A root cause is founded when a failed finding of its category exists and a ``fail`` label names it."""
    cause = diagnosis.root_cause
    if cause == ROOT_CAUSE_NONE:
        return
    report.root_causes += 1
    failed = {item.finding.category.value for item in diagnosis.chain if item.finding.status is FindingStatus.FAIL}
    labelled = {str(label.get("category")) for label in labels.get("findings") or [] if label.get("status", "fail") == "fail"}
    if cause in failed and cause in labelled:
        return
    report.unfounded_root_causes += 1
    why = "no failed finding of that category" if cause not in failed else "no fail label of that category"
    report.misses.append({"trace": where, "category": "root_cause", "kind": "unfounded root cause", "span": "",
                          "evidence": f"root cause {cause}: {why}"})


def evaluate(directory: Path, config: DetectorsConfig) -> Report:
    chain = DetectorChain(load_detectors(config), config)
    report = Report()
    for labels_file in sorted(directory.rglob(LABELS)):
        trace_file = labels_file.with_name(TRACE)
        if not trace_file.exists():
            continue
        where = str(labels_file.parent.relative_to(directory)) or "."
        try:
            labels = orjson.loads(labels_file.read_bytes())
            trajectory = _map(trace_file, labels.get("trace_id"))
            diagnosis = chain.run(trajectory)
        except Exception as exc:  # one broken trace is reported, the rest are still scored
            report.failures.append({"trace": where, "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
            continue
        _score(report, where, labels, trajectory, diagnosis)
    return report


def _as_json(report: Report) -> dict[str, Any]:
    return {
        "traces": report.traces,
        "terminal_status_accuracy": report.terminal_right / report.traces if report.traces else None,
        "root_causes": report.root_causes,
        "unfounded_root_causes": report.unfounded_root_causes,
        "categories": {name: tally.as_dict() for name, tally in sorted(report.categories.items())},
        "misses": report.misses,
        "failures": report.failures,
    }


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _print_text(report: Report, out: TextIO) -> None:
    print(f"{'category':<24} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>5} {'recall':>6} {'anchor':>6} {'indet':>5}", file=out)
    for name, tally in sorted(report.categories.items()):
        row = tally.as_dict()
        print(f"{name:<24} {tally.tp:>4} {tally.fp:>4} {tally.fn:>4} {_fmt(row['precision']):>5} {_fmt(row['recall']):>6} "
              f"{_fmt(row['anchor_accuracy']):>6} {tally.indeterminate:>5}", file=out)
    accuracy = report.terminal_right / report.traces if report.traces else None
    print(f"\nterminal status: {report.terminal_right}/{report.traces} right ({_fmt(accuracy)}) over {report.traces} traces", file=out)
    print(f"root causes: {report.root_causes}, unfounded: {report.unfounded_root_causes}", file=out)
    if report.misses:
        print(f"\nmisses ({len(report.misses)}):", file=out)
        for miss in report.misses:
            span = f" span {miss['span']}" if miss["span"] else ""
            print(f"  {miss['trace']}: {miss['category']} {miss['kind']}{span}: {miss['evidence']}", file=out)
    for failure in report.failures:
        print(f"  {failure['trace']}: could not be analysed: {failure['error']}", file=out)


def run(args: argparse.Namespace) -> int:
    directory: Path = args.directory
    if not directory.is_dir():
        print(f"eval: {directory} is not a directory", file=sys.stderr)
        return 2
    config_path = args.config if args.config is not None else (directory / "config.yaml" if (directory / "config.yaml").exists() else None)
    config, errors = _load_config(config_path)
    if errors:
        print("eval: the config has problems:", *(f"  {e}" for e in errors), sep="\n", file=sys.stderr)
        return 2
    report = evaluate(directory, config)
    if not report.traces and not report.failures:
        print(f"eval: no {LABELS} next to a {TRACE} under {directory}: nothing to score (see corpus/README.md for "
              "the label format)", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(orjson.dumps(_as_json(report), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n")
    else:
        _print_text(report, sys.stdout)
    return 0
