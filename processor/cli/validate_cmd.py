"""``otel-trajectory validate FILE...``: check AT bundles (or Forensic Ledger packets) as an AT consumer.

CLI glue only: reads each file, hands the bytes to :func:`otel_mapper.validate.consumer.validate_bundle` (pure, data only,
AT-16a), prints every problem as ``FILE: /json/pointer [AT-x.y] message`` and exits 0 only when every file passes.
``--print-schema`` writes the JSON Schema the checks use (the source of ``schema/*.schema.json``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Final, TextIO

import orjson

from otel_mapper.validate.bundle_schema import BUNDLE_SCHEMA
from otel_mapper.validate.consumer import MAX_BUNDLE_BYTES, Problem, validate_bundle, validate_ledger
from otel_mapper.validate.ledger_schema import LEDGER_SCHEMA

__all__ = ["add_arguments", "render_schema", "run"]

logger = logging.getLogger(__name__)

EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2


def render_schema(kind: str) -> bytes:
    """The schema file's exact bytes: sorted keys, two-space indent, trailing newline."""
    schema = BUNDLE_SCHEMA if kind == "bundle" else LEDGER_SCHEMA
    return orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE", help="AT bundle JSON files ('-' reads stdin)")
    parser.add_argument(
        "--kind",
        choices=("bundle", "ledger"),
        default="bundle",
        help="what the files are: AT bundles (default) or Forensic Ledger packets; never guessed from content",
    )
    parser.add_argument("--quiet", action="store_true", help="print problems only, no OK lines")
    parser.add_argument(
        "--print-schema",
        choices=("bundle", "ledger"),
        help="print the JSON Schema used for the checks and exit",
    )


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read(MAX_BUNDLE_BYTES + 1)
    with Path(name).open("rb") as handle:
        return handle.read(MAX_BUNDLE_BYTES + 1)


def _kind_hint(data: bytes, kind: str) -> str | None:
    """A sentence when the file is plainly the other kind than ``--kind`` says (``--kind`` is still never guessed)."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(document, dict):
        return None
    if kind == "bundle" and "ledger_version" in document and "trajectory_id" not in document:
        return "this looks like a Forensic Ledger packet; check it with `otel-trajectory validate --kind ledger`"
    if kind == "ledger" and "trajectory_id" in document and "ledger_version" not in document:
        return "this looks like an AT bundle; check it with `otel-trajectory validate` (--kind bundle)"
    return None


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.print_schema:
        out.write(render_schema(args.print_schema).decode("utf-8"))
        return EXIT_OK
    if not args.files:
        out.write("validate: no FILE given\n")
        return EXIT_USAGE
    check = validate_ledger if args.kind == "ledger" else validate_bundle
    failed = 0
    for name in args.files:
        data = b""
        try:
            data = _read(name)
            problems: list[Problem] = check(data)
        except OSError as exc:
            problems = [Problem(path="", check_id="io", message=f"cannot read: {exc.strerror or exc}")]
        if problems:
            failed += 1
            for problem in problems:
                out.write(f"{name}: {problem}\n")
            hint = _kind_hint(data, args.kind)
            if hint:
                out.write(f"{name}: hint: {hint}\n")
        elif not args.quiet:
            out.write(f"{name}: OK\n")
    if len(args.files) > 1 and not args.quiet:
        out.write(f"{len(args.files) - failed} of {len(args.files)} file(s) passed\n")
    return EXIT_INVALID if failed else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m processor.cli.validate_cmd``) until the lead wires the subcommand."""
    parser = argparse.ArgumentParser(prog="otel-trajectory validate")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
