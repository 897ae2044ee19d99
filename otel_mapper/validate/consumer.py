"""AT consumer: check a bundle (and a Forensic Ledger packet) given as bytes. Pure; returns problems.

Order of work (AT-14b first: a bundle of an unknown version or profile is rejected before anything is read into
it, so no semantics are guessed from field shapes):

1. bytes -> JSON (UTF-8, one object, bounded size) — AT-14a;
2. ``spec_version`` and ``profiles`` — AT-14b;
3. the JSON Schema (:mod:`otel_mapper.validate.bundle_schema`, checked by :mod:`otel_mapper.validate.schema_check`);
4. semantic checks (:mod:`otel_mapper.validate.semantic`): duplicate ids (AT-7.1a), dangling references (AT-7.3a, AT-8.3a, AT-10.1a, AT-10.2a,
   AT-10.3a), cycles among ordering edges (AT-3.3a), ``complete`` despite material losses (AT-6.2c, AT-13.1b),
   merged outcome authorities (AT-10.1b), extensions (AT-14c), integrity digest (AT-14d).

The document is data only: nothing in it is executed, imported, fetched or dereferenced (AT-16a). Every walk is
iterative.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import orjson

from otel_mapper.bundle.common import SPEC_VERSION, SUPPORTED_PROFILES
from otel_mapper.validate.bundle_schema import BUNDLE_SCHEMA
from otel_mapper.validate.ledger_schema import LEDGER_SCHEMA
from otel_mapper.validate.problems import Problem
from otel_mapper.validate.schema_check import SchemaError, check, pointer
from otel_mapper.validate.semantic import semantic_problems

__all__ = ["MAX_BUNDLE_BYTES", "Problem", "validate_bundle", "validate_document", "validate_ledger"]

MAX_BUNDLE_BYTES: Final = 256 * 1024 * 1024
"""Refuse larger inputs outright (oversized inline artifacts, AT-16b)."""
MAX_PROBLEMS: Final = 500

_CHECK_OF_FIELD: Final[Mapping[str, str]] = {
    "spec_version": "AT-14b",
    "profiles": "AT-14b",
    "trajectory_id": "AT-7.1a",
    "source": "AT-6.2a",
    "scope": "AT-6.2b",
    "completeness": "AT-6.2c",
    "bindings": "AT-6.3a",
    "states": "AT-8.3a",
    "nodes": "AT-9a",
    "edges": "AT-4.4a",
    "outcomes": "AT-10.1a",
    "verifier_results": "AT-10.2a",
    "reward_records": "AT-10.3a",
    "transform": "AT-13.1a",
    "disclosure": "AT-3.5a",
    "rights": "AT-13.3a",
    "integrity": "AT-14d",
    "extensions": "AT-14c",
}
"""Which checklist requirement a schema error under each top-level field breaks."""

_NODE_CHECKS: Final[Mapping[str, str]] = {
    "arguments": "AT-13.2a",
    "result": "AT-13.2a",
    "output": "AT-13.2a",
    "error": "AT-13.2a",
    "state_before": "AT-8.3a",
    "state_after": "AT-8.3a",
    "status": "AT-4.5a",
    "source": "AT-3.2a",
    "references": "AT-3.2a",
    "external_parent": "AT-7.3a",
    "timing": "AT-14a",
}




def _parse(data: bytes) -> tuple[object, list[Problem]]:
    if len(data) > MAX_BUNDLE_BYTES:
        return None, [Problem(path="", check_id="AT-16b", message=f"larger than {MAX_BUNDLE_BYTES} bytes")]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(path="", check_id="AT-14a", message=f"not UTF-8 (byte {exc.start})")]
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return None, [Problem(path="", check_id="AT-14a", message=f"not JSON: {str(exc)[:200]}")]
    if not isinstance(document, dict):
        return None, [Problem(path="", check_id="AT-14a", message="a bundle is a JSON object")]
    return document, []


def validate_bundle(data: bytes) -> list[Problem]:
    """Every problem of an AT bundle given as bytes; an empty list means it is accepted."""
    document, problems = _parse(data)
    if problems:
        return problems
    assert isinstance(document, dict)
    return validate_document(document)


def validate_document(document: dict[str, object]) -> list[Problem]:
    """The same checks on an already parsed bundle."""
    version_problems = _version(document)
    if version_problems:
        return version_problems
    problems = [_schema_problem(error) for error in check(document, BUNDLE_SCHEMA)]
    problems.extend(semantic_problems(document))
    return problems[:MAX_PROBLEMS]


def validate_ledger(data: bytes) -> list[Problem]:
    """Schema check of a Forensic Ledger v1.6.0 packet as we write it."""
    document, problems = _parse(data)
    if problems:
        return [Problem(path=p.path, check_id="FL-1.6.0", message=p.message) for p in problems]
    return [
        Problem(path=pointer(error.path), check_id="FL-1.6.0", message=error.message)
        for error in check(document, LEDGER_SCHEMA)
    ]


def _version(document: Mapping[str, object]) -> list[Problem]:
    version = document.get("spec_version")
    if version != SPEC_VERSION:
        shown = repr(version)[:40] if "spec_version" in document else "missing"
        return [Problem(path="/spec_version", check_id="AT-14b", message=f"unsupported spec_version {shown}")]
    profiles = document.get("profiles")
    if not isinstance(profiles, list) or not profiles:
        return [Problem(path="/profiles", check_id="AT-14b", message="profiles must be a non-empty list")]
    problems = [
        Problem(path=f"/profiles/{i}", check_id="AT-14b", message=f"unsupported required profile {str(p)[:40]!r}")
        for i, p in enumerate(profiles)
        if not isinstance(p, str) or p not in SUPPORTED_PROFILES
    ]
    if not problems and "AT-Core" not in profiles:
        problems.append(Problem(path="/profiles", check_id="AT-14b", message="every profile builds on AT-Core"))
    return problems


def _schema_problem(error: SchemaError) -> Problem:
    check_id = "AT-6.1a"
    if error.path:
        top = str(error.path[0])
        if error.keyword == "additionalProperties" and len(error.path) == 1:
            check_id = "AT-14c"  # an unknown top-level field: core fields are fixed, extras go in extensions
        elif error.keyword == "required" and len(error.path) == 1:
            check_id = "AT-6.1a"
        elif top == "nodes" and len(error.path) >= 3:
            check_id = _NODE_CHECKS.get(str(error.path[2]), _CHECK_OF_FIELD["nodes"])
        else:
            check_id = _CHECK_OF_FIELD.get(top, "AT-6.1a")
    return Problem(path=pointer(error.path), check_id=check_id, message=error.message)
