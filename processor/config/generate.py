"""Write the JSON Schema and ``docs/config.example.yaml`` from :data:`processor.config.definition.CONFIG`.

    .venv/bin/python -m processor.config.generate --write    # regenerate both files
    .venv/bin/python -m processor.config.generate --check    # exit 1 when either is stale (CI, tests)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from processor.config.definition import CONFIG
from processor.settings.render import example_yaml, json_schema

__all__ = ["EXAMPLE_PATH", "SCHEMA_PATH", "example_text", "main", "schema_document", "schema_text"]

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "schema" / "otel-trajectory-config-0.1.schema.json"
EXAMPLE_PATH = ROOT / "docs" / "config.example.yaml"

_HEADER = """\
Every key of the otel-trajectory config file, with its default or an example value (keys shown commented out
exclude another key, or are off by default). Generated from processor/config/definition.py by
`python -m processor.config.generate --write`: edit the definition, not this file.
JSON Schema: schema/otel-trajectory-config-0.1.schema.json

Environment variables are expanded before parsing, as ${env:NAME:-default} (the default is optional).
Durations: Go-style such as "1m30s", "500ms", "2h", "1h2m3.5s", or a number of seconds.

Check a file with `otel-trajectory check-config FILE`: it checks what serve will read, so the files named here
(TLS certificates and keys under /etc, the spool directory) must exist. This example names files that exist only
once you create them: `check-config --offline` accepts it as written; `check-config` lists each missing file."""


def schema_document() -> dict[str, Any]:
    return json_schema(
        CONFIG,
        schema_id="https://otel-trajectory.dev/schema/otel-trajectory-config-0.1.schema.json",
        title="otel-trajectory processor configuration",
        description=(
            "The YAML config file of `otel-trajectory serve|map|eval` (after ${env:VAR} expansion). Durations are "
            "Go-style strings such as '1m30s', '500ms' or '2h', or numbers of seconds. Generated from "
            "processor/config/definition.py; `otel-trajectory check-config` checks more (exclusive keys, files)."
        ),
    )


def schema_text() -> str:
    return json.dumps(schema_document(), indent=2, ensure_ascii=False) + "\n"


def example_text() -> str:
    return example_yaml(CONFIG, _HEADER)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m processor.config.generate", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="write the schema and the example file")
    mode.add_argument("--check", action="store_true", help="exit 1 when either file differs from the definition")
    args = parser.parse_args(argv)
    stale = []
    for path, text in ((SCHEMA_PATH, schema_text()), (EXAMPLE_PATH, example_text())):
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current == text:
            continue
        if args.write:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
        else:
            stale.append(str(path.relative_to(ROOT)))
    if stale:
        print(f"stale: {', '.join(stale)}; run python -m processor.config.generate --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
