"""``otel-trajectory eval DIR``: run the detector chain over a labelled corpus and score it.

Walks ``DIR`` for ``labels.json`` files next to ``trace.otlp.json``, maps the labelled trace (with the log records of
``logs.otlp.json`` beside it folded into their spans, as the service joins them), runs the chain with
``--config FILE`` (default ``DIR/config.yaml`` when present; the file's ``detectors:`` section, or the whole file
if it has none) and prints per category TP / FP / FN, precision, recall, anchor accuracy (the finding sits on the
labelled span) and terminal-status accuracy, then model->tool link recall, the same scores per convention (the
library directory each trace sits in), and the misses with trace path and evidence. ``--json`` prints the same as
one JSON object. Predicted ``indeterminate`` findings are counted apart: they are neither hits nor false alarms
unless a label says ``indeterminate``. A root cause is *unfounded* when the diagnosis has no failed finding of its
category or the labels have no ``fail`` finding of it; a correct chain has none. How labels are matched and when an
anchor is undecidable: :mod:`processor.cli.eval_score`; which tool calls count for link recall:
:mod:`processor.cli.eval_links`. Each trace is analysed again under ``--perturbations N`` (default 2, 0: none)
seeded perturbations of arrival order and timestamps, and counted *invariant* when verdict, root cause, terminal
status, findings and causal graph all stay the same (:mod:`processor.cli.eval_invariance`).

Exit status: 0 when it ran (whatever the scores), 2 on a usage or config problem or when ``DIR`` holds no labelled
trace.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import orjson
import yaml

from otel_mapper.diagnosis import Diagnosis
from otel_mapper.model import Trajectory
from otel_mapper.otlp.envelopes import SpanEnvelope
from processor.cli.eval_content import ContentOffTally, check_content_off
from processor.cli.eval_invariance import DEFAULT_PERTURBATIONS, InvarianceTally, check_invariance, signature
from processor.cli.eval_links import score_links, span_texts
from processor.cli.eval_score import ConventionReport, Report, Tally, score_invariance, score_trace
from processor.detectors.chain import DetectorChain
from processor.detectors.config import DetectorsConfig, parse_detectors
from processor.detectors.registry import check_enabled, load_detectors

__all__ = ["add_arguments", "evaluate", "run"]

logger = logging.getLogger(__name__)

LABELS = "labels.json"
TRACE = "trace.otlp.json"
LOGS = "logs.otlp.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", type=Path, help="corpus directory (searched recursively for labels.json)")
    parser.add_argument("--config", type=Path, default=None, help="config file with a detectors: section (default: DIR/config.yaml if present)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of tables")
    parser.add_argument("--content-off", action="store_true",
                        help="analyse each trace again with its content dropped (as a dataset's drop mode drops it) and "
                             "without its log records, and count failures claimed in categories no label gives")
    parser.add_argument("--perturbations", type=int, default=DEFAULT_PERTURBATIONS, metavar="N",
                        help=f"analyse each trace again under N seeded shuffles of arrival order and timestamps and count "
                             f"the traces whose analysis stays the same (default {DEFAULT_PERTURBATIONS}; 0: none)")


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


def _spans(trace_file: Path, trace_id: str | None) -> tuple[str, list[SpanEnvelope]]:
    """The labelled trace (``trace_id``, else the trace with most spans in the file): its id and its spans."""
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
    return chosen, groups[chosen]


def _with_logs(trace_file: Path, chosen: str, spans: list[SpanEnvelope]) -> list[SpanEnvelope]:
    """The spans with the log records of the ``logs.otlp.json`` beside the trace file folded into copies of them."""
    from otel_mapper.mapping.log_events import mapping_envelopes, records_by_trace
    from otel_mapper.otlp.json_codec import decode_log_lines

    logs_file = trace_file.with_name(LOGS)
    if not logs_file.exists():
        return spans
    logs = records_by_trace(decode_log_lines(logs_file.read_bytes())).get(bytes.fromhex(chosen))
    return list(mapping_envelopes(spans, logs))


def _analyser(chain: DetectorChain) -> Callable[[list[SpanEnvelope]], tuple[Trajectory, Diagnosis]]:
    from otel_mapper.mapping.build import map_trace

    def analyse(envelopes: list[SpanEnvelope]) -> tuple[Trajectory, Diagnosis]:
        trajectory = map_trace(envelopes).trajectory
        return trajectory, chain.run(trajectory)

    return analyse


def _convention(labels_file: Path, directory: Path) -> str:
    """The library directory a trace sits in (``traces/<library>/<scenario>/labels.json``)."""
    scenario = labels_file.parent
    if scenario == directory or scenario.parent == directory.parent:
        return scenario.name
    return scenario.parent.name


def evaluate(
    directory: Path, config: DetectorsConfig, perturbations: int = DEFAULT_PERTURBATIONS, content_off: bool = False
) -> Report:
    analyse = _analyser(DetectorChain(load_detectors(config), config))
    report = Report(content_off=ContentOffTally() if content_off else None)
    for labels_file in sorted(directory.rglob(LABELS)):
        trace_file = labels_file.with_name(TRACE)
        if not trace_file.exists():
            continue
        where = str(labels_file.parent.relative_to(directory)) or "."
        try:
            labels = orjson.loads(labels_file.read_bytes())
            chosen, spans = _spans(trace_file, labels.get("trace_id"))
            envelopes = _with_logs(trace_file, chosen, spans)
            trajectory, diagnosis = analyse(envelopes)
            links = score_links(labels, trajectory, span_texts([envelope.span for envelope in envelopes]))
            invariant, why = check_invariance(envelopes, where, signature(trajectory, diagnosis), analyse, perturbations)
        except Exception as exc:  # one broken trace is reported, the rest are still scored
            report.failures.append({"trace": where, "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
            continue
        convention = _convention(labels_file, directory)
        score_trace(report, where, convention, labels, trajectory, diagnosis, links)
        if perturbations > 0:
            score_invariance(report, where, convention, invariant, perturbations, why)
        if report.content_off is not None:
            check_content_off(report.content_off, where, labels, spans, analyse)
    return report


def _convention_json(convention: ConventionReport) -> dict[str, Any]:
    return {
        "traces": convention.traces,
        "terminal_status_accuracy": convention.terminal_right / convention.traces if convention.traces else None,
        "root_causes": convention.root_causes,
        "unfounded_root_causes": convention.unfounded_root_causes,
        "links": convention.links.as_dict(),
        "invariance": convention.invariance.as_dict(),
        "findings": convention.total().as_dict(),
        "categories": {name: tally.as_dict() for name, tally in sorted(convention.categories.items())},
    }


def _as_json(report: Report) -> dict[str, Any]:
    return {
        "traces": report.traces,
        "terminal_status_accuracy": report.terminal_right / report.traces if report.traces else None,
        "root_causes": report.root_causes,
        "unfounded_root_causes": report.unfounded_root_causes,
        "categories": {name: tally.as_dict() for name, tally in sorted(report.categories.items())},
        "links": report.links.as_dict(),
        "invariance": report.invariance.as_dict(),
        "conventions": {name: _convention_json(item) for name, item in sorted(report.conventions.items())},
        "misses": report.misses,
        "failures": report.failures,
        **({"content_off": report.content_off.as_dict()} if report.content_off is not None else {}),
    }


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _category_line(name: str, tally: Tally, width: int = 24) -> str:
    row = tally.as_dict()
    return (f"{name:<{width}} {tally.tp:>4} {tally.fp:>4} {tally.fn:>4} {_fmt(row['precision']):>5} {_fmt(row['recall']):>6} "
            f"{_fmt(row['anchor_accuracy']):>6} {tally.indeterminate:>5} {tally.hidden:>6}")


def _invariant_cell(tally: InvarianceTally) -> str:
    return f"{tally.invariant}/{tally.checked}" if tally.checked else "-"


def _print_conventions(report: Report, out: TextIO) -> None:
    print(f"\nper convention:\n{'convention':<28} {'traces':>6} {'links':>9} {'link_rec':>8} {'wrong':>5} {'prec':>5} "
          f"{'recall':>6} {'anchor':>6} {'undec':>5} {'terminal':>8} {'unfounded':>9} {'invariant':>9}", file=out)
    for name, item in sorted(report.conventions.items()):
        links = item.links.as_dict()
        total = item.total().as_dict()
        print(f"{name:<28} {item.traces:>6} {f'{item.links.recovered}/{item.links.evidenced}':>9} {_fmt(links['recall']):>8} "
              f"{item.links.wrong:>5} {_fmt(total['precision']):>5} {_fmt(total['recall']):>6} {_fmt(total['anchor_accuracy']):>6} "
              f"{total['anchor_undecidable']:>5} {f'{item.terminal_right}/{item.traces}':>8} {item.unfounded_root_causes:>9} "
              f"{_invariant_cell(item.invariance):>9}", file=out)
    print(f"\nper convention and category:\n{'convention / category':<52} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>5} "
          f"{'recall':>6} {'anchor':>6} {'indet':>5} {'hidden':>6}", file=out)
    for name, item in sorted(report.conventions.items()):
        for category, tally in sorted(item.categories.items()):
            print(_category_line(f"{name} / {category}", tally, 52), file=out)


def _print_text(report: Report, out: TextIO) -> None:
    print(f"{'category':<24} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>5} {'recall':>6} {'anchor':>6} {'indet':>5} {'hidden':>6}",
          file=out)
    for name, tally in sorted(report.categories.items()):
        print(_category_line(name, tally), file=out)
    accuracy = report.terminal_right / report.traces if report.traces else None
    print(f"\nterminal status: {report.terminal_right}/{report.traces} right ({_fmt(accuracy)}) over {report.traces} traces", file=out)
    print(f"root causes: {report.root_causes}, unfounded: {report.unfounded_root_causes}", file=out)
    links = report.links.as_dict()
    kinds = ", ".join(f"{kind} {count}" for kind, count in links["by_evidence"].items()) or "none"
    print(f"model->tool links: {report.links.recovered}/{report.links.evidenced} recovered ({_fmt(links['recall'])}) of tool calls "
          f"whose evidence is in the trace ({kinds}); wrong: {report.links.wrong}; recovered without counted evidence: "
          f"{report.links.recovered_unevidenced}", file=out)
    if report.invariance.checked:
        print(f"invariance: {report.invariance.invariant}/{report.invariance.checked} traces gave the same analysis under "
              f"{report.invariance.perturbations} shuffles of arrival order and timestamps each", file=out)
    if report.content_off is not None:
        _print_content_off(report.content_off, out)
    _print_conventions(report, out)
    if report.misses:
        print(f"\nmisses ({len(report.misses)}):", file=out)
        for miss in report.misses:
            span = f" span {miss['span']}" if miss["span"] else ""
            print(f"  {miss['trace']}: {miss['category']} {miss['kind']}{span}: {miss['evidence']}", file=out)
    for failure in report.failures:
        print(f"  {failure['trace']}: could not be analysed: {failure['error']}", file=out)


def _print_content_off(tally: ContentOffTally, out: TextIO) -> None:
    row = tally.as_dict()
    print(f"content off: {tally.traces} traces analysed again with their content dropped and no log records: labelled "
          f"failures still found {tally.kept}/{tally.labelled} ({_fmt(row['recall'])}); failures in a category no label "
          f"gives: {len(tally.unsupported)}; unfounded root causes: {tally.unfounded_root_causes}", file=out)
    missed = tally.labelled - tally.kept
    if missed:
        print(f"  of the {missed} not found, reported indeterminate (could not be checked): {tally.undecided}; not "
              f"reported: {missed - tally.undecided}", file=out)
    for name, category in sorted(tally.categories.items()):
        counts = category.as_dict()
        print(f"  {name}: found {counts['kept']}/{counts['labelled']}, indeterminate {counts['undecided']}, not "
              f"reported {counts['unreported']}", file=out)
    for item in tally.unsupported:
        print(f"  {item['trace']}: {item['category']}: {item['evidence']}", file=out)


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
    if args.perturbations < 0:
        print(f"eval: --perturbations must be 0 or more, got {args.perturbations}", file=sys.stderr)
        return 2
    report = evaluate(directory, config, args.perturbations, content_off=args.content_off)
    if not report.traces and not report.failures:
        print(f"eval: no {LABELS} next to a {TRACE} under {directory}: nothing to score (see corpus/README.md for "
              "the label format)", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(orjson.dumps(_as_json(report), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n")
    else:
        _print_text(report, sys.stdout)
    return 0
