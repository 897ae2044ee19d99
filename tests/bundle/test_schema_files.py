"""The schema files in ``schema/`` are exactly the schemas the validator uses, and are valid 2020-12 schemas."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import orjson
import pytest

from otel_mapper.validate.bundle_schema import BUNDLE_SCHEMA
from otel_mapper.validate.ledger_schema import LEDGER_SCHEMA
from otel_mapper.validate.schema_check import SUPPORTED_KEYWORDS
from processor.cli import validate_cmd

ROOT = Path(__file__).resolve().parents[2]
FILES = {"bundle": ROOT / "schema" / "at-bundle-0.1.schema.json", "ledger": ROOT / "schema" / "forensic-ledger-1.6.0.schema.json"}


@pytest.mark.parametrize("kind", sorted(FILES))
def test_schema_file_matches_the_embedded_schema(kind: str) -> None:
    # Regenerate with: python -m processor.cli.validate_cmd --print-schema {bundle,ledger} > schema/<file>
    assert FILES[kind].read_bytes() == validate_cmd.render_schema(kind)


@pytest.mark.parametrize("schema", [BUNDLE_SCHEMA, LEDGER_SCHEMA], ids=["bundle", "ledger"])
def test_schema_is_a_valid_2020_12_schema_with_a_versioned_id(schema: dict) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert str(schema["$id"]).endswith(("at-bundle-0.1.schema.json", "forensic-ledger-1.6.0.schema.json"))


def _keywords(schema: object) -> Iterator[str]:
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                yield key
                if key in ("properties", "$defs"):
                    stack.extend(value.values())
                elif key not in ("const", "enum", "required"):
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


@pytest.mark.parametrize("schema", [BUNDLE_SCHEMA, LEDGER_SCHEMA], ids=["bundle", "ledger"])
def test_schemas_use_only_keywords_the_builtin_checker_implements(schema: dict) -> None:
    annotations = {"$schema", "$id", "title", "description", "$comment", "$defs"}
    assert set(_keywords(schema)) <= SUPPORTED_KEYWORDS | annotations


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    validate_cmd.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_passes_valid_files_and_fails_on_any_problem(tmp_path: Path) -> None:
    from .support import mutated, valid_bundle

    good = tmp_path / "good.json"
    good.write_bytes(orjson.dumps(valid_bundle()))
    bad = tmp_path / "bad.json"
    bad.write_bytes(mutated(lambda d: d.update(spec_version="0.2")))
    out = io.StringIO()
    assert validate_cmd.run(_args(str(good)), out) == 0
    assert out.getvalue() == f"{good}: OK\n"
    out = io.StringIO()
    assert validate_cmd.run(_args(str(good), str(bad), str(tmp_path / "missing.json")), out) == 1
    text = out.getvalue()
    assert f"{bad}: /spec_version [AT-14b] unsupported spec_version '0.2'" in text
    assert f"{tmp_path / 'missing.json'}: / [io] cannot read" in text
    assert "1 of 3 file(s) passed" in text


def test_cli_validates_ledgers_only_when_asked(tmp_path: Path) -> None:
    from otel_mapper.bundle.ledger import write_ledger

    from .support import make_diagnosis, make_trajectory

    ledger = tmp_path / "ledger.json"
    ledger.write_bytes(write_ledger(make_trajectory(), make_diagnosis()))
    assert validate_cmd.run(_args("--kind", "ledger", "--quiet", str(ledger)), io.StringIO()) == 0
    assert validate_cmd.run(_args("--quiet", str(ledger)), io.StringIO()) == 1


def test_cli_without_files_is_a_usage_error() -> None:
    assert validate_cmd.run(_args(), io.StringIO()) == 2
