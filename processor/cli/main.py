"""The ``otel-trajectory`` command: serve, map, report, demo, eval, validate, replay, dataset, check-config,
healthcheck, delete.

Command names and flags are a public interface: add, never rename.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from processor.config import Config, ConfigError, ExportConfig, load_config, parse_endpoint

__all__ = ["main"]

logger = logging.getLogger("otel_trajectory")


def _endpoint_arg(value: str) -> str:
    try:
        parse_endpoint(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return value


def _duration_arg(value: str) -> float:
    """A duration flag: Go-style (``1m30s``, ``500ms``) or a number of seconds, as in the config file."""
    from processor.settings import DURATION_FORMS, parse_duration_text

    seconds = parse_duration_text(value)
    if seconds is None:
        raise argparse.ArgumentTypeError(f"{value!r} is not {DURATION_FORMS}")
    return seconds


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="otel-trajectory",
        description="Map AI-agent OpenTelemetry traces into causal trajectories, diagnose them, re-emit them annotated.",
    )
    parser.add_argument("--log-level", default=None, choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="default INFO (WARNING for demo, map, report, eval and validate)")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the OTLP/gRPC processor")
    serve.add_argument("--config", type=Path, help="YAML config file")
    serve.add_argument("--listen", type=_endpoint_arg, help="HOST:PORT to receive OTLP/gRPC (default 127.0.0.1:4317)")
    serve.add_argument("--http-listen", type=_endpoint_arg,
                       help="HOST:PORT to receive OTLP/HTTP (default 127.0.0.1:4318; 'off' in the config: receiver.http.enabled)")
    serve.add_argument("--metrics-listen", type=_endpoint_arg, help="HOST:PORT for the Prometheus /metrics endpoint")
    serve.add_argument("--export-endpoint", type=_endpoint_arg, help="HOST:PORT of the next OTLP/gRPC hop")
    serve.add_argument("--output-dir", type=Path, help="where bundles, ledgers and (without an export endpoint) spans go")
    serve.add_argument("--decision-wait", type=_duration_arg,
                       help="quiet time after a root before release: 2s, 500ms or seconds")

    map_cmd = commands.add_parser("map", help="map OTLP files offline (no network)")
    map_cmd.add_argument("inputs", nargs="+", metavar="INPUT",
                         help="OTLP/JSON or binary protobuf files, directories of them (searched recursively), or - for stdin")
    map_cmd.add_argument("--config", type=Path, help="YAML config file")
    map_cmd.add_argument("--output-dir", type=Path, help="output directory (default ./otel-trajectory-data)")
    map_cmd.add_argument("--logs", nargs="+", type=Path, default=[], metavar="FILE",
                         help="OTLP logs files (OTLP/JSON or binary) whose records are joined to their spans, as serve "
                              "joins the GenAI events instrumentations send as logs")
    map_cmd.add_argument("--pretty", action="store_true",
                         help="write bundle.json and ledger.json indented (same content; the integrity digest is unchanged)")

    demo = commands.add_parser("demo", help="run the pipeline on the embedded corpus over loopback")
    demo.add_argument("--output-dir", type=Path, default=Path("otel-trajectory-data/demo"))

    delete = commands.add_parser("delete", help="delete the artifact files (bundles, ledgers) of traces by id")
    delete.add_argument("trace_ids", nargs="+", metavar="TRACE_ID", help="32 hex digits, as Jaeger or Tempo show it")
    delete.add_argument("--config", type=Path, help="YAML config file (its output.directory)")
    delete.add_argument("--output-dir", type=Path, help="output directory (default: the config's, ./otel-trajectory-data)")

    check = commands.add_parser(
        "check-config", help="validate a config file and what serve will read (TLS and token files, spool); report every problem"
    )
    check.add_argument("file", type=Path)
    check.add_argument("--offline", action="store_true",
                       help="check keys and values only, not the files and directories they name")

    health = commands.add_parser("healthcheck", help="exit 0 when a running serve answers SERVING (gRPC health)")
    health.add_argument("--endpoint", type=_endpoint_arg, default="127.0.0.1:4317", help="HOST:PORT of the gRPC receiver")
    health.add_argument("--timeout", type=_duration_arg, default=2.0, help="2s, 500ms or seconds (default 2)")
    health.add_argument("--ca-file", help="CA to trust when the receiver serves TLS")
    health.add_argument("--cert-file", help="client certificate when the receiver requires one (mTLS)")
    health.add_argument("--key-file", help="key of --cert-file")
    health.add_argument("--server-name", help="name to expect in the server certificate, when it does not name the endpoint")
    health.add_argument("--service", default="",
                        help="a health entry other than the whole server, e.g. otel_trajectory.exporter.traces "
                             "(NOT_SERVING while the traces export target fails)")

    for name, module, help_text in (
        ("eval", "processor.cli.eval_cmd", "score the detector chain against labelled traces"),
        ("validate", "processor.cli.validate_cmd", "validate AT bundles as an AT consumer"),
        ("report", "processor.cli.report_cmd", "draw trajectories as one self-contained HTML page"),
        ("replay", "processor.cli.replay_cmd", "diagnose recorded traces under a new config and report what changes"),
        ("dataset", "processor.cli.dataset_cmd", "build a versioned regression dataset from bundles"),
    ):
        sub = commands.add_parser(name, help=help_text)
        try:
            __import__(module, fromlist=["add_arguments"]).add_arguments(sub)
        except ImportError as exc:
            sub.set_defaults(unavailable=str(exc))
    return parser


def _load(path: Path | None) -> Config:
    return load_config(path)


async def _serve(config: Config) -> int:
    """Run until SIGINT/SIGTERM. Raises :class:`~processor.startup.StartupError` when it cannot start (then
    nothing it started is left running)."""
    from processor.config.checks import check_serve_settings
    from processor.service import TrajectoryService
    from processor.startup import StartupError

    problems = check_serve_settings(config)  # files and directories: what check-config reports, before anything starts
    if problems:
        raise StartupError(problems)
    service = TrajectoryService(config)
    await service.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    logger.info("stopping: releasing buffered traces and draining exports")
    await service.shutdown()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    level = args.log_level or ("INFO" if args.command == "serve" else "WARNING")
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if getattr(args, "unavailable", None):
        print(f"otel-trajectory {args.command} is not available: {args.unavailable}", file=sys.stderr)
        return 2
    try:
        if args.command == "serve":
            config = _load(args.config)
            export = config.export
            if args.export_endpoint:
                export = ExportConfig(endpoint=args.export_endpoint) if export is None else _with_endpoint(export, args.export_endpoint)
            config = config.with_overrides(
                listen=args.listen,
                http_listen=args.http_listen,
                output_dir=str(args.output_dir) if args.output_dir else None,
                decision_wait=args.decision_wait,
                export=export,
            )
            if args.metrics_listen:
                from dataclasses import replace

                config = replace(config, metrics=replace(config.metrics, prometheus_endpoint=args.metrics_listen))
            from processor.startup import StartupError

            try:
                return asyncio.run(_serve(config))
            except StartupError as exc:
                for problem in exc.problems:
                    print(f"otel-trajectory serve: cannot start: {problem}", file=sys.stderr)
                return 2
        if args.command == "healthcheck":
            from processor.telemetry.health import probe

            try:
                serving, text = probe(args.endpoint, args.timeout, ca_file=args.ca_file, cert_file=args.cert_file,
                                      key_file=args.key_file, server_name=args.server_name, service=args.service)
            except ValueError as exc:
                print(f"otel-trajectory healthcheck: {exc}", file=sys.stderr)
                return 2
            print(f"{args.endpoint}{' ' + args.service if args.service else ''}: {text}")
            return 0 if serving else 1
        if args.command == "map":
            from otel_mapper.mapping.log_events import records_by_trace
            from processor.cli.inputs import InputError, read_inputs, read_log_inputs
            from processor.cli.offline import map_files
            from processor.cli.table import format_table, row_of

            config = _load(args.config)
            try:
                inputs = read_inputs(args.inputs)
                logs = records_by_trace([*inputs.logs, *read_log_inputs(args.logs)])
            except InputError as exc:
                print(f"otel-trajectory map: {exc}", file=sys.stderr)
                return 2
            for note in inputs.passed_over:
                logger.info("passed over %s", note)
            for name in inputs.log_files:
                logger.info("read log records from %s", name)
            output_dir = args.output_dir or Path(config.output_dir)
            results = map_files(inputs.requests, config, output_dir, pretty=args.pretty, logs=logs)
            print(format_table(row_of(item) for item in results))
            print(f"\nwrote {len(results)} trajectories under {output_dir}/<trace id>/")
            return 0
        if args.command == "demo":
            from processor.cli.demo import run_demo

            return run_demo(args.output_dir)
        if args.command == "delete":
            from processor.pipeline.retention import delete_trace_artifacts

            output_dir = args.output_dir or Path(_load(args.config).output_dir)
            for trace_id in args.trace_ids:
                files, size = delete_trace_artifacts(output_dir, trace_id)
                print(f"{trace_id}: {files} artifact file(s) deleted ({size} bytes)" if files
                      else f"{trace_id}: no artifacts under {output_dir}")
            return 0
        if args.command == "check-config":
            config = _check_config(args.file, offline=args.offline)
            print(f"{args.file}: OK" + (" (offline: files not checked)" if args.offline else ""))
            for line in _resolved_on_this_machine(config):
                print(f"  {line}")
            return 0
        if args.command == "eval":
            from processor.cli import eval_cmd

            return int(eval_cmd.run(args))
        if args.command == "validate":
            from processor.cli import validate_cmd

            return int(validate_cmd.run(args))
        if args.command == "report":
            from processor.cli import report_cmd

            return int(report_cmd.run(args))
        if args.command in ("replay", "dataset"):  # modules registered in the table of _parser
            return int(args.run_command(args))
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except ValueError as exc:  # certificates, tokens, endpoints: the message says what to fix
        print(f"otel-trajectory {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"otel-trajectory {args.command}: {exc}", file=sys.stderr)
        return 1
    return 2


def _check_config(path: Path, offline: bool) -> Config:
    """The config, after the checks ``serve`` makes at start-up (files readable, spool writable) unless
    ``offline``; raises :class:`ConfigError` listing every problem."""
    from processor.config.checks import check_serve_settings
    from processor.config.loader import read_config_file

    config, problems = read_config_file(path, load_files=not offline)
    if config is not None:
        problems += check_serve_settings(config, offline=offline)
    if problems or config is None:
        raise ConfigError(problems, str(path))
    return config


def _resolved_on_this_machine(config: Config) -> list[str]:
    """The settings whose value depends on where ``serve`` runs, as they resolve here."""
    from processor.resources import analysis_worker_count, cgroup_limits, machine_memory_bytes
    from processor.service import DEFAULT_MEMORY_SHARE, MiB, effective_memory_limit

    limits = cgroup_limits()
    memory = f"processor.memory_limit_mib: {config.memory_limit_mib} -> {effective_memory_limit(config) // MiB} MiB"
    if not config.memory_limit_mib:
        total = machine_memory_bytes(limits, fallback=0)
        whose = "the container's memory limit" if limits.memory_bytes == total else "the machine's memory"
        memory += f" of span data ({DEFAULT_MEMORY_SHARE:.0%} of {total // MiB} MiB, {whose})"
    workers = analysis_worker_count(config.analysis_workers, limits)
    where = f"{workers} worker process(es)" if workers else "a thread of serve"
    if config.analysis_workers == "auto":
        where += " (auto: one per usable CPU, at most 8)"
    return [f"processor.analysis_workers: analysis runs in {where}", memory]


def _with_endpoint(export: ExportConfig, endpoint: str) -> ExportConfig:
    from dataclasses import replace

    return replace(export, endpoint=endpoint)


if __name__ == "__main__":
    raise SystemExit(main())
